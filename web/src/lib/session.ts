// Who is signed in (GET /v1/sessions/current), what they may do, and sign-out; provided to every page by app.ts.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { SessionRecord } from '../../../src/auth/sessions.schemas.js';

/** The session object of POST /v1/sessions and GET /v1/sessions/current (the server's schema type). */
export type Session = SessionRecord;

/** The server's own rule (admin:* covers everything, printers:* covers printers:read): the nav never disagrees with a 403. */
export { covers } from '../../../src/auth/scopes.js';

export interface SessionApi {
  session: Session;
  can: (scope: string) => boolean;
  signOut: () => Promise<void>;
  /** The organization's currency for money on screen (loaded once after sign-in; 'EUR' until then). */
  currency: string;
}

export const SessionContext = createContext<SessionApi | null>(null);

/** The signed-in session; pages render only inside the signed-in app, so it is always there. */
export function useSession(): SessionApi {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside the signed-in app');
  return s;
}
