// Replays one HTTP request to another node and collects its whole answer; reaching the node is bounded by a short
// connect timeout, the answer by a longer one (console commands may wait for the firmware).
import http from 'node:http';

export interface ReplayRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The owner must accept the connection within this (down or unreachable otherwise). */
  connectTimeoutMs: number;
  /** The whole answer must be in within this. */
  replyTimeoutMs: number;
}

export interface ReplayAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Rejects with a short reason (refused, timed out) when the node cannot be reached or does not answer in time. */
export function replayRequest(r: ReplayRequest): Promise<ReplayAnswer> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (reason: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(replyTimer);
      req.destroy();
      reject(new Error(reason));
    };
    // agent: false: a fresh connection each time, so 'connect' always fires and a dead keep-alive socket is never reused.
    const req = http.request(r.url, { method: r.method, headers: { ...r.headers, 'Content-Length': String(r.body.length) }, agent: false });
    const connectTimer = setTimeout(() => fail(`no connection within ${r.connectTimeoutMs} ms`), r.connectTimeoutMs);
    const replyTimer = setTimeout(() => fail(`no answer within ${r.replyTimeoutMs} ms`), r.replyTimeoutMs);
    req.once('socket', (socket) => socket.once('connect', () => clearTimeout(connectTimer)));
    req.once('error', (err: NodeJS.ErrnoException) => fail(err.code === 'ECONNREFUSED' ? 'connection refused' : err.message));
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('error', (err) => fail(err.message));
      res.once('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(connectTimer);
        clearTimeout(replyTimer);
        resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) });
      });
    });
    req.end(r.body);
  });
}
