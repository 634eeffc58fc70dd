// Resolves the caller of an API request into ctx.state.auth: the key in the Authorization header, else the session cookie.
import type Koa from 'koa';
import { AppError } from '../../errors.js';
import type { HttpDeps } from '../http-deps.js';
import { setSessionRefusal } from './auth-context.js';
import { readCredentials } from './credentials.js';
import { isAuthenticatedPath } from './rate-limit-headers.js';
import { checkCookieRequestOrigin } from './request-origin.js';
import { clearedSessionCookie, readSessionCookie } from './session-cookie.js';

/**
 * No usable credentials leaves ctx.state.auth unset; authorize() (or the unmatched-route middleware) then answers 401
 * saying what was wrong with the header. Presented but invalid keys are refused here. The session cookie is used only
 * when there is no Authorization header at all: a header is an explicit choice and wins.
 */
export function authenticate(deps: HttpDeps): Koa.Middleware {
  return async (ctx, next) => {
    if (!isAuthenticatedPath(ctx.path)) return next();
    const credentials = readCredentials(ctx.get('Authorization') || undefined);
    if (credentials.kind === 'key') {
      const auth = await deps.auth.verifyKey(credentials.key);
      ctx.state.auth = auth;
      if (auth.keyId !== null) await deps.auth.recordUse(auth.keyId, deps.clock.now());
    } else if (credentials.kind === 'none') {
      const token = readSessionCookie(ctx.get('Cookie') || undefined);
      if (token !== null) await useSession(ctx, deps, token);
    }
    await next();
  };
}

async function useSession(ctx: Koa.Context, deps: HttpDeps, token: string): Promise<void> {
  let auth;
  try {
    auth = await deps.auth.verifySession(token);
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 401) throw err;
    // The browser drops the dead cookie; routes that need a caller answer with the reason (public ones just work).
    ctx.set('Set-Cookie', clearedSessionCookie(ctx.secure));
    setSessionRefusal(ctx, err);
    return;
  }
  // Before anything runs as this caller: the cookie rides along on requests other pages trigger, the Origin does not lie.
  checkCookieRequestOrigin(ctx);
  ctx.state.auth = auth;
  const now = deps.clock.now();
  if (auth.sessionId !== null) await deps.auth.recordSessionUse(auth.sessionId, now);
  if (auth.keyId !== null) await deps.auth.recordUse(auth.keyId, now);
}
