// Test helpers for webhooks and the live stream: a real HTTP receiver on 127.0.0.1, an SSE client, bounded polling.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with one request: answer `status` (once `after` resolves, when given), or never answer (`hang`). */
export type Behaviour = (req: Received, index: number) => { status: number; body?: string; hang?: boolean; after?: Promise<void> };

export interface Receiver {
  url: string;
  received: Received[];
  behaviour: Behaviour;
  close(): Promise<void>;
}

export async function startReceiver(behaviour: Behaviour = () => ({ status: 204 })): Promise<Receiver> {
  const received: Received[] = [];
  const receiver: Receiver = { url: '', received, behaviour, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      const answer = receiver.behaviour(r, received.length - 1);
      if (answer.hang) return;
      void (answer.after ?? Promise.resolve()).then(() => {
        res.writeHead(answer.status, { 'Content-Type': 'text/plain' });
        res.end(answer.body ?? '');
      });
    });
  });
  Object.assign(receiver, await listenOnLoopback(server));
  return receiver;
}

/** Listens on a free port of 127.0.0.1: the receiver URL (path /hook), and a close that drops open requests too. */
export async function listenOnLoopback(server: http.Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls an (async) condition every 10 ms until it holds; fails after `ms` naming `what`. */
export async function eventually(cond: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
}

export interface SseClient {
  status: number;
  messages: SseMessage[];
  /** Everything received, comments included. */
  raw(): string;
  ended: Promise<void>;
  /** Stops reading from the socket (a slow client) / resumes. */
  pause(): void;
  resume(): void;
  close(): void;
}

/** Opens GET path as an SSE client; resolves once the response headers are in. */
export function openStream(baseUrl: string, path: string, headers: Record<string, string>): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(baseUrl + path, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      let text = '';
      let pending = '';
      const messages: SseMessage[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        pending += chunk;
        let cut: number;
        while ((cut = pending.indexOf('\n\n')) !== -1) {
          const block = pending.slice(0, cut);
          pending = pending.slice(cut + 2);
          const msg: SseMessage = {};
          for (const line of block.split('\n')) {
            const m = /^(id|event|data): (.*)$/.exec(line);
            if (m) msg[m[1] as keyof SseMessage] = m[2];
          }
          if (msg.event || msg.data) messages.push(msg);
        }
      });
      const ended = new Promise<void>((r) => {
        res.on('end', () => r());
        res.on('close', () => r());
      });
      resolve({
        status: res.statusCode ?? 0,
        messages,
        raw: () => text,
        ended,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

/** The types of the stream's event messages, in order. */
export const typesOf = (client: SseClient): string[] => client.messages.map((m) => m.event as string);

/** A parsed JSON response body, loosely typed for assertions. */
export type Obj = Record<string, any>;
