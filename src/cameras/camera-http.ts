// Opens a camera URL over node:http(s): every hop's address checked as for file_url (also while connecting), redirects
// followed by hand (bounded), credentials sent as Basic, and each failure turned into a CameraFault in words.
import http from 'node:http';
import https from 'node:https';
import { AppError } from '../errors.js';
import { describeNetworkError } from '../files/url-download.js';
import { checkUrlHost, guardedLookup, type HostResolver } from '../files/url-guard.js';
import { VERSION } from '../version.js';
import { CameraFault } from './camera-fault.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface CameraHttpOptions {
  resolve: HostResolver;
  /** How long the camera may take to send its response headers. */
  headersTimeoutMs: number;
  maxRedirects: number;
}

export interface CameraResponse {
  res: http.IncomingMessage;
  /** The final URL, after redirects (for messages). */
  url: URL;
  /** Stops the transfer. */
  close(): void;
}

function request(url: URL, credentials: string | null, options: CameraHttpOptions, signal: AbortSignal): Promise<http.IncomingMessage> {
  const headers: Record<string, string> = { 'User-Agent': `printfarm/${VERSION}`, Accept: 'multipart/x-mixed-replace, image/jpeg, */*' };
  if (credentials !== null) headers.Authorization = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
  return new Promise((resolve, reject) => {
    // A socket of its own (agent: false): a pooled one could have been connected without this lookup's check.
    const req = (url.protocol === 'https:' ? https : http).request(url, {
      agent: false,
      signal,
      headers,
      lookup: guardedLookup({ resolve: options.resolve, allowedHosts: [] }, 'camera: '),
    });
    const timer = setTimeout(() => req.destroy(new CameraFault('timeout', `${url.host} did not answer within ${options.headersTimeoutMs / 1000} s`)), options.headersTimeoutMs);
    req.on('response', (res) => {
      clearTimeout(timer);
      resolve(res);
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end();
  });
}

const faultOf = (err: unknown, url: URL): CameraFault => {
  if (err instanceof CameraFault) return err;
  if (err instanceof AppError) return new CameraFault('forbidden', err.message);
  const cause = (err as { cause?: unknown })?.cause;
  if (cause instanceof AppError) return new CameraFault('forbidden', cause.message);
  return new CameraFault('unreachable', describeNetworkError(err, url));
};

/**
 * GETs `text` and resolves with the 2xx answer's headers in; 401/403 and other statuses are faults. The credentials go
 * only to the first host: a redirect elsewhere does not carry them.
 */
export async function openCameraUrl(text: string, credentials: string | null, options: CameraHttpOptions, signal?: AbortSignal): Promise<CameraResponse> {
  let url = new URL(text);
  const firstHost = url.host;
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const close = (): void => {
    signal?.removeEventListener('abort', onAbort);
    controller.abort();
  };
  try {
    for (let hops = 0; ; hops++) {
      try {
        checkUrlHost(url, { resolve: options.resolve, allowedHosts: [] }, hops === 0 ? 'camera: ' : `camera: the redirect to ${url.href} is refused: `);
      } catch (err) {
        throw faultOf(err, url);
      }
      let res: http.IncomingMessage;
      try {
        res = await request(url, url.host === firstHost ? credentials : null, options, controller.signal);
      } catch (err) {
        throw faultOf(err, url);
      }
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status) && res.headers.location) {
        res.destroy();
        if (hops + 1 > options.maxRedirects) throw new CameraFault('http_error', `more than ${options.maxRedirects} redirects from ${url.host}`);
        const next = new URL(res.headers.location, url);
        if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new CameraFault('http_error', `a redirect to ${next.protocol} (only http and https)`);
        url = next;
        continue;
      }
      if (status === 401 || status === 403) {
        res.destroy();
        throw new CameraFault('unauthorized', `${url.host} answered ${status}: ${credentials ? 'the user name or password in the URL is not accepted' : 'it needs a user name and password in the URL'}`);
      }
      if (status < 200 || status > 299) {
        res.destroy();
        throw new CameraFault('http_error', `${url.host} answered ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`);
      }
      return { res, url, close };
    }
  } catch (err) {
    close();
    throw err;
  }
}

/** The media type of an answer, lower case without parameters. */
export const mediaType = (res: http.IncomingMessage): string => (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();

/** A fault for an answer that is not a picture, naming what it was. */
export const notACamera = (type: string, host: string): CameraFault =>
  new CameraFault('not_a_camera', `${host} answered ${type || 'without a Content-Type'}${type === 'text/html' ? ' (a web page)' : ''}, not a camera picture or stream`);
