// Limits failed authentications per client address (against key guessing) and gives keyless responses rate headers.
import type Koa from 'koa';
import { AppError } from '../../errors.js';
import type { HttpDeps } from '../http-deps.js';
import { getAuth } from './auth-context.js';
import { readCredentials } from './credentials.js';
import { FixedWindowCounter } from './fixed-window.js';
import { isAuthenticatedPath, rateLimitExceeded, setRateLimitHeaders } from './rate-limit-headers.js';
import { readSessionCookie } from './session-cookie.js';

/** Failed authentications one client address may make per window before it is refused outright. */
export const FAILED_AUTH_LIMIT = 20;
export const FAILED_AUTH_WINDOW_MS = 15 * 60 * 1000;

/**
 * Requests whose body carries a secret to check (a password, an invitation token): the lockout applies to them
 * whatever else they present, or a holder of any valid key or session could guess another user's password.
 */
const SECRET_CHECKING_REQUESTS = new Set(['POST /v1/sessions', 'POST /v1/users/accept-invite']);

/**
 * Outermost of the auth middlewares. Once an address has used up its failed attempts, its keyless and wrong-key
 * requests get 429 until the window ends, and a wrong key is not even told apart from a missing one. A VALID key (or
 * a valid session cookie) still works from that address: on a farm PC one stale script must not lock the owner's
 * dashboard out, and with 190 random bits per key a guesser gains nothing from being able to recognise a hit.
 * Signing in and accepting an invitation are refused from a locked-out address whatever the request also presents,
 * which is what stops password guessing.
 */
export function failedAuthGuard(deps: HttpDeps): Koa.Middleware {
  // One counter per app instance, made here: nothing else reads it.
  const counter = new FixedWindowCounter(FAILED_AUTH_WINDOW_MS);
  return async (ctx, next) => {
    if (!isAuthenticatedPath(ctx.path)) return next();
    const address = ctx.ip || 'unknown';
    const now = deps.clock.now();
    const before = counter.peek(address, now);
    const checksSecret = SECRET_CHECKING_REQUESTS.has(`${ctx.method} ${ctx.path.replace(/\/+$/, '')}`);
    if (before.count >= FAILED_AUTH_LIMIT && (checksSecret || !(await presentsValidCredential(deps, ctx)))) {
      setRateLimitHeaders(ctx, FAILED_AUTH_LIMIT, before.count, before.resetAt);
      throw rateLimitExceeded(`too many failed authentications from ${address}`, before.resetAt, now);
    }
    const keylessHeaders = (): void => {
      // A request with a valid key already carries its key's headers; the rest show the address budget.
      if (getAuth(ctx) || ctx.response.get('X-RateLimit-Limit')) return;
      const s = counter.peek(address, now);
      setRateLimitHeaders(ctx, FAILED_AUTH_LIMIT, s.count, s.resetAt);
    };
    try {
      await next();
    } catch (err) {
      if (err instanceof AppError && (err.failedAuthentication ?? err.status === 401)) {
        const s = counter.hit(address, now);
        setRateLimitHeaders(ctx, FAILED_AUTH_LIMIT, s.count, s.resetAt);
      } else {
        keylessHeaders();
      }
      throw err;
    }
    keylessHeaders();
  };
}

/** The same choice authenticate makes: the Authorization header's key, else (no header at all) the session cookie. */
async function presentsValidCredential(deps: HttpDeps, ctx: Koa.Context): Promise<boolean> {
  // Digest counts as not valid here: checking it needs the nonce authenticate makes, and a lockout for Digest clients
  // only ends with the window, as for any client without a key.
  const credentials = readCredentials(ctx.get('Authorization') || undefined, ctx.headers['x-api-key'] as string | undefined);
  const token = credentials.kind === 'none' ? readSessionCookie(ctx.get('Cookie') || undefined) : null;
  try {
    if (credentials.kind === 'key') await deps.auth.verifyKey(credentials.key);
    else if (token !== null) await deps.auth.verifySession(token);
    else return false;
    return true;
  } catch {
    return false;
  }
}
