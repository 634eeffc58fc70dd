// 100,000+ lines through corrupted links (byte error rates 1e-4 and 1e-3): the printer must run exactly the file, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EventBus } from '../../src/events/event-bus.js';
import { createSimTransport, type SimTransport } from '../../src/transport/sim.transport.js';
import { writeGcode } from '../printers/gcode-fixture.js';
import { checkRecord, EventLog, newSession, within } from './e2e-harness.js';

const MOVES = 100_000;

/*
 * Native-USB link (baud=0: no rate limit, a full 128-byte RX buffer pushes back), instant motion, corruption on the
 * host->printer wire only. The printer's record is compared line by line with the stripped file.
 * Two kinds of damage no line protocol with an XOR checksum can catch are counted, not failed (see checkRecord):
 * two flips of the same bit in one line, and a line whose `N` and `*` were both destroyed (run as an unknown command).
 */
async function integrityRun(errorRate: number, seed: number, limitMs: number) {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-fault-'));
  const bus = new EventBus();
  const log = new EventLog(bus);
  let sim: SimTransport | null = null;
  const session = newSession(`sim://fi?record=1&baud=0&speed=max&error_rate=${errorRate}&seed=${seed}`, bus, {
    autoReconnect: false,
    createTransport: (u) => (sim = createSimTransport(new URL(u))),
  });
  try {
    const file = path.join(dir, 'big.gcode');
    const fx = await writeGcode(file, MOVES);
    await within(session.connect(), 10_000, 'connect');
    const printer = sim!.printer;
    const base = printer.executedJobLines().length;
    const job = await session.startJob({ jobId: 'job_fi', filePath: file });
    const outcome = await within(job.finished, limitMs, `${fx.stripped.length} lines at error rate ${errorRate}`).catch(
      (err: Error) => {
        throw new Error(
          `${err.message}; acked ${job.snapshot().lines_acked}; host ${JSON.stringify(session.stats())}; ` +
            `printer ${JSON.stringify(printer.stats)}`,
        );
      },
    );
    const expected = [...fx.stripped, 'M400'];
    return { outcome, expected, check: checkRecord(printer.executedJobLines().slice(base), expected), host: session.stats()!, printer: printer.stats, names: log.names() };
  } finally {
    await session.disconnect();
    (sim as SimTransport | null)?.printer.close();
    await rm(dir, { recursive: true, force: true });
  }
}

for (const [errorRate, limitMs] of [
  [1e-4, 50_000],
  [1e-3, 60_000],
] as const) {
  test(`error rate ${errorRate}: every line of a ${MOVES}-move file ran exactly once, in order`, async (t) => {
    const r = await integrityRun(errorRate, 11, limitMs);
    t.diagnostic(
      `resends ${r.host.resends} (ratio ${(r.host.linesResent / r.host.linesSent).toFixed(4)}), timeouts ${r.host.timeouts}, ` +
        `corrupted bytes ${r.printer.bytesCorrupted}, ${r.check.describe()}`,
    );
    assert.deepEqual(r.outcome, { status: 'completed' });
    assert.ok(r.expected.length > 100_000);
    assert.equal(r.check.firstBadIndex, -1, r.check.describe());
    assert.ok(r.printer.bytesCorrupted > 0 && r.host.resends > 0, 'the link really was noisy');
    assert.deepEqual(r.names, ['printer.online', 'job.started', 'job.completed']);
  });
}
