// Serves the dashboard (web/) at / from the source tree or the binary's embedded assets; never shadows /v1 or /healthz.
import path from 'node:path';
import type Koa from 'koa';
import { readAsset } from '../assets.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

export function staticWeb(): Koa.Middleware {
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path.startsWith('/v1') || ctx.path === '/healthz') {
      return next();
    }
    const rel = ctx.path === '/' ? 'index.html' : ctx.path.slice(1);
    if (rel.split('/').some((part) => part === '..' || part.startsWith('.'))) return next();
    const bytes = readAsset(`web/${rel}`);
    if (!bytes) return next();
    ctx.type = TYPES[path.extname(rel)] ?? 'application/octet-stream';
    ctx.set('Cache-Control', rel === 'index.html' ? 'no-cache' : 'public, max-age=300');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = bytes;
  };
}
