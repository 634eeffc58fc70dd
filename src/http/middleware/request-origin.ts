// CSRF defence for cookie-authenticated requests: where a request says it came from (Sec-Fetch-Site, Origin) against the Host it was sent to.
import type Koa from 'koa';
import { AppError } from '../../errors.js';

/**
 * same-origin: proven by `Sec-Fetch-Site: same-origin` or an Origin whose host is the request's Host. other: a
 * browser said it came from elsewhere. unstated: neither header (curl and scripts send none).
 */
export type RequestOrigin = 'same-origin' | 'other' | 'unstated';

export const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The host (with port unless it is the scheme's default) of an Origin header; null for "null" or anything unparsable. */
function originHost(origin: string): { host: string; protocol: string } | null {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? { host: url.host, protocol: url.protocol } : null;
  } catch {
    return null;
  }
}

/** The request's Host as the same URL parser writes it, so `example.com:443` and `https://example.com` compare equal. */
function normalizedHost(host: string, protocol: string): string | null {
  try {
    return new URL(`${protocol}//${host}`).host;
  } catch {
    return null;
  }
}

/** `host` is the request's Host as Koa reads it (X-Forwarded-Host only when the app trusts its proxy). */
export function requestOrigin(headers: { secFetchSite: string; origin: string; host: string }): RequestOrigin {
  const site = headers.secFetchSite.trim().toLowerCase();
  if (site === 'same-origin') return 'same-origin';
  if (headers.origin) {
    const from = originHost(headers.origin);
    if (from && headers.host && normalizedHost(headers.host, from.protocol) === from.host) return 'same-origin';
    return 'other';
  }
  return site ? 'other' : 'unstated';
}

export const originOf = (ctx: Koa.Context): RequestOrigin =>
  requestOrigin({ secFetchSite: ctx.get('Sec-Fetch-Site'), origin: ctx.get('Origin'), host: ctx.host });

const csrfRejected = (message: string, details: string): AppError => new AppError(403, 'csrf_rejected', message, details);

/** A cookie-authenticated POST, PUT, PATCH or DELETE must prove it comes from this origin: the cookie alone proves nothing. */
export function checkCookieRequestOrigin(ctx: Koa.Context): void {
  if (!UNSAFE_METHODS.has(ctx.method)) return;
  const origin = originOf(ctx);
  if (origin === 'same-origin') return;
  throw csrfRejected(
    origin === 'other'
      ? `refused: this ${ctx.method} request comes from another site (Origin or Sec-Fetch-Site), not from this server's pages`
      : `refused: this ${ctx.method} request uses the session cookie but sends neither Origin nor Sec-Fetch-Site: same-origin`,
    'a request that uses the session cookie to change something must come from the dashboard itself (same origin); ' +
      'scripts should send an API key in the Authorization header instead',
  );
}

/** Signing in: a browser page of another site must not sign this browser in (login CSRF); clients without browser headers may. */
export function checkSignInOrigin(ctx: Koa.Context): void {
  if (originOf(ctx) !== 'other') return;
  throw csrfRejected(
    "refused: sign-in from another site's page (its Origin or Sec-Fetch-Site says so)",
    "sign in from this server's own pages; clients that are not browsers may leave out Origin and Sec-Fetch-Site",
  );
}
