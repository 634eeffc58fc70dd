// OctoPrint's REST API over node:http/https: the X-Api-Key header, a timeout on every request, retries for reads (and for
// writes refused before anything was sent), and every answer sorted into JSON, nothing (204) or a typed failure.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { randomBytes } from 'node:crypto';
import type { OctoPrintEndpoint } from './octoprint-url.js';
import { isTlsFailure, pinnedConnector } from '../pinned-tls.js';

/** Why a request failed, in the driver's terms (octoprint-state-map turns it into an offline reason). */
export type HttpFailureKind = 'unreachable' | 'tls' | 'auth' | 'conflict' | 'server' | 'garbage' | 'client';

export class OctoPrintHttpError extends Error {
  constructor(
    readonly kind: HttpFailureKind,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'OctoPrintHttpError';
  }
}

export interface HttpClientOptions {
  endpoint: OctoPrintEndpoint;
  apiKey: string;
  /** Per request, connect to last byte (default 5000 ms). */
  timeoutMs?: number;
  /** Further attempts after a failed read or a refused connection (default 2). */
  retries?: number;
  /** Pause before the first retry, doubled each time (default 200 ms). */
  retryDelayMs?: number;
  /** Uploads may take longer than a status read (default 120000 ms). */
  uploadTimeoutMs?: number;
}

interface Body {
  contentType: string;
  length: number;
  write(req: NodeJS.WritableStream & { end(): void }): void;
}

export class OctoPrintHttpClient {
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly uploadTimeoutMs: number;

  constructor(private readonly opts: HttpClientOptions) {
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.retries = opts.retries ?? 2;
    this.retryDelayMs = opts.retryDelayMs ?? 200;
    this.uploadTimeoutMs = opts.uploadTimeoutMs ?? 120_000;
  }

  /** GET returning parsed JSON (retried: a read changes nothing). */
  get(path: string): Promise<unknown> {
    return this.withRetries(true, () => this.send('GET', path, null, this.timeoutMs));
  }

  /** POST of a JSON body; resolves with the JSON answer or null (204). Retried only when the connection was refused. */
  post(path: string, json: unknown): Promise<unknown> {
    const data = Buffer.from(JSON.stringify(json));
    const body: Body = { contentType: 'application/json', length: data.length, write: (req) => req.end(data) };
    return this.withRetries(false, () => this.send('POST', path, body, this.timeoutMs));
  }

  /** Multipart upload of a file (streamed from disk) with extra form fields, e.g. `print=true`. */
  async upload(path: string, filePath: string, remoteName: string, fields: Record<string, string>): Promise<unknown> {
    const size = (await stat(filePath)).size;
    const boundary = `----printfarm${randomBytes(12).toString('hex')}`;
    let head = '';
    for (const [name, value] of Object.entries(fields)) {
      head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    }
    head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${remoteName.replace(/["\r\n\\]/g, '_')}"\r\n`;
    head += 'Content-Type: application/octet-stream\r\n\r\n';
    const headBuf = Buffer.from(head);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body: Body = {
      contentType: `multipart/form-data; boundary=${boundary}`,
      length: headBuf.length + size + tail.length,
      write: (req) => {
        req.write(headBuf);
        const file = createReadStream(filePath);
        file.on('error', (err) => (req as unknown as { destroy(e: Error): void }).destroy(err));
        file.on('end', () => req.end(tail));
        file.pipe(req, { end: false });
      },
    };
    return this.withRetries(false, () => this.send('POST', path, body, this.uploadTimeoutMs));
  }

  private async withRetries(idempotent: boolean, attempt: () => Promise<unknown>): Promise<unknown> {
    let delay = this.retryDelayMs;
    for (let i = 0; ; i++) {
      try {
        return await attempt();
      } catch (err) {
        const e = err as OctoPrintHttpError;
        // A write is repeated only when it certainly never arrived; auth, TLS and 409 answers will not change on retry.
        const retriable = idempotent ? e.kind === 'unreachable' || e.kind === 'server' || e.kind === 'garbage' : (e as { refused?: boolean }).refused === true;
        if (!retriable || i >= this.retries) throw err;
        await new Promise((r) => setTimeout(r, delay));
        delay *= 2;
      }
    }
  }

  private send(method: string, path: string, body: Body | null, timeoutMs: number): Promise<unknown> {
    const { endpoint, apiKey } = this.opts;
    const url = new URL(path, endpoint.httpBase);
    const headers: Record<string, string | number> = { 'X-Api-Key': apiKey, Accept: 'application/json' };
    if (body) {
      headers['Content-Type'] = body.contentType;
      headers['Content-Length'] = body.length;
    }
    // No pooled agent: every request opens its own connection (pinned ones through the connector; node uses
    // createConnection only when no agent is given).
    const options: RequestOptions = { method, headers };
    if (endpoint.fingerprint) (options as { createConnection?: unknown }).createConnection = pinnedConnector(endpoint.fingerprint);
    else options.agent = false;
    const doRequest = endpoint.secure ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      let settled = false;
      const done = (err: Error | null, value?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(value);
      };
      const req = doRequest(url, options, (res) => readAnswer(res, method, url.pathname).then((v) => done(null, v), (e: Error) => done(e)));
      const timer = setTimeout(() => {
        req.destroy();
        done(new OctoPrintHttpError('unreachable', `${method} ${url.pathname}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => done(transportFailure(method, url.pathname, err)));
      if (body) body.write(req);
      else req.end();
    });
  }
}

function transportFailure(method: string, path: string, err: NodeJS.ErrnoException): OctoPrintHttpError {
  if (isTlsFailure(err)) return new OctoPrintHttpError('tls', `TLS: ${err.message}`);
  const e = new OctoPrintHttpError('unreachable', `${method} ${path}: ${err.code ?? ''} ${err.message}`.replace(/\s+/g, ' '));
  // Nothing was sent on a refused or unresolved connection: even a write may be tried again.
  if (err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') (e as { refused?: boolean }).refused = true;
  return e;
}

const MAX_ANSWER = 4 * 1024 * 1024;

async function readAnswer(res: IncomingMessage, method: string, path: string): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ANSWER) throw new OctoPrintHttpError('garbage', `${method} ${path}: answer larger than ${MAX_ANSWER} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const status = res.statusCode ?? 0;
  const where = `${method} ${path}`;
  if (status === 401 || status === 403) throw new OctoPrintHttpError('auth', `${where}: the API key was refused (HTTP ${status})`, status);
  if (status === 409) throw new OctoPrintHttpError('conflict', `${where}: ${errorText(text) || 'refused in this state'} (HTTP 409)`, 409);
  if (status >= 500) throw new OctoPrintHttpError('server', `${where}: server error HTTP ${status}${describe(text)}`, status);
  if (status >= 400) throw new OctoPrintHttpError('client', `${where}: HTTP ${status}${describe(text)}`, status);
  if (status === 204 || text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new OctoPrintHttpError('garbage', `${where}: not OctoPrint's API: the answer is not JSON${describe(text)}`, status);
  }
}

/** OctoPrint's error body is `{"error": "..."}`; anything else is shown cut short. */
function errorText(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: unknown };
    if (typeof j.error === 'string') return j.error;
  } catch {
    // not JSON
  }
  return describe(text).replace(/^: /, '');
}

function describe(text: string): string {
  const t = text.trim();
  if (t === '') return '';
  if (t.startsWith('<')) return ': an HTML page';
  return `: ${JSON.stringify(t.slice(0, 80))}`;
}
