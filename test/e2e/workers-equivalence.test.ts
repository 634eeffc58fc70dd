// The api-pty-job scenario (a job over the API streamed to completion, then a second one cut by a thermal runaway)
// with the session on the main thread (--workers 0) and in a worker thread (--workers 2), to a virtual printer in the
// test's thread over TCP and over a real pseudo-terminal (serial://): every run delivers the same lines and writes the
// same job records and events.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobRecord } from '../../src/jobs/job-record.js';
import { createPtyPair, hasSocat, type PtyPair } from '../helpers/socat-pty.js';
import { attachPrinter, attachTcpPrinter } from './e2e-harness.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { createJob, gcode, jobEvents, untilStatus } from '../jobs/jobs-harness.js';

/** What one run produced, with ids and times left out: the part that must not depend on --workers. */
interface RunResult {
  executed: string[];
  jobs: Array<Partial<JobRecord>>;
  jobEvents: string[][];
  busEvents: string[];
}
const results = new Map<string, RunResult>();

/** A job record without what differs between any two runs (ids, times and the durations they imply). */
function comparable(job: JobRecord): Record<string, unknown> {
  const { id: _i, printer_id: _p, file_id: _f, created_at: _c, updated_at: _u, started_at: _s, finished_at: _e, ...rest } = job as JobRecord & Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) if (!/time|remaining|_at$/.test(k)) out[k] = v;
  return out;
}

/** The printer end of one run: the virtual printer and the URL the host connects to. */
interface Peer {
  printer: { executed: readonly string[] };
  url: string;
  close(): Promise<void>;
}

const links = {
  tcp: { name: 'TCP', skip: false as const, peer: async (): Promise<Peer> => {
    const sim = await attachTcpPrinter('speed=max&runaway_after_lines=400');
    return { printer: sim.printer, url: `tcp://127.0.0.1:${sim.port}`, close: () => sim.close() };
  } },
  pty: { name: 'a pseudo-terminal (serial://)', skip: hasSocat() ? (false as const) : 'socat is not installed', peer: async (): Promise<Peer> => {
    const pair: PtyPair = await createPtyPair();
    const sim = await attachPrinter(pair.devicePath, 'baud=250000&speed=max&runaway_after_lines=400');
    return { printer: sim.printer, url: `serial://${pair.hostPath}?baud=250000`, close: async () => {
      await sim.close();
      await pair.close();
    } };
  } },
};

for (const [kind, link] of Object.entries(links)) {
  for (const workers of [0, 2]) {
    describe(`a job over the API to a printer behind ${link.name} (--workers ${workers})`, { skip: link.skip }, () => {
      let app: PrintersApp;
      let sim: Peer;
      before(async () => {
        sim = await link.peer();
        app = await startPrintersApp({ workers });
      });
      after(async () => {
        await app.close();
        await sim.close();
      });

      it('prints to completion, every line received once, then fails on a thermal runaway', async () => {
        const seen = app.record('printer.online', 'printer.offline', 'printer.error', 'job.started', 'job.completed', 'job.failed', 'job.paused', 'job.resumed');
        const printer = await app.create({ name: 'link', connection_url: sim.url });
        if (workers > 0) assert.equal(typeof app.t.deps.printers.deps.workers?.workerOf(printer.id), 'number', 'the session is not in a worker');
        await app.untilStatus(printer.id, 'idle', 20_000);

        const job = await createJob(app, gcode({ moves: 150 }), { printer_id: printer.id });
        const done = await untilStatus(app, job.id, 'completed', 30_000);
        assert.equal(done.progress, 100);
        assert.equal(sim.printer.executed.filter((l) => /^G1 X1[01] Y10 E0\.05/.test(l)).length, 150);

        await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'ready' });
        const doomed = await createJob(app, gcode({ moves: 1000, tag: 'doomed' }), { printer_id: printer.id });
        const failed = await untilStatus(app, doomed.id, 'failed', 30_000);
        assert.equal(failed.error?.code, 'firmware_error');
        assert.equal((await app.get(printer.id)).status, 'error');
        results.set(`${kind} ${workers}`, {
          // Temperature polls come with time, not with the job: the job's own lines are compared.
          executed: sim.printer.executed.filter((l) => !/^M10[05]\b/.test(l)),
          jobs: [done, failed].map(comparable),
          jobEvents: [await jobEvents(app, job.id), await jobEvents(app, doomed.id)],
          busEvents: seen.map((e) => e.name),
        });
      });
    });
  }

  describe(`--workers 0 and --workers 2 over ${link.name}`, { skip: link.skip }, () => {
    it('delivered the same lines and wrote the same job records and events', () => {
      const one = results.get(`${kind} 0`);
      const two = results.get(`${kind} 2`);
      assert.ok(one && two, 'both runs finished');
      assert.deepEqual(two.executed, one.executed);
      assert.deepEqual(two.jobs, one.jobs);
      assert.deepEqual(two.jobEvents, one.jobEvents);
      assert.deepEqual(two.busEvents, one.busEvents);
    });
  });
}
