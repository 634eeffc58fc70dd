// The three X-RateLimit-* headers and the 429 error, shared by the per-key and per-address limits.
import type Koa from 'koa';
import { AppError } from '../../errors.js';

export function setRateLimitHeaders(ctx: Koa.Context, limit: number, used: number, resetAtMs: number): void {
  ctx.set('X-RateLimit-Limit', String(limit));
  ctx.set('X-RateLimit-Remaining', String(Math.max(0, limit - used)));
  ctx.set('X-RateLimit-Reset', String(Math.ceil(resetAtMs / 1000)));
}

export function rateLimitExceeded(what: string, resetAtMs: number, nowMs: number): AppError {
  const seconds = Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000));
  return new AppError(429, 'rate_limit_exceeded', `${what}; retry after ${seconds} seconds`, '', { 'Retry-After': String(seconds) });
}

/** Authentication and rate limits apply to the API only, not to /healthz or the dashboard's static files. */
export const isApiPath = (path: string): boolean => path === '/v1' || path.startsWith('/v1/');

/**
 * The host APIs slicers upload through (OctoPrint's and PrusaLink's /api/…, Moonraker's /server/… and /printer/…):
 * their callers are identified like the API's, but outside the hourly budget (Cura polls /api/printer every few
 * seconds while connected) and with HTTP Digest beside keys.
 */
const HOST_API_PREFIXES = ['/api/', '/server/', '/printer/', '/machine/', '/access/'];
export const isHostApiPath = (path: string): boolean => HOST_API_PREFIXES.some((p) => path.startsWith(p));

/**
 * Paths whose callers are identified (and whose failed keys count against the address): the API, the slicers' host
 * APIs and the Prometheus endpoint. /metrics is outside the hourly request budget: a scraper asks every 15 s, more
 * than a free plan's 100 an hour.
 */
export const isAuthenticatedPath = (path: string): boolean => isApiPath(path) || isHostApiPath(path) || path === '/metrics';
