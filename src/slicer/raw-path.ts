// The folders of a host-API path read from the raw URL, one percent-decoded segment at a time: the router decodes
// %2F into a slash, which would turn a file name's own slash into a folder.
import { badRequest } from '../errors.js';

/** The decoded segments of `rawPath` after `prefix` (which ends with '/'); empty segments dropped. */
export function segmentsAfter(rawPath: string, prefix: string): string[] {
  if (!rawPath.startsWith(prefix)) return [];
  return rawPath
    .slice(prefix.length)
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        throw badRequest(`the path segment "${s.slice(0, 60)}" is not valid percent-encoded UTF-8`);
      }
    });
}

/** Segments joined back into a URL path, each percent-encoded. */
export const encodeSegments = (segments: readonly string[]): string => segments.map((s) => encodeURIComponent(s)).join('/');

/** This server's address as the client reached it (Koa's ctx.origin is the Origin request header, not this). */
export const requestOrigin = (ctx: { protocol: string; host: string }): string => `${ctx.protocol}://${ctx.host || '127.0.0.1'}`;
