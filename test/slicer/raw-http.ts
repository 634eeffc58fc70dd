// Sends one HTTP/1.1 request over node:net byte for byte as given (header order, spelling, body bytes) and reads the raw answer.
import net from 'node:net';
import { ResponseReader, type ParsedResponse, type ReaderEvent } from './response-reader.js';

/** A piece of a request body: bytes, or a lazily produced stream of a known size (for uploads too big to hold). */
export type BodyPart = Buffer | { size: number; stream: () => AsyncIterable<Uint8Array> };

export interface WireRequest {
  method: string;
  /** The request-target exactly as it goes on the wire (already percent-encoded where the client encodes). */
  target: string;
  /** Ordered, exact header lines; nothing is added, removed or reordered. */
  headers: Array<[string, string]>;
  body: BodyPart[];
}

export interface WireResponse extends ParsedResponse {
  /** False when the client, like libcurl, kept the body back because the server answered before `100 Continue`. */
  bodySent: boolean;
  /** True when the client cut the upload off on purpose (SendOptions.cutAfterBodyBytes); status is 0 if no answer came. */
  cut: boolean;
}

export interface SendOptions {
  /** How long to wait for `100 Continue` before sending the body anyway (libcurl: CURLOPT_EXPECT_100_TIMEOUT_MS = 1000). */
  continueTimeoutMs?: number;
  /** Give up on the whole exchange after this long. */
  timeoutMs?: number;
  /** Send only this many body bytes, then close the connection (an upload cut off midway). */
  cutAfterBodyBytes?: number;
}

export function header(res: { headers: Array<[string, string]> }, name: string): string | undefined {
  const lower = name.toLowerCase();
  return res.headers.find(([k]) => k.toLowerCase() === lower)?.[1];
}

export function bodyLength(body: BodyPart[]): number {
  return body.reduce((n, p) => n + (Buffer.isBuffer(p) ? p.length : p.size), 0);
}

/** The request line and headers as they go on the wire (latin1 keeps raw UTF-8 bytes given as binary strings intact). */
export function requestHead(req: WireRequest): Buffer {
  const lines = [`${req.method} ${req.target} HTTP/1.1`, ...req.headers.map(([k, v]) => `${k}: ${v}`)];
  return Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');
}

/** Whole body in one buffer (only for small bodies: tests and assertions). */
export async function bodyBytes(body: BodyPart[]): Promise<Buffer> {
  const out: Buffer[] = [];
  for (const p of body) {
    if (Buffer.isBuffer(p)) out.push(p);
    else for await (const c of p.stream()) out.push(Buffer.from(c));
  }
  return Buffer.concat(out);
}

export function sendWire(port: number, req: WireRequest, opts: SendOptions = {}): Promise<WireResponse> {
  const expectsContinue = /^100-continue$/i.test(header(req, 'Expect') ?? '');
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const reader = new ResponseReader(req.method === 'HEAD');
    // waiting: head sent, body not yet; body: body being written; held: a final answer came first, so the body is never sent.
    let phase: 'waiting' | 'body' | 'held' = 'waiting';
    let continueTimer: NodeJS.Timeout | undefined;
    let settled = false;
    let cut = false;
    const timer = setTimeout(() => fail(new Error(`no complete answer to ${req.method} ${req.target}`)), opts.timeoutMs ?? 30_000);
    function stopTimers() {
      clearTimeout(timer);
      clearTimeout(continueTimer);
    }
    function fail(err: Error) {
      if (settled) return;
      settled = true;
      stopTimers();
      socket.destroy();
      reject(err);
    }
    function finish(res: ParsedResponse) {
      if (settled) return;
      settled = true;
      stopTimers();
      socket.destroy();
      resolve({ ...res, bodySent: phase === 'body', cut });
    }
    function startBody() {
      if (phase !== 'waiting') return;
      phase = 'body';
      clearTimeout(continueTimer);
      // The server may close early after answering (e.g. 413); the answer, if any, is still read below.
      const markCut = () => {
        cut = true;
      };
      writeBody(socket, req.body, opts.cutAfterBodyBytes, markCut).catch(() => undefined);
    }
    socket.on('connect', () => {
      socket.write(requestHead(req));
      if (!expectsContinue) startBody();
      else continueTimer = setTimeout(startBody, opts.continueTimeoutMs ?? 1000);
    });
    socket.on('data', (chunk: Buffer) => {
      let event: ReaderEvent;
      try {
        event = reader.push(chunk);
      } catch (err) {
        fail(err as Error);
        return;
      }
      // libcurl sends the body on `100 Continue` and keeps it back for good once a final status arrives first.
      if (event.sawContinue) startBody();
      if (event.finalHeadSeen && phase === 'waiting') {
        phase = 'held';
        clearTimeout(continueTimer);
      }
      if (event.done) finish(event.done);
    });
    let socketError: Error | undefined;
    socket.on('error', (err) => {
      socketError = err;
    });
    socket.on('close', () => {
      const res = reader.end() ?? (cut ? { status: 0, reason: 'cut by client', headers: [], body: Buffer.alloc(0), interim: [] } : undefined);
      if (res) finish(res);
      else fail(socketError ?? new Error(`connection closed before a complete answer to ${req.method} ${req.target}`));
    });
  });
}

/** Writes the body; at `limit` bytes it calls onCut and closes the connection on purpose. */
async function writeBody(socket: net.Socket, body: BodyPart[], limit = Infinity, onCut: () => void = () => undefined): Promise<void> {
  let left = limit;
  const write = (buf: Buffer) =>
    new Promise<void>((resolve, reject) => socket.write(buf, (err) => (err ? reject(err) : resolve())));
  for (const part of body) {
    const chunks: AsyncIterable<Uint8Array> | Buffer[] = Buffer.isBuffer(part) ? [part] : part.stream();
    for await (const c of chunks) {
      const buf = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
      if (buf.length >= left) {
        await write(buf.subarray(0, left));
        onCut();
        socket.destroy();
        return;
      }
      left -= buf.length;
      await write(buf);
    }
  }
}
