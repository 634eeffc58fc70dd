// Who is calling: what the authenticate middleware puts on ctx.state.auth for authorize, handlers and idempotency.
import type Koa from 'koa';
import type { RunEnvironment } from '../../config.js';
import { unauthorized } from '../../errors.js';

export interface AuthContext {
  keyId: string;
  keyName: string;
  scopes: readonly string[];
  env: RunEnvironment;
  /** The user the key acts for (the owner for bootstrap and CLI keys). */
  userId: string | null;
}

/** The caller of an authenticated request, or undefined when the request carried no valid key. */
export const getAuth = (ctx: Koa.Context): AuthContext | undefined => ctx.state.auth as AuthContext | undefined;

/** For handlers behind an authenticated route: the caller, or a 401 if a route was mounted without auth by mistake. */
export function requireAuth(ctx: Koa.Context): AuthContext {
  const auth = getAuth(ctx);
  if (!auth) throw unauthorized('missing API key: send "Authorization: Bearer <key>"');
  return auth;
}
