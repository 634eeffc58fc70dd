// Limits failed authentications per client address (against key guessing) and gives keyless responses rate headers.
import type Koa from 'koa';
import { AppError } from '../errors.js';
import type { AppDeps } from '../http/app-deps.js';
import { getAuth } from './auth-context.js';
import { authRuntimeFor, FAILED_AUTH_LIMIT } from './auth-runtime.js';
import { isApiPath, rateLimitExceeded, setRateLimitHeaders } from './rate-limit-headers.js';

/**
 * Outermost of the auth middlewares. Once an address has used up its failed attempts, every API request from it is
 * refused with 429 until the window ends, without looking at its key: otherwise a guesser could keep testing keys and
 * simply ignore the 429s of the wrong ones.
 */
export function failedAuthGuard(deps: AppDeps): Koa.Middleware {
  const counter = authRuntimeFor(deps).failedAuth;
  return async (ctx, next) => {
    if (!isApiPath(ctx.path)) return next();
    const address = ctx.ip || 'unknown';
    const now = deps.clock.now();
    const before = counter.peek(address, now);
    if (before.count >= FAILED_AUTH_LIMIT) {
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
      if (err instanceof AppError && err.status === 401) {
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
