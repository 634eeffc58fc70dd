// Requests per API key (or browser session) per fixed clock hour, by the limit the access control gives; headers on every keyed response, 429 past it.
import type Koa from 'koa';
import type { HttpDeps } from '../http-deps.js';
import { getAuth } from './auth-context.js';
import { FixedWindowCounter } from './fixed-window.js';
import { isApiPath, rateLimitExceeded, setRateLimitHeaders } from './rate-limit-headers.js';

export const KEY_WINDOW_MS = 60 * 60 * 1000;

/** Runs after authenticate. The windows live as long as this app: one counter per createApp. */
export function rateLimit(deps: HttpDeps): Koa.Middleware {
  const windows = new FixedWindowCounter(KEY_WINDOW_MS);
  return async (ctx, next) => {
    const auth = getAuth(ctx);
    if (!auth || !isApiPath(ctx.path)) return next();
    const now = deps.clock.now();
    const { limit, enforce } = await deps.auth.hourlyLimit(auth, ctx);
    // A session made from a key counts with the key, a password session with its user: signing in again is no new budget.
    const w = windows.hit(deps.auth.rateLimitBucket(auth), now);
    setRateLimitHeaders(ctx, limit, w.count, w.resetAt);
    if (enforce && w.count > limit) throw rateLimitExceeded(`rate limit of ${limit} requests per hour exceeded`, w.resetAt, now);
    await next();
  };
}
