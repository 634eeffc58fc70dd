// `tsx scripts/bench-webhooks.ts [--json] [--quick]`: a burst of 1,000 events (200 with --quick) to three receivers on
// 127.0.0.1 — one fast, one slow, one failing then recovering — with the real server's event machinery on a file
// database. Prints delivered, duplicated, lost (target 0), latency (event committed -> receiver's 2xx) and the peak
// backlog; with --json the last line is one JSON object:
// { events, receivers, delivered, duplicated, lost, p50_ms, p99_ms, peak_backlog, seconds, backoff_scale, slow_answer_ms,
//   fail_for_ms, db: {delivered, failed, pending}, per_receiver: [{name, delivered, duplicated, lost, requests, p50_ms, p99_ms}] }
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../src/clock.js';
import { createEventsRuntime } from '../src/events/events-runtime.js';
import { engineSql } from '../src/storage/engines/engine-sql.js';
import { createWebhooksRuntime } from '../src/webhooks/webhooks-runtime.js';
import { silentLogger } from '../src/logger.js';
import { openDatabase } from '../src/storage/db.js';
import { createWebhook } from '../src/webhooks/webhooks.service.js';

const argv = process.argv.slice(2);
for (const a of argv) {
  if (!['--json', '--quick'].includes(a)) {
    process.stderr.write(`bench-webhooks: unknown flag ${a} (known: --json, --quick)\n`);
    process.exit(2);
  }
}
const JSON_OUT = argv.includes('--json');
const QUICK = argv.includes('--quick');
const EVENTS = QUICK ? 200 : 1000;
/**
 * The slow receiver's answer time. One attempt is in flight per webhook (the server's setting, it keeps event order),
 * so its backlog drains at one event per answer: 1,000 x 20 ms = 20 s, which is what the latency column shows.
 */
const SLOW_MS = 20;
/** The failing receiver answers 500 for this long after its first request, then 204. */
const FAIL_FOR_MS = QUICK ? 1000 : 2000;
/** Retry delays x this: the real 30 s, 60 s, 5 min … 8 h schedule (11 attempts) becomes 30 ms, 60 ms, 300 ms … 28.8 s. */
const BACKOFF_SCALE = 0.001;
/** Give up waiting for the deliveries to settle after this; whatever is not delivered then counts as lost. */
const SETTLE_LIMIT_MS = QUICK ? 60_000 : 180_000;
const SECRET = 'bench-secret-0123456789';

const progress = (msg: string): void => void process.stderr.write(`[bench] ${msg}\n`);
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));
const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

interface Receiver {
  name: string;
  url: string;
  requests: number;
  /** performance.now() of each 2xx answer, per X-Event-Id. */
  acks: Map<string, number[]>;
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1 that answers after `delayMs` with `status(now)` (now: performance.now()). */
async function startReceiver(name: string, delayMs: number, status: (now: number) => number): Promise<Receiver> {
  const r: Receiver = { name, url: '', requests: 0, acks: new Map(), close: async () => undefined };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      r.requests++;
      const answer = (): void => {
        const now = performance.now();
        const code = status(now);
        if (code >= 200 && code < 300) {
          const id = String(req.headers['x-event-id']);
          r.acks.set(id, [...(r.acks.get(id) ?? []), now]);
        }
        res.writeHead(code).end();
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return r;
}

/** The failing receiver's clock starts at its first request, so it fails for FAIL_FOR_MS whatever the start-up time. */
function failingThenOk(): (now: number) => number {
  let first: number | undefined;
  return (now) => {
    first ??= now;
    return now - first < FAIL_FOR_MS ? 500 : 204;
  };
}

interface Tally {
  name: string;
  delivered: number;
  duplicated: number;
  lost: number;
  requests: number;
  latencies: number[];
}

/** What one receiver got of the committed events: first acknowledgements, repeats, misses, and their latency. */
function tally(r: Receiver, committed: Map<string, number>): Tally {
  const t: Tally = { name: r.name, delivered: 0, duplicated: 0, lost: 0, requests: r.requests, latencies: [] };
  for (const [id, at] of committed) {
    const acks = r.acks.get(id);
    if (!acks) {
      t.lost++;
      continue;
    }
    t.delivered++;
    t.duplicated += acks.length - 1;
    t.latencies.push((acks[0] as number) - at);
  }
  return t;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-webhooks-'));
  const handle = openDatabase(path.join(dir, 'bench.sqlite'));
  const base = { db: handle.db, clock: systemClock, logger: silentLogger };
  const events = createEventsRuntime({ ...base, sql: engineSql(handle.engine) });
  const webhooks = createWebhooksRuntime({ ...base, events }, { retryDelayScale: BACKOFF_SCALE });
  const receivers = [
    await startReceiver('fast (answers at once)', 0, () => 204),
    await startReceiver(`slow (${SLOW_MS} ms per answer)`, SLOW_MS, () => 204),
    await startReceiver(`failing (500 for ${FAIL_FOR_MS / 1000} s, then ok)`, 0, failingThenOk()),
  ];
  const pendingStmt = handle.sqlite.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'");
  const pendingNow = (): number => (pendingStmt.get() as { n: number }).n;
  let peakBacklog = 0;
  const sampler = setInterval(() => (peakBacklog = Math.max(peakBacklog, pendingNow())), 20);
  try {
    const deps = { db: handle.db, clock: systemClock, events, webhooks };
    for (const r of receivers) await createWebhook(deps, { url: r.url, events: ['job.*'], secret: SECRET });
    await events.start();
    webhooks.start();

    progress(`burst: ${EVENTS} events to ${receivers.length} receivers`);
    const committed = new Map<string, number>();
    const t0 = performance.now();
    for (let i = 0; i < EVENTS; i++) {
      const e = await events.recordNow('job.completed', { id: `job_${i}`, status: 'completed' });
      committed.set(e.id, performance.now());
      // Back to back, but yielding to I/O between events as separate requests would: the synchronous SQLite driver
      // resolves in microtasks, so without this the burst would hold the event loop and nothing could be sent meanwhile.
      await new Promise((r) => setImmediate(r));
    }
    const burstSeconds = (performance.now() - t0) / 1000;
    peakBacklog = Math.max(peakBacklog, pendingNow());

    progress(`burst recorded in ${round(burstSeconds, 2)} s; waiting for every delivery to settle (at most ${SETTLE_LIMIT_MS / 1000} s)`);
    const limit = Date.now() + SETTLE_LIMIT_MS;
    while ((pendingNow() > 0 || webhooks.worker.busy > 0) && Date.now() < limit) await new Promise((r) => setTimeout(r, 20));
    const settled = pendingNow() === 0;
    const seconds = (performance.now() - t0) / 1000;
    const db = Object.fromEntries(
      (handle.sqlite.prepare('SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status').all() as Array<{ status: string; n: number }>).map(
        (r) => [r.status, r.n],
      ),
    ) as Record<string, number>;

    const rows = receivers.map((r) => tally(r, committed));
    const all = rows.flatMap((r) => r.latencies);
    const sum = (k: 'delivered' | 'duplicated' | 'lost' | 'requests'): number => rows.reduce((a, r) => a + r[k], 0);
    const out: string[] = [];
    out.push(
      `Webhook deliveries: a burst of ${EVENTS} events to ${receivers.length} receivers on 127.0.0.1 (file database in WAL mode, ` +
        `one attempt in flight per webhook; back-off scaled x${BACKOFF_SCALE}: 30 s -> 30 ms … 8 h -> 28.8 s)`,
    );
    out.push('receiver                          | delivered | duplicated | lost | requests | p50 ms  | p99 ms');
    const line = (name: string, d: number, dup: number, lost: number, req: number, lat: number[]): string =>
      `${name.padEnd(33)} | ${String(d).padStart(9)} | ${String(dup).padStart(10)} | ${String(lost).padStart(4)} | ${String(req).padStart(8)} | ` +
      `${percentile(lat, 50).toFixed(1).padStart(7)} | ${percentile(lat, 99).toFixed(1).padStart(7)}`;
    for (const r of rows) out.push(line(r.name, r.delivered, r.duplicated, r.lost, r.requests, r.latencies));
    out.push(line('all', sum('delivered'), sum('duplicated'), sum('lost'), sum('requests'), all));
    out.push(
      `latency: event committed -> the receiver's 2xx answer. Peak backlog: ${peakBacklog} pending deliveries. ` +
        `Burst recorded in ${round(burstSeconds, 2)} s; ${settled ? 'all settled' : 'gave up waiting'} after ${round(seconds, 1)} s ` +
        `(database: ${db.delivered ?? 0} delivered, ${db.failed ?? 0} failed, ${db.pending ?? 0} pending). Target: lost 0.`,
    );
    process.stdout.write(out.join('\n') + '\n');
    if (JSON_OUT) {
      const json = {
        events: EVENTS,
        receivers: receivers.length,
        delivered: sum('delivered'),
        duplicated: sum('duplicated'),
        lost: sum('lost'),
        p50_ms: round(percentile(all, 50)),
        p99_ms: round(percentile(all, 99)),
        peak_backlog: peakBacklog,
        seconds: round(seconds, 2),
        backoff_scale: BACKOFF_SCALE,
        slow_answer_ms: SLOW_MS,
        fail_for_ms: FAIL_FOR_MS,
        db: { delivered: db.delivered ?? 0, failed: db.failed ?? 0, pending: db.pending ?? 0 },
        per_receiver: rows.map((r) => ({
          name: r.name,
          delivered: r.delivered,
          duplicated: r.duplicated,
          lost: r.lost,
          requests: r.requests,
          p50_ms: round(percentile(r.latencies, 50)),
          p99_ms: round(percentile(r.latencies, 99)),
        })),
      };
      process.stdout.write(JSON.stringify(json) + '\n');
    }
  } finally {
    clearInterval(sampler);
    await webhooks.stop(0);
    await events.stop();
    await handle.close();
    for (const r of receivers) await r.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench-webhooks: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
