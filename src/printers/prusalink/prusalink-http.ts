// The HTTP side of the PrusaLink driver: one request at a time with a timeout, Digest (or X-Api-Key) auth, an https
// certificate pinned by fingerprint, and every failure classified as the offline reason it stands for.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { isTlsFailure, printerHttpsAgent } from '../pinned-tls.js';
import type { OfflineReason } from '../printer-state.js';
import { digestAuthorization, parseDigestChallenge, type DigestChallenge } from '../../protocol/http-digest.js';

/**
 * `secret`: a bare password or API key, the form a Buddy printer's screen shows. Its Digest user is always `maker`
 * (Prusa-Firmware-Buddy lib/WUI/wui_api.h PRUSA_LINK_USERNAME, used by req_parser.cpp whatever user the client names),
 * and the firmware takes the same password as X-Api-Key; Prusa-Link (Python) takes its API key as X-Api-Key.
 */
export type PrusaLinkAuth =
  | { kind: 'digest'; user: string; password: string }
  | { kind: 'api-key'; key: string }
  | { kind: 'secret'; secret: string }
  | null;

/** The Buddy firmware's one Digest user. */
export const FIRMWARE_DIGEST_USER = 'maker';

export interface PrusaLinkHttpOptions {
  /** http://host:port or https://host:port (no path). */
  baseUrl: URL;
  auth: PrusaLinkAuth;
  /** SHA-256 fingerprint of the printer's certificate (hex, colons optional): a self-signed certificate is accepted only then. */
  fingerprint: string | null;
  /** No answer (or no progress of an upload) for this long fails the request. */
  timeoutMs: number;
}

/** A failed request, with the offline reason it stands for and the HTTP status when there was one. */
export class PrusaLinkRequestError extends Error {
  constructor(
    readonly reason: OfflineReason,
    message: string,
    readonly httpStatus: number | null = null,
  ) {
    super(message);
    this.name = 'PrusaLinkRequestError';
  }
}

export interface PrusaLinkResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Opens the body afresh (a Digest retry sends it again). */
  body?: () => Readable | Buffer;
  bodyLength?: number;
}

/** Answers larger than this are not PrusaLink JSON: the request fails instead of buffering them. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** The offline reason of a transport error: TLS problems apart, nothing answered properly at the address. */
export function reasonOfNetworkError(err: NodeJS.ErrnoException): OfflineReason {
  return isTlsFailure(err) ? 'tls_error' : 'unreachable';
}

export class PrusaLinkHttp {
  private readonly agent: http.Agent;
  private challenge: DigestChallenge | null = null;
  private nc = 0;
  /** How a `secret` is sent, learnt from the printer's first refusal: not yet, as maker's Digest password, or as X-Api-Key. */
  private secretAs: 'unknown' | 'digest' | 'api-key' = 'unknown';

  constructor(private readonly opts: PrusaLinkHttpOptions) {
    const secure = opts.baseUrl.protocol === 'https:';
    this.agent = !secure
      ? new http.Agent({ keepAlive: true, maxSockets: 4 })
      : opts.fingerprint
        ? printerHttpsAgent(opts.fingerprint, { keepAlive: true, maxSockets: 4 })
        : new https.Agent({ keepAlive: true, maxSockets: 4 });
  }

  /** Drops idle connections (disconnect). */
  close(): void {
    this.agent.destroy();
  }

  /**
   * One request. Digest: answers a challenge once (a new or stale nonce) and re-sends; a refusal after that is
   * `auth_failed`, and so is a 403 to a GET sent with an X-Api-Key (Prusa-Link answers a wrong key so, web/lib/auth.py
   * check_api_digest). A bare secret is first sent as nothing, then as the Digest password of `maker` when the printer
   * asks for Digest (Buddy firmware), then as X-Api-Key (Prusa-Link); what worked is kept. An idempotent request whose
   * kept-alive connection was closed under it is retried once.
   */
  async request(method: string, path: string, ro: RequestOptions = {}): Promise<PrusaLinkResponse> {
    let res = await this.answerDigest(await this.sendRetrying(method, path, ro), method, path, ro);
    const refused = (r: PrusaLinkResponse): boolean => r.status === 401 || (r.status === 403 && method === 'GET');
    if (this.opts.auth?.kind === 'secret' && this.secretAs !== 'api-key' && refused(res)) {
      if (this.secretAs === 'unknown' && res.status === 401 && parseDigestChallenge(res.headers['www-authenticate'])) {
        this.secretAs = 'digest';
        res = await this.answerDigest(res, method, path, ro);
      }
      if (refused(res)) {
        this.secretAs = 'api-key';
        res = await this.sendRetrying(method, path, ro);
      }
    }
    if (refused(res)) {
      const auth = this.effectiveAuth();
      if (this.opts.auth?.kind === 'secret') this.secretAs = 'unknown';
      const what =
        this.opts.auth === null
          ? 'no credentials were given'
          : this.opts.auth.kind === 'secret'
            ? `the password was refused both as the Digest password of user "${FIRMWARE_DIGEST_USER}" and as X-Api-Key`
            : auth?.kind === 'digest'
              ? `the user and password were refused${auth.user !== FIRMWARE_DIGEST_USER ? ` (on Prusa's Buddy firmware the user is always "${FIRMWARE_DIGEST_USER}")` : ''}`
              : 'the API key was refused';
      throw new PrusaLinkRequestError('auth_failed', `PrusaLink answered ${res.status}: ${what}`, res.status);
    }
    return res;
  }

  /** The credentials sent now: a secret as what the printer was found to take. */
  private effectiveAuth(): Exclude<PrusaLinkAuth, { kind: 'secret' }> {
    const auth = this.opts.auth;
    if (auth?.kind !== 'secret') return auth;
    if (this.secretAs === 'digest') return { kind: 'digest', user: FIRMWARE_DIGEST_USER, password: auth.secret };
    if (this.secretAs === 'api-key') return { kind: 'api-key', key: auth.secret };
    return null;
  }

  /** A 401 with a Digest challenge we have not answered yet (new, or our nonce went stale): answered once. */
  private async answerDigest(res: PrusaLinkResponse, method: string, path: string, ro: RequestOptions): Promise<PrusaLinkResponse> {
    if (res.status !== 401 || this.effectiveAuth()?.kind !== 'digest') return res;
    const fresh = parseDigestChallenge(res.headers['www-authenticate']);
    const hadOne = this.challenge;
    if (!fresh || (hadOne !== null && !fresh.stale && fresh.nonce === hadOne.nonce)) return res;
    this.challenge = fresh;
    this.nc = 0;
    return this.sendRetrying(method, path, ro);
  }

  /** GET of a JSON document: 204 gives null; anything but JSON (an HTML page, garbage, a 5xx) fails with a clear reason. */
  async getJson(path: string): Promise<unknown> {
    const res = await this.request('GET', path, { headers: { Accept: 'application/json' } });
    if (res.status === 204) return null;
    return parseJsonAnswer(res, `GET ${path}`);
  }

  private async sendRetrying(method: string, path: string, ro: RequestOptions): Promise<PrusaLinkResponse> {
    try {
      return await this.send(method, path, ro);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const idempotent = method === 'GET' || method === 'HEAD';
      if (idempotent && (code === 'ECONNRESET' || code === 'EPIPE')) return this.send(method, path, ro);
      throw err;
    }
  }

  private send(method: string, path: string, ro: RequestOptions): Promise<PrusaLinkResponse> {
    const { baseUrl, timeoutMs } = this.opts;
    const headers: Record<string, string> = { ...ro.headers };
    const auth = this.effectiveAuth();
    if (auth?.kind === 'api-key') headers['X-Api-Key'] = auth.key;
    if (auth?.kind === 'digest' && this.challenge) {
      headers.Authorization = digestAuthorization(this.challenge, {
        username: auth.user,
        password: auth.password,
        method,
        uri: path,
        cnonce: randomBytes(12).toString('hex'),
        nc: ++this.nc,
      });
    }
    if (ro.bodyLength !== undefined) headers['Content-Length'] = String(ro.bodyLength);
    const lib = baseUrl.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.request(
        { protocol: baseUrl.protocol, hostname: baseUrl.hostname, port: baseUrl.port || undefined, method, path, headers, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_ANSWER_BYTES) {
              res.destroy();
              reject(new PrusaLinkRequestError('unreachable', `${method} ${path}: the answer is larger than ${MAX_ANSWER_BYTES} bytes`, res.statusCode));
            } else chunks.push(c);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', (err) => reject(classify(err, method, path)));
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
      req.on('error', (err) => reject(classify(err, method, path)));
      const body = ro.body?.();
      if (body === undefined) req.end();
      else if (Buffer.isBuffer(body)) req.end(body);
      else {
        body.on('error', (err) => req.destroy(err));
        body.pipe(req);
      }
    });
  }
}

function classify(err: NodeJS.ErrnoException, method: string, path: string): Error {
  if (err instanceof PrusaLinkRequestError) return err;
  const out = new PrusaLinkRequestError(reasonOfNetworkError(err), `${method} ${path}: ${err.message}`);
  (out as NodeJS.ErrnoException).code = err.code;
  return out;
}

/** The JSON of a 2xx answer; an error status, an HTML page or garbage fails naming what came back. */
export function parseJsonAnswer(res: PrusaLinkResponse, what: string): unknown {
  const type = String(res.headers['content-type'] ?? '');
  const head = res.body.subarray(0, 80).toString('utf8').replace(/\s+/g, ' ').trim();
  if (res.status < 200 || res.status >= 300) {
    throw new PrusaLinkRequestError('unreachable', `${what}: PrusaLink answered HTTP ${res.status}${head ? ` (${head})` : ''}`, res.status);
  }
  if (/text\/html/i.test(type) || /^<(!doctype|html)/i.test(head)) {
    throw new PrusaLinkRequestError('unreachable', `${what}: the printer answered an HTML page instead of JSON (${head})`, res.status);
  }
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    throw new PrusaLinkRequestError('unreachable', `${what}: the answer is not JSON (${head || 'empty'})`, res.status);
  }
}
