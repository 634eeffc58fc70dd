// `tsx scripts/bench-webhooks.ts [--json] [--quick]`: webhook deliveries per second to a local receiver, and the delay a
// hanging receiver adds to another one (target: none). Prints a table; with --json the last line is one JSON object:
// { throughput: [{webhooks, deliveries, seconds, per_s}], isolation: {events, alone_p50_ms, alone_p99_ms,
//   beside_fast_p50_ms, beside_fast_p99_ms, beside_hanging_p50_ms, beside_hanging_p99_ms, added_p50_ms, added_p99_ms,
//   hanging_attempts} }
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../src/clock.js';
import { createEventsRuntime, type EventsRuntime } from '../src/events/events-runtime.js';
import { silentLogger } from '../src/logger.js';
import { openDatabase, type DbHandle } from '../src/storage/db.js';
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
const progress = (msg: string): void => void process.stderr.write(`[bench] ${msg}\n`);
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

interface Receiver {
  url: string;
  /** performance.now() of each X-Event-Id's arrival. */
  arrivals: Map<string, number>;
  count: number;
  close(): Promise<void>;
}

async function receiver(hang = false): Promise<Receiver> {
  const r: Receiver = { url: '', arrivals: new Map(), count: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      r.count++;
      r.arrivals.set(String(req.headers['x-event-id']), performance.now());
      if (!hang) res.writeHead(204).end();
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

interface Env {
  handle: DbHandle;
  events: EventsRuntime;
  close(): Promise<void>;
}

function openEnv(dir: string, name: string): Env {
  const handle = openDatabase(path.join(dir, `${name}.sqlite`));
  const events = createEventsRuntime({ db: handle.db, sqlite: handle.sqlite, clock: systemClock, logger: silentLogger });
  return {
    handle,
    events,
    async close() {
      await events.stop(0);
      await handle.close();
    },
  };
}

async function waitFor(cond: () => boolean, what: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`bench: gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** A backlog of `events` recorded with the worker stopped, then drained: deliveries per second. */
async function throughput(dir: string, webhooks: number, events: number) {
  const env = openEnv(dir, `throughput-${webhooks}`);
  const rx = await receiver();
  try {
    const deps = { db: env.handle.db, clock: systemClock, events: env.events };
    for (let i = 0; i < webhooks; i++) await createWebhook(deps, { url: rx.url, events: ['job.*'], secret: 'bench-secret-0123456789' });
    for (let i = 0; i < events; i++) await env.events.recordNow('job.completed', { id: `job_${i}`, status: 'completed' });
    const total = events * webhooks;
    const t0 = performance.now();
    env.events.start();
    await waitFor(() => rx.count >= total, `${total} deliveries`, 120_000);
    const seconds = (performance.now() - t0) / 1000;
    return { webhooks, deliveries: total, seconds: round(seconds, 2), per_s: Math.round(total / seconds) };
  } finally {
    await env.close();
    await rx.close();
  }
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

type Neighbours = 'none' | 'fast' | 'hanging';
const PACE_MS = 25;

/**
 * Events at a steady pace to a healthy receiver: its latency alone and beside 8 webhooks on a receiver that never
 * answers (latency counts from the commit, so writing the extra delivery rows is not in it); the difference is what the
 * hanging receiver adds. Beside 8 webhooks on a fast receiver is shown for scale: those deliveries are real work
 * sharing one event loop (and the receivers run in this process too).
 */
async function latencies(dir: string, name: string, events: number, neighbours: Neighbours) {
  const env = openEnv(dir, name);
  const fine = await receiver();
  const other = await receiver(neighbours === 'hanging');
  try {
    const deps = { db: env.handle.db, clock: systemClock, events: env.events };
    await createWebhook(deps, { url: fine.url, events: ['printer.*'], secret: 'bench-secret-0123456789' });
    if (neighbours !== 'none') {
      // Several webhooks, so a hanging receiver holds more than one slot of the worker.
      for (let i = 0; i < 8; i++) await createWebhook(deps, { url: other.url, events: ['*'], secret: 'bench-secret-0123456789' });
    }
    env.events.start();
    const committed = new Map<string, number>();
    for (let i = 0; i < events; i++) {
      const e = await env.events.recordNow('printer.online', { id: `prt_${i}` });
      committed.set(e.id, performance.now());
      // A pace the worker keeps up with even for 9 webhooks, so latency shows blocking rather than a backlog.
      await new Promise((r) => setTimeout(r, PACE_MS));
    }
    await waitFor(() => fine.count >= events, 'the healthy receiver', 60_000);
    const ms = [...committed].map(([id, t]) => (fine.arrivals.get(id) as number) - t);
    return { p50: percentile(ms, 50), p99: percentile(ms, 99), otherAttempts: other.count };
  } finally {
    await env.close();
    await fine.close();
    await other.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-webhooks-'));
  try {
    const n = QUICK ? 300 : 2000;
    const rows = [];
    for (const webhooks of [1, 4]) {
      progress(`throughput: ${n} events to ${webhooks} webhook(s) on one local receiver`);
      rows.push(await throughput(dir, webhooks, QUICK ? n / webhooks : n));
    }
    const m = QUICK ? 60 : 200;
    progress(`isolation: ${m} events to a healthy receiver, alone`);
    const alone = await latencies(dir, 'alone', m, 'none');
    progress(`isolation: ${m} events to a healthy receiver beside 8 webhooks on another fast receiver`);
    const base = await latencies(dir, 'fast', m, 'fast');
    progress(`isolation: ${m} events to a healthy receiver beside 8 webhooks on a receiver that never answers`);
    const hang = await latencies(dir, 'hanging', m, 'hanging');

    const out: string[] = [];
    out.push('Webhook deliveries to a receiver on 127.0.0.1 (backlog drained, file database in WAL mode)');
    out.push('webhooks | deliveries | seconds | deliveries/s');
    for (const r of rows) out.push(`${String(r.webhooks).padStart(8)} | ${String(r.deliveries).padStart(10)} | ${String(r.seconds).padStart(7)} | ${String(r.per_s).padStart(12)}`);
    out.push('');
    out.push(`Latency commit -> arrival at a healthy receiver (${m} events, one every ~${PACE_MS} ms)`);
    out.push('case                       | p50 ms | p99 ms');
    const line = (name: string, r: { p50: number; p99: number }): string =>
      `${name.padEnd(26)} | ${round(r.p50).toString().padStart(6)} | ${round(r.p99).toString().padStart(6)}`;
    out.push(line('alone', alone));
    out.push(line('beside 8 fast webhooks', base));
    out.push(line('beside 8 hanging webhooks', hang));
    out.push(
      `added by the hanging receiver (hanging - alone): p50 ${round(hang.p50 - alone.p50)} ms, p99 ${round(hang.p99 - alone.p99)} ms ` +
        `(target: none); hanging attempts in flight: ${hang.otherAttempts}`,
    );
    process.stdout.write(out.join('\n') + '\n');
    if (JSON_OUT) {
      const json = {
        throughput: rows,
        isolation: {
          events: m,
          alone_p50_ms: round(alone.p50),
          alone_p99_ms: round(alone.p99),
          beside_fast_p50_ms: round(base.p50),
          beside_fast_p99_ms: round(base.p99),
          beside_hanging_p50_ms: round(hang.p50),
          beside_hanging_p99_ms: round(hang.p99),
          added_p50_ms: round(hang.p50 - alone.p50),
          added_p99_ms: round(hang.p99 - alone.p99),
          hanging_attempts: hang.otherAttempts,
        },
      };
      process.stdout.write(JSON.stringify(json) + '\n');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench-webhooks: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
