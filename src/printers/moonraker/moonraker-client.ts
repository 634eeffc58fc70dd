// Moonraker's HTTP API for one printer: the api key header, a deadline on every request, retries for reads, the
// `result` wrapper unpacked, and every failure turned into a MoonrakerError that says why the printer is unusable.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import { request as requestHttps, type Agent as HttpsAgent } from 'node:https';
import { randomBytes } from 'node:crypto';
import type { OfflineReason } from '../printer-state.js';
import { isTlsFailure, printerHttpsAgent } from '../pinned-tls.js';
import type { MoonrakerAddress } from './moonraker-url.js';

/** A failed request. `reason` is the offline reason it proves, null when Moonraker answered with an error of its own. */
export class MoonrakerError extends Error {
  constructor(
    message: string,
    readonly reason: OfflineReason | null,
    /** HTTP status when there was an answer. */
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export interface MoonrakerClientOptions {
  address: MoonrakerAddress;
  /** Sent as X-Api-Key; null for a Moonraker that trusts this host. */
  apiKey: string | null;
  /** Deadline of one request (default 10 s); for an upload, the longest silence. */
  timeoutMs?: number;
  /** Extra attempts of a read that failed for want of an answer (default 2). */
  retries?: number;
  retryDelayMs?: number;
}

/** Larger answers are not Moonraker's JSON: refused rather than held in memory. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export class MoonrakerClient {
  private readonly agent: HttpsAgent | http.Agent;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;

  constructor(private readonly opts: MoonrakerClientOptions) {
    this.agent = opts.address.secure ? printerHttpsAgent(opts.address.fingerprint, { keepAlive: false }) : new http.Agent({ keepAlive: false });
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.retries = opts.retries ?? 2;
    this.retryDelayMs = opts.retryDelayMs ?? 300;
  }

  /** The agent the websocket must use too, so it passes the same certificate check. */
  get httpAgent(): http.Agent {
    return this.agent;
  }

  /** A GET, retried when nothing (or a 5xx) answered: reads are safe to repeat. */
  async get<T>(path: string): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.request<T>('GET', path, null);
      } catch (err) {
        const again = err instanceof MoonrakerError && (err.reason === 'unreachable' || (err.status !== null && err.status >= 500));
        if (!again || attempt >= this.retries) throw err;
        await new Promise((r) => setTimeout(r, this.retryDelayMs * (attempt + 1)));
      }
    }
  }

  /** A POST with a JSON body; never repeated (a print started twice is worse than an error). */
  post<T>(path: string, body: Record<string, unknown> | null = null): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  /** A token for the websocket's query string: the api key itself never goes into a URL. */
  oneshotToken(): Promise<string> {
    return this.get<string>('/access/oneshot_token');
  }

  /** Uploads a file to the `gcodes` root under `remoteName` (multipart/form-data, streamed from disk). */
  async upload(filePath: string, remoteName: string): Promise<{ path: string; size: number }> {
    const size = (await stat(filePath)).size;
    const boundary = `----printfarm${randomBytes(12).toString('hex')}`;
    const safeName = remoteName.replace(/["\r\n\\]/g, '_');
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="root"\r\n\r\ngcodes\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const res = await this.request<UploadAnswer>('POST', '/server/files/upload', {
      contentType: `multipart/form-data; boundary=${boundary}`,
      length: head.length + size + tail.length,
      write: async (req) => {
        req.write(head);
        for await (const chunk of createReadStream(filePath)) {
          if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
        }
        req.end(tail);
      },
    }, true, 'bare');
    return { path: res.item?.path ?? remoteName, size: res.item?.size ?? size };
  }

  private request<T>(
    method: 'GET' | 'POST',
    path: string,
    body: Record<string, unknown> | null | StreamBody,
    idleTimeout = false,
    shape: AnswerShape = 'wrapped',
  ): Promise<T> {
    const url = new URL(path, this.opts.address.httpBase);
    const headers: Record<string, string | number> = { Accept: 'application/json' };
    if (this.opts.apiKey !== null) headers['X-Api-Key'] = this.opts.apiKey;
    let json: Buffer | null = null;
    if (body && isStreamBody(body)) {
      headers['Content-Type'] = body.contentType;
      headers['Content-Length'] = body.length;
    } else if (body) {
      json = Buffer.from(JSON.stringify(body));
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = json.length;
    } else if (method === 'POST') headers['Content-Length'] = 0;
    const where = `${method} ${url.pathname}`;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = (err: MoonrakerError | null, value?: T): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) {
          req.destroy();
          reject(err);
        } else resolve(value as T);
      };
      const send = url.protocol === 'https:' ? requestHttps : http.request;
      const req = send(url, { method, headers, agent: this.agent });
      const expire = (): void => finish(new MoonrakerError(`${where}: no answer within ${this.timeoutMs} ms`, 'unreachable'));
      const timer = setTimeout(expire, this.timeoutMs);
      if (idleTimeout) {
        // An upload of a large file takes as long as it takes: only silence counts.
        req.on('socket', (s) => s.on('data', () => timer.refresh()).on('drain', () => timer.refresh()));
      }
      req.on('error', (err) => finish(transportError(where, err)));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY_BYTES) finish(new MoonrakerError(`${where}: the answer is larger than ${MAX_BODY_BYTES} bytes`, 'unreachable', res.statusCode ?? null));
          else chunks.push(c);
        });
        res.on('error', (err) => finish(transportError(where, err)));
        res.on('end', () => {
          try {
            finish(null, unwrap<T>(where, res.statusCode ?? 0, String(res.headers['content-type'] ?? ''), Buffer.concat(chunks), shape));
          } catch (err) {
            finish(err as MoonrakerError);
          }
        });
      });
      if (body && isStreamBody(body)) {
        body.write(req).catch((err: Error) => finish(new MoonrakerError(`${where}: reading the file failed: ${err.message}`, null)));
        if (idleTimeout) timer.refresh();
      } else req.end(json ?? undefined);
    });
  }
}

interface StreamBody {
  contentType: string;
  length: number;
  write(req: http.ClientRequest): Promise<void>;
}
const isStreamBody = (b: object): b is StreamBody => typeof (b as StreamBody).write === 'function' && 'contentType' in b;

/** What a successful upload answers (Moonraker's file_manager.md, "File upload"). */
interface UploadAnswer {
  item?: { path?: string; size?: number };
  print_started?: boolean;
}

/**
 * How a 2xx answer carries its value: most endpoints wrap it in `result`; a few (the file upload) are registered with
 * `wrap_result=False` and answer the bare object.
 */
export type AnswerShape = 'wrapped' | 'bare';

/** The value of a 2xx JSON answer (its `result`, or the whole object for a bare one); a MoonrakerError for anything else. */
export function unwrap<T>(where: string, status: number, contentType: string, body: Buffer, shape: AnswerShape = 'wrapped'): T {
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const what = /html/i.test(contentType) || /^\s*</.test(text) ? 'an HTML page' : 'something that is not JSON';
    throw new MoonrakerError(`${where}: answered ${what} (HTTP ${status}), not Moonraker's API`, status === 401 || status === 403 ? 'auth_failed' : 'unreachable', status);
  }
  const obj = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
  if (status >= 200 && status < 300) {
    // A bare answer may still come wrapped from a proxy or an older build: take `result` when it is the only key.
    if (shape === 'bare' && obj) return (Object.keys(obj).length === 1 && 'result' in obj ? obj.result : obj) as T;
    if (!obj || !('result' in obj)) throw new MoonrakerError(`${where}: the answer has no "result" (HTTP ${status})`, 'unreachable', status);
    return obj.result as T;
  }
  const error = obj?.error as { message?: unknown } | string | undefined;
  const message = typeof error === 'string' ? error : typeof error?.message === 'string' ? error.message : `HTTP ${status}`;
  if (status === 401 || status === 403) throw new MoonrakerError(`${where}: the api key was refused (${message})`, 'auth_failed', status);
  throw new MoonrakerError(`${where}: ${message} (HTTP ${status})`, null, status);
}

function transportError(where: string, err: Error): MoonrakerError {
  if (isTlsFailure(err)) return new MoonrakerError(`${where}: TLS failed: ${err.message}`, 'tls_error');
  return new MoonrakerError(`${where}: ${err.message}`, 'unreachable');
}
