// Resolves the caller of an API request from its Authorization header into ctx.state.auth; a bad key is a 401 at once.
import type Koa from 'koa';
import type { AppDeps } from '../app-deps.js';
import { presentedKey } from './credentials.js';
import { isApiPath } from './rate-limit-headers.js';

/**
 * No usable credentials leaves ctx.state.auth unset; authorize() (or the unmatched-route middleware) then answers 401
 * saying what was wrong with the header. Presented but invalid keys are refused here.
 */
export function authenticate(deps: AppDeps): Koa.Middleware {
  return async (ctx, next) => {
    if (!isApiPath(ctx.path)) return next();
    const key = presentedKey(ctx.get('Authorization') || undefined);
    if (key !== null) {
      const auth = await deps.auth.verifyKey(key);
      ctx.state.auth = auth;
      await deps.auth.recordUse(auth.keyId, deps.clock.now());
    }
    await next();
  };
}
