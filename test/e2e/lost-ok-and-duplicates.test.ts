// Lost oks with send-ahead and doubled resend requests, end to end over sim://: the print completes exactly, never hangs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EventBus } from '../../src/events/event-bus.js';
import { createSimTransport, type SimTransport } from '../../src/transport/sim.transport.js';
import { writeGcode } from '../printers/gcode-fixture.js';
import { checkRecord, EventLog, newSession, within } from './e2e-harness.js';

/** Streams `moves` moves to a sim:// printer with `query`; returns what it ran, the expected lines and the counters. */
async function streamOnce(name: string, query: string, moves: number, limitMs: number) {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-e2e-'));
  const bus = new EventBus();
  const log = new EventLog(bus);
  let sim: SimTransport | null = null;
  const session = newSession(`sim://${name}?record=1&${query}`, bus, {
    autoReconnect: false,
    createTransport: (u) => (sim = createSimTransport(new URL(u))),
  });
  try {
    await within(session.connect(), 10_000, 'connect');
    const file = path.join(dir, `${name}.gcode`);
    const fx = await writeGcode(file, moves);
    const base = sim!.printer.executedJobLines().length;
    const job = await session.startJob({ jobId: `job_${name}`, filePath: file });
    const outcome = await within(job.finished, limitMs, `the ${name} job`).catch((err: Error) => {
      throw new Error(`${err.message}; host ${JSON.stringify(session.stats())}; printer ${JSON.stringify(sim!.printer.stats)}`);
    });
    return {
      outcome,
      check: checkRecord(sim!.printer.executedJobLines().slice(base), [...fx.stripped, 'M400']),
      host: session.stats()!,
      printer: { ...sim!.printer.stats },
      names: log.names(),
    };
  } finally {
    await session.disconnect();
    (sim as SimTransport | null)?.printer.close();
    await rm(dir, { recursive: true, force: true });
  }
}

test('lost oks with send-ahead (plain Marlin): the ok-timeout pokes M105, whose ok acknowledges the rest; exact, no hang', async () => {
  // Every 400th ok is never sent: the window shrinks by one each time until the poke heals it (one 15 s timeout).
  const r = await streamOnce('lostok', 'baud=0&speed=max&drop_ok_every=400', 1000, 45_000);
  assert.deepEqual(r.outcome, { status: 'completed' });
  assert.ok(r.check.exact, r.check.describe());
  assert.ok(r.printer.oksDropped >= 2, `oks dropped: ${r.printer.oksDropped}`);
  assert.ok(r.host.timeouts >= 1, 'recovery went through the ok-timeout');
  assert.deepEqual(r.names, ['printer.online', 'job.started', 'job.completed']);
});

test('lost oks with ADVANCED_OK: `ok N..` acknowledges cumulatively, so nothing waits for a timeout', async () => {
  const r = await streamOnce('advok', 'baud=0&speed=max&advanced_ok=1&drop_ok_every=25', 1500, 30_000);
  assert.deepEqual(r.outcome, { status: 'completed' });
  assert.ok(r.check.exact, r.check.describe());
  assert.ok(r.printer.oksDropped >= 50, `oks dropped: ${r.printer.oksDropped}`);
  assert.equal(r.host.timeouts, 0);
});

test('every resend request (and its ok) sent twice: no command runs twice, none is missing', async () => {
  const r = await streamOnce('dupres', 'baud=0&speed=max&duplicate_resend=1&error_rate=0.0002&seed=3', 1500, 45_000);
  assert.deepEqual(r.outcome, { status: 'completed' });
  assert.ok(r.check.exact, r.check.describe());
  assert.ok(r.printer.resendsRequested >= 3, `resend requests: ${r.printer.resendsRequested}`);
  // The host saw each request twice and honoured it once.
  assert.equal(r.host.resends, 2 * r.printer.resendsRequested);
  assert.equal(r.host.spuriousOks, 0);
});
