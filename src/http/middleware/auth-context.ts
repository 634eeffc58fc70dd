// Who is calling: what the authenticate middleware puts on ctx.state.auth for authorize, handlers and idempotency.
import type Koa from 'koa';
import type { RunEnvironment } from '../../config.js';
import { unauthorized, type AppError } from '../../errors.js';
import { missingCredentials } from './credentials.js';

export interface AuthContext {
  /**
   * What the caller is counted and keyed by (rate-limit window, idempotency keys): the API key's id, or for a browser
   * session the session's id, so a session has its own budget and its own idempotency keys.
   */
  callerId: string;
  /** The API key behind the request: the one in the Authorization header, or the one a session was signed in with; null for a password sign-in. */
  keyId: string | null;
  /** The key's name; for a password sign-in the user's email address. */
  keyName: string;
  /** The browser session whose cookie authenticated the request; null for a key in the Authorization header. */
  sessionId: string | null;
  scopes: readonly string[];
  env: RunEnvironment;
  /** The user the caller acts for (the owner for bootstrap and CLI keys; the signed-in user of a password session). */
  userId: string | null;
}

/** The caller of an authenticated request, or undefined when the request carried no valid key. */
export const getAuth = (ctx: Koa.Context): AuthContext | undefined => ctx.state.auth as AuthContext | undefined;

/**
 * Why a session cookie the request carried was not accepted. Kept instead of thrown at once: a browser keeps sending a
 * stale cookie to public routes too (the sign-in itself), and those must still work; a route that needs a caller answers with it.
 */
export const setSessionRefusal = (ctx: Koa.Context, err: AppError): void => {
  ctx.state.sessionRefusal = err;
};

/** The 401 for a request that needs a caller and has none: a refused session cookie says why, else the header is explained. */
export function noCallerError(ctx: Koa.Context): AppError {
  const refusal = ctx.state.sessionRefusal as AppError | undefined;
  return refusal ?? missingCredentials(ctx.get('Authorization'), ctx.headers['x-api-key'] as string | undefined);
}

/** For handlers behind an authenticated route: the caller, or a 401 if a route was mounted without auth by mistake. */
export function requireAuth(ctx: Koa.Context): AuthContext {
  const auth = getAuth(ctx);
  if (!auth) throw unauthorized('missing API key: send "Authorization: Bearer <key>"');
  return auth;
}
