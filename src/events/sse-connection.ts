// One Server-Sent Events response: replay from the log after Last-Event-ID, then live events, heartbeats, and a bounded buffer.
import type http from 'node:http';
import type { Db } from '../storage/db.js';
import { eventsAfter } from './event-log.repository.js';
import type { LiveStreamHub, StreamItem } from './live-stream.js';

export interface SseOptions {
  heartbeatMs: number;
  /** Bytes the response may hold unsent before the client counts as too slow and is dropped. */
  maxBufferedBytes: number;
}

export interface SseRequest {
  /** Whether this subscriber gets an event of this type (its `types=` filter and its key's scopes). */
  accepts: (type: string) => boolean;
  /** Replay the log after this seq before going live; null for live only. */
  resumeAfterSeq: number | null;
  /** Checked at every heartbeat: a key revoked or expired, or a session ended, meanwhile ends the stream. */
  stillAuthorized: () => Promise<boolean>;
  /** Comment lines sent first (e.g. why a replay starts at the oldest retained event). */
  notes: string[];
  headers: Record<string, string>;
}

const REPLAY_BATCH = 200;
/** How long a replay waits for the client to take what was written before it counts as too slow. */
const REPLAY_DRAIN_MS = 10_000;
/** Live events held back while a replay runs; beyond this the client cannot catch up. */
const MAX_QUEUED_DURING_REPLAY = 10_000;

/** Resolves true once the response's buffer has drained, false after `ms` or when the response closes first. */
function drained(res: http.ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = (): void => done(true);
    const onClose = (): void => done(false);
    const timer = setTimeout(() => done(false), ms);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

const frame = (item: StreamItem): string =>
  `${item.seq !== null ? `id: ${item.event.id}\n` : ''}event: ${item.event.type}\ndata: ${item.json}\n\n`;

export async function serveSse(res: http.ServerResponse, db: Db, hub: LiveStreamHub, request: SseRequest, options: SseOptions): Promise<void> {
  res.writeHead(200, {
    ...request.headers,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    // Reverse proxies (nginx) would otherwise buffer the stream.
    'X-Accel-Buffering': 'no',
  });
  res.socket?.setNoDelay(true);
  res.socket?.setTimeout(0);
  res.write(`retry: 3000\n${request.notes.map((n) => `: ${n}\n`).join('')}\n`);

  let ended = false;
  let lastSeq = request.resumeAfterSeq ?? -1;
  // Live events arriving while the log is replayed wait here, then go out in order without repeats.
  let queue: StreamItem[] | null = request.resumeAfterSeq !== null ? [] : null;

  const end = (reason: string, message: string): void => {
    if (ended) return;
    ended = true;
    unsubscribe();
    clearInterval(heartbeat);
    res.end(`event: end\ndata: ${JSON.stringify({ reason, message })}\n\n`);
    // A client that stopped reading never drains the final bytes: cut it after a moment.
    setTimeout(() => res.destroy(), 5000).unref();
  };

  // While replaying, the writer waits for the client between batches instead of judging it by one burst.
  let replaying = queue !== null;
  const send = (item: StreamItem): void => {
    if (ended || !request.accepts(item.event.type)) return;
    if (item.seq !== null) {
      if (item.seq <= lastSeq) return;
      lastSeq = item.seq;
    }
    res.write(frame(item));
    if (!replaying && res.writableLength > options.maxBufferedBytes) {
      end('slow_client', `the client did not keep up (more than ${options.maxBufferedBytes} bytes unsent); reconnect with Last-Event-ID to resume`);
    }
  };

  const unsubscribe = hub.subscribe(
    (item) => {
      if (!queue) return send(item);
      queue.push(item);
      if (queue.length > MAX_QUEUED_DURING_REPLAY) end('slow_client', 'too many new events arrived while the replay was still being sent; reconnect with Last-Event-ID to resume');
    },
    (reason) => end(reason, 'the server is shutting down; reconnect with Last-Event-ID to resume'),
  );
  const heartbeat = setInterval(() => {
    if (ended) return;
    res.write(': heartbeat\n\n');
    request.stillAuthorized().then(
      (ok) => {
        if (!ok) end('unauthorized', 'the API key or session of this stream was revoked, signed out or has expired');
      },
      () => undefined,
    );
  }, options.heartbeatMs);
  heartbeat.unref();
  res.on('close', () => {
    ended = true;
    unsubscribe();
    clearInterval(heartbeat);
  });

  if (queue) {
    try {
      for (;;) {
        const rows = await eventsAfter(db, lastSeq, REPLAY_BATCH);
        for (const row of rows) send({ seq: row.seq, event: JSON.parse(row.body), json: row.body });
        // lastSeq only moves on accepted events, so page by the rows' own seq.
        const last = rows[rows.length - 1];
        if (last && last.seq > lastSeq) lastSeq = last.seq;
        if (ended || rows.length < REPLAY_BATCH) break;
        if (res.writableLength > options.maxBufferedBytes / 2 && !(await drained(res, REPLAY_DRAIN_MS))) {
          end('slow_client', `the client did not take the replay within ${REPLAY_DRAIN_MS / 1000} s; reconnect with Last-Event-ID to resume`);
          break;
        }
      }
    } catch (err) {
      end('error', `replay failed: ${(err as Error).message}`);
    }
    const waiting = queue;
    queue = null;
    replaying = false;
    for (const item of waiting) send(item);
  }
}
