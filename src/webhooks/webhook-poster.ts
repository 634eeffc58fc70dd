// One webhook POST over node:http(s): bounded time, no redirects, at most 1 KB of the answer kept.
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { AttemptResult } from './delivery-outcome.js';

export const RESPONSE_EXCERPT_BYTES = 1024;

/**
 * node:http rather than fetch: one deadline covers connect, headers and a body that trickles; the socket of a
 * receiver that hangs is destroyed at the deadline instead of lingering in a shared pool where it could hold up other
 * receivers; a redirect is just a status (nothing to switch off); and only the first 1 KB of a response is ever read.
 */
export interface PostOptions {
  timeoutMs: number;
  /** Aborts the attempt without a result (server shutdown): the caller leaves the delivery untouched. */
  signal?: AbortSignal;
  agents?: { http: http.Agent; https: https.Agent };
  /** Default application/json (notifications post forms to Pushover). */
  contentType?: string;
}

export class AttemptAborted extends Error {}

export function postWebhook(url: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  return new Promise<AttemptResult>((resolve, reject) => {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    let settled = false;
    const finish = (result: AttemptResult | AttemptAborted): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (result instanceof AttemptAborted) reject(result);
      else resolve(result);
    };
    const fail = (error: string, statusCode: number | null = null, excerpt: string | null = null): void =>
      finish({ statusCode, durationMs: elapsed(), error, excerpt });

    const req = (secure ? https : http).request(target, {
      method: 'POST',
      agent: options.agents ? (secure ? options.agents.https : options.agents.http) : undefined,
      headers: { ...headers, 'Content-Type': options.contentType ?? 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
    });
    // First of all: a request destroyed before it has a socket (a shutdown that aborted the attempt at once) emits
    // "socket hang up" on the next tick, and without a listener that is an uncaught exception.
    req.on('error', (err) => fail(err.message));
    const timer = setTimeout(() => {
      fail(`no complete answer within ${options.timeoutMs / 1000} s`);
      req.destroy();
    }, options.timeoutMs);
    const onAbort = (): void => {
      finish(new AttemptAborted('attempt aborted by shutdown'));
      req.destroy();
    };
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const done = (): void => {
        const excerpt = Buffer.concat(chunks).toString('utf8');
        const code = res.statusCode ?? null;
        const ok = code !== null && code >= 200 && code < 300;
        const retryAfter = res.headers['retry-after'];
        finish({ statusCode: code, durationMs: elapsed(), error: ok ? null : `receiver answered ${code}`, excerpt: excerpt || null, ...(retryAfter ? { retryAfter } : {}) });
      };
      res.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_EXCERPT_BYTES) {
          const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
          chunks.push(part);
          kept += part.length;
        }
        // A long answer is not worth waiting for: the status is known and the excerpt is full.
        if (kept >= RESPONSE_EXCERPT_BYTES) {
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', () => done());
    });
    req.end(body);
  });
}
