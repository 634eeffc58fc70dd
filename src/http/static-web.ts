// Serves the built dashboard (web/dist) at /: the page uncached, hashed assets cached forever, .br/.gz chosen by Accept-Encoding.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type Koa from 'koa';
import { isSingleBinary, readAsset } from '../assets.js';
import { WEB_ASSETS_DIR, WEB_BUILD_HINT, WEB_DIST, WEB_DOCS_PAGE } from '../web/web-dist.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

/**
 * The page may load only its own files and talk only to this server; inline style attributes are allowed because
 * Preact writes style objects (progress bars, swatch colours) and htm templates may use style strings.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

/** The API reference page: the same, plus the Web Worker its renderer starts from a blob: URL for the search index. */
export const DOCS_CONTENT_SECURITY_POLICY = `${CONTENT_SECURITY_POLICY}; worker-src 'self' blob:`;

const IMMUTABLE = 'public, max-age=31536000, immutable';

type Encoding = 'br' | 'gzip' | 'identity';

/** The best stored encoding the client accepts: brotli, then gzip, else the plain bytes (q=0 refuses one). */
export function pickEncoding(acceptEncoding: string | undefined): Encoding {
  const q = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const accepts = (name: string) => (q.get(name) ?? q.get('*') ?? 0) > 0;
  if (accepts('br')) return 'br';
  if (accepts('gzip')) return 'gzip';
  return 'identity';
}

/** Which file of web/dist a request path names, or null when the dashboard does not serve it. */
function distFile(urlPath: string): string | null {
  if (urlPath === '/' || urlPath === '/index.html') return 'index.html';
  if (urlPath === '/favicon.ico') return 'favicon.ico';
  if (urlPath === '/docs' || urlPath === '/docs/') return WEB_DOCS_PAGE;
  const rel = urlPath.slice(1);
  const parts = rel.split('/');
  // Only the hashed files, never a dot file, a path outside the folder, or a stored .br/.gz asked for by name.
  if (parts.length !== 2 || parts[0] !== WEB_ASSETS_DIR) return null;
  if (parts[1]!.startsWith('.') || /\.(br|gz)$/.test(parts[1]!)) return null;
  return rel;
}

function notBuiltPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>printfarm</title></head><body><p>${WEB_BUILD_HINT.replace(/`([^`]+)`/g, '<code>$1</code>')}</p></body></html>\n`;
}

/** `dist`: the built dashboard's folder relative to the repository root (a test points it at a missing one). */
export function staticWeb(dist: string = WEB_DIST): Koa.Middleware {
  // Hashed files never change under their name, so their bytes are read once; inside the binary nothing changes at all.
  const cache = new Map<string, Buffer>();
  const cacheAll = isSingleBinary();
  const read = (rel: string, cacheable: boolean): Buffer | undefined => {
    const hit = cache.get(rel);
    if (hit) return hit;
    const bytes = readAsset(`${dist}/${rel}`);
    if (bytes && (cacheable || cacheAll)) cache.set(rel, bytes);
    return bytes;
  };

  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path.startsWith('/v1') || ctx.path === '/healthz') return next();
    const rel = distFile(ctx.path);
    if (!rel) return next();
    const isPage = rel === 'index.html' || rel === WEB_DOCS_PAGE;
    const hashed = rel.startsWith(`${WEB_ASSETS_DIR}/`);

    let plain = read(rel, hashed);
    // The favicon also works before the first build (it is a source file, not a build output).
    if (!plain && rel === 'favicon.ico') plain = readAsset('web/favicon.ico');
    if (!plain) {
      if (!isPage || isSingleBinary()) return next();
      ctx.status = 503;
      ctx.type = TYPES['.html']!;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = notBuiltPage();
      return;
    }

    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('Content-Security-Policy', rel === WEB_DOCS_PAGE ? DOCS_CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY);
    ctx.set('Cache-Control', hashed ? IMMUTABLE : 'no-cache');
    ctx.set('Vary', 'Accept-Encoding');
    ctx.type = TYPES[path.extname(rel)] ?? 'application/octet-stream';

    const wanted = pickEncoding(ctx.get('Accept-Encoding'));
    const suffix = wanted === 'br' ? '.br' : wanted === 'gzip' ? '.gz' : '';
    const encoded = suffix ? read(`${rel}${suffix}`, hashed) : undefined;
    const body = encoded ?? plain;
    if (encoded) ctx.set('Content-Encoding', wanted);

    // The page is revalidated on every load (no-cache); an ETag makes that a 304 instead of the whole page.
    if (!hashed) {
      const etag = `"${createHash('sha1').update(body).digest('base64url').slice(0, 22)}${encoded ? `-${wanted}` : ''}"`;
      ctx.set('ETag', etag);
      if (ctx.get('If-None-Match').split(/\s*,\s*/).includes(etag)) {
        ctx.status = 304;
        return;
      }
    }
    ctx.body = body;
  };
}
