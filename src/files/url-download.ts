// Opens an http(s) download for ingestion over node:http(s): each hop's host checked before and while its socket connects
// (url-guard), manual redirects (bounded), header/idle/total timeouts, size checked up front, and one clear error per failure.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Transform, pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { AppError, badRequest } from '../errors.js';
import { VERSION } from '../version.js';
import { formatBytes, type FileLimits } from './file-limits.js';
import { checkUrlHost, guardedLookup, type UrlAccess } from './url-guard.js';

const FIELD = 'file_url';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface Download {
  body: Readable;
  /** A file name for the record: Content-Disposition's, else the last path segment of the final URL. */
  name: string;
  /** The error to show for a failure while reading the body (timeouts and network errors get their reason). */
  explain(err: unknown): unknown;
  /** Stops the timers and the transfer; call when done either way. */
  close(): void;
}

export const tooLarge = (field: string, limit: number, size?: number): AppError =>
  new AppError(413, 'invalid_request', `${field}: the file is ${size === undefined ? 'larger than' : `${formatBytes(size)}, over`} the ${formatBytes(limit)} limit`);

function parseHttpUrl(text: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badRequest(`${FIELD}: ${what} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw badRequest(`${FIELD}: ${what} uses ${url.protocol.replace(/:$/, '')}; only http and https can be downloaded`);
  }
  if (url.username || url.password) throw badRequest(`${FIELD}: user names and passwords in the URL are not supported`);
  return url;
}

/** Why a connection failed, from a node:http error (or one that carries it as `cause`). */
export function describeNetworkError(err: unknown, url: URL): string {
  const cause = ((err as { cause?: unknown })?.cause ?? err) as { code?: string; message?: string };
  const host = url.host;
  switch (cause?.code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `the host name ${url.hostname} could not be resolved (DNS)`;
    case 'ECONNREFUSED':
      return `the connection to ${host} was refused (nothing listens there)`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${host} is unreachable from this server`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return `the connection to ${host} was closed before the file was complete`;
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return `connecting to ${host} timed out`;
    default:
      if (cause?.code && /CERT|SSL|TLS/.test(cause.code)) return `the TLS certificate of ${host} is not accepted (${cause.code})`;
      return `the download from ${host} failed: ${cause?.message ?? String(err)}`;
  }
}

function fileNameOf(res: http.IncomingMessage, url: URL): string {
  const cd = res.headers['content-disposition'] ?? '';
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(cd);
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(cd);
  const raw = star?.[1] ?? plain?.[1] ?? url.pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(raw.trim());
  } catch {
    return raw.trim();
  }
}

const HEADERS = { Accept: 'text/x-gcode, text/plain, */*', 'Accept-Encoding': 'gzip, deflate, br', 'User-Agent': `printfarm/${VERSION}` };

/** Sends one GET; resolves when the response headers are in. */
function get(url: URL, signal: AbortSignal, lookup: LookupFunction): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    // A socket of its own (agent: false): a pooled one could have been connected without this lookup's check.
    const req = (url.protocol === 'https:' ? https : http).request(url, { agent: false, signal, lookup, headers: HEADERS });
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

/** Decoders for a Content-Encoding list, outermost first; an unknown coding is passed on as it is (the file check then judges the bytes). */
function decodersFor(encoding: string | undefined): Transform[] {
  const codings = (encoding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter(Boolean).reverse();
  return codings.flatMap((c): Transform[] => {
    if (c === 'gzip' || c === 'x-gzip') return [zlib.createGunzip()];
    if (c === 'deflate') return [zlib.createInflate()];
    if (c === 'br') return [zlib.createBrotliDecompress()];
    return [];
  });
}

/**
 * Requests `text` and follows up to `maxRedirects` redirects (each checked to stay http/https). Every hop's host is
 * checked against `access` (forbidden address classes, the organization's file_url_hosts) before and while it
 * connects: 422 file_url_forbidden. Resolves once a 2xx answer's headers are in; the body is then read by the caller
 * within the idle and total time limits.
 */
export async function openDownload(text: string, limits: FileLimits, access: UrlAccess): Promise<Download> {
  let url = parseHttpUrl(text, 'the address');
  let refusalPrefix = `${FIELD}: `;
  const controller = new AbortController();
  let stopped: AppError | null = null;
  const stop = (err: AppError): void => {
    if (stopped) return;
    stopped = err;
    controller.abort(err);
  };
  const seconds = (ms: number): string => `${ms / 1000} s`;
  const total = setTimeout(
    () => stop(badRequest(`${FIELD}: the download took longer than ${seconds(limits.downloadTotalTimeoutMs)}`)),
    limits.downloadTotalTimeoutMs,
  );
  let idle: NodeJS.Timeout | undefined;
  const armIdle = (): void => {
    clearTimeout(idle);
    idle = setTimeout(
      () => stop(badRequest(`${FIELD}: no data from ${url.host} for ${seconds(limits.downloadIdleTimeoutMs)}`)),
      limits.downloadIdleTimeoutMs,
    );
  };
  const close = (): void => {
    clearTimeout(total);
    clearTimeout(idle);
    if (!controller.signal.aborted) controller.abort(new Error('download closed'));
  };
  const explain = (err: unknown): unknown => {
    if (stopped) return stopped;
    if (err instanceof AppError) return err;
    return badRequest(`${FIELD}: ${describeNetworkError(err, url)}`);
  };

  try {
    let res: http.IncomingMessage;
    for (let hops = 0; ; hops++) {
      checkUrlHost(url, access, refusalPrefix);
      const headers = setTimeout(
        () => stop(badRequest(`${FIELD}: ${url.host} did not answer within ${seconds(limits.downloadHeadersTimeoutMs)}`)),
        limits.downloadHeadersTimeoutMs,
      );
      try {
        res = await get(url, controller.signal, guardedLookup(access, refusalPrefix));
      } finally {
        clearTimeout(headers);
      }
      const status = res.statusCode ?? 0;
      if (!REDIRECTS.has(status)) break;
      res.destroy();
      const location = res.headers.location;
      if (!location) throw badRequest(`${FIELD}: ${url.host} answered ${status} without a Location to follow`);
      if (hops + 1 > limits.maxRedirects) {
        throw badRequest(`${FIELD}: more than ${limits.maxRedirects} redirects (a redirect loop?); last one to ${location}`);
      }
      url = parseHttpUrl(new URL(location, url).toString(), `the redirect to ${location}`);
      refusalPrefix = `${FIELD}: the redirect to ${url.href} is refused: `;
    }
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) {
      res.destroy();
      throw badRequest(`${FIELD}: the server answered ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''} for ${url.href}`);
    }
    const declared = Number(res.headers['content-length'] ?? NaN);
    // Only a plain body's length is the file's size; a compressed one is checked while it is read.
    if (!res.headers['content-encoding'] && Number.isFinite(declared) && declared > limits.maxFileBytes) {
      res.destroy();
      throw tooLarge(FIELD, limits.maxFileBytes, declared);
    }
    armIdle();
    const idleTap = new Transform({
      transform(chunk, _enc, done) {
        armIdle();
        done(null, chunk);
      },
    });
    const stages: [Readable, ...Transform[]] = [res, idleTap, ...decodersFor(res.headers['content-encoding'])];
    pipeline(stages, () => clearTimeout(idle));
    return { body: stages[stages.length - 1] as Readable, name: fileNameOf(res, url), explain, close };
  } catch (err) {
    close();
    throw explain(err);
  }
}
