// Requests per API key per fixed clock hour, by the organization's plan; headers on every keyed response, 429 past it.
import type Koa from 'koa';
import type { AppDeps } from '../http/app-deps.js';
import { getAuth } from './auth-context.js';
import { authRuntimeFor } from './auth-runtime.js';
import { findOrganization } from './organization.repository.js';
import { keyHourlyLimit } from './organization.service.js';
import { isApiPath, rateLimitExceeded, setRateLimitHeaders } from './rate-limit-headers.js';
import { ADMIN_SCOPE } from './scopes.js';

/** Runs after authenticate. The plan is read on every request, so a plan change takes effect at once. */
export function rateLimit(deps: AppDeps): Koa.Middleware {
  const windows = authRuntimeFor(deps).keyWindows;
  return async (ctx, next) => {
    const auth = getAuth(ctx);
    if (!auth || !isApiPath(ctx.path)) return next();
    const now = deps.clock.now();
    const isAdmin = auth.scopes.includes(ADMIN_SCOPE);
    const { limit, enforce } = keyHourlyLimit(await findOrganization(deps.db), isAdmin, ctx);
    const w = windows.hit(auth.keyId, now);
    setRateLimitHeaders(ctx, limit, w.count, w.resetAt);
    if (enforce && w.count > limit) throw rateLimitExceeded(`rate limit of ${limit} requests per hour exceeded`, w.resetAt, now);
    await next();
  };
}
