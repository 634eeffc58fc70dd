// Resolves the caller of an API request from its Authorization header into ctx.state.auth; a bad key is a 401 at once.
import type Koa from 'koa';
import type { AppDeps } from '../http/app-deps.js';
import { verifyApiKey } from './api-keys.service.js';
import { authRuntimeFor } from './auth-runtime.js';
import { presentedKey } from './credentials.js';
import { isApiPath } from './rate-limit-headers.js';

/**
 * No credentials (or a scheme we do not take) leaves ctx.state.auth unset; authorize() then answers 401 on routes
 * that need a key, while unknown routes still answer 404. Presented but invalid credentials are refused here.
 */
export function authenticate(deps: AppDeps): Koa.Middleware {
  const lastUsed = authRuntimeFor(deps).lastUsed;
  return async (ctx, next) => {
    if (!isApiPath(ctx.path)) return next();
    const key = presentedKey(ctx.get('Authorization') || undefined);
    if (key !== null) {
      const auth = await verifyApiKey(deps, key);
      ctx.state.auth = auth;
      await lastUsed.touch(auth.keyId, deps.clock.now());
    }
    await next();
  };
}
