// Opens an http(s) download for ingestion: manual redirects (bounded), header/idle/total timeouts, size checked up front, and one clear 400 per failure.
import { Readable, Transform, pipeline } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import { AppError, badRequest } from '../errors.js';
import { formatBytes, type FileLimits } from './file-limits.js';

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

/** Why a connection failed, from the error undici's fetch gives as `cause`. */
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

function fileNameOf(res: Response, url: URL): string {
  const cd = res.headers.get('content-disposition') ?? '';
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(cd);
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(cd);
  const raw = star?.[1] ?? plain?.[1] ?? url.pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(raw.trim());
  } catch {
    return raw.trim();
  }
}

/**
 * Requests `text` and follows up to `maxRedirects` redirects (each checked to stay http/https). Resolves once a 2xx
 * answer's headers are in; the body is then read by the caller within the idle and total time limits.
 */
export async function openDownload(text: string, limits: FileLimits): Promise<Download> {
  let url = parseHttpUrl(text, 'the address');
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
    let res: Response;
    for (let hops = 0; ; hops++) {
      const headers = setTimeout(
        () => stop(badRequest(`${FIELD}: ${url.host} did not answer within ${seconds(limits.downloadHeadersTimeoutMs)}`)),
        limits.downloadHeadersTimeoutMs,
      );
      try {
        res = await fetch(url, { redirect: 'manual', signal: controller.signal, headers: { Accept: 'text/x-gcode, text/plain, */*' } });
      } finally {
        clearTimeout(headers);
      }
      if (!REDIRECTS.has(res.status)) break;
      await res.body?.cancel().catch(() => undefined);
      const location = res.headers.get('location');
      if (!location) throw badRequest(`${FIELD}: ${url.host} answered ${res.status} without a Location to follow`);
      if (hops + 1 > limits.maxRedirects) {
        throw badRequest(`${FIELD}: more than ${limits.maxRedirects} redirects (a redirect loop?); last one to ${location}`);
      }
      url = parseHttpUrl(new URL(location, url).toString(), `the redirect to ${location}`);
    }
    if (res.status < 200 || res.status > 299) {
      await res.body?.cancel().catch(() => undefined);
      throw badRequest(`${FIELD}: the server answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''} for ${url.href}`);
    }
    const declared = Number(res.headers.get('content-length') ?? NaN);
    // Only a plain body's length is the file's size; a compressed one is checked while it is read.
    if (!res.headers.get('content-encoding') && Number.isFinite(declared) && declared > limits.maxFileBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw tooLarge(FIELD, limits.maxFileBytes, declared);
    }
    const source = res.body ? Readable.fromWeb(res.body as unknown as NodeWebReadableStream<Uint8Array>) : Readable.from([]);
    armIdle();
    const idleTap = new Transform({
      transform(chunk, _enc, done) {
        armIdle();
        done(null, chunk);
      },
    });
    pipeline(source, idleTap, () => clearTimeout(idle));
    return { body: idleTap, name: fileNameOf(res, url), explain, close };
  } catch (err) {
    close();
    throw explain(err);
  }
}
