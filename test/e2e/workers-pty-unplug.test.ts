// A serial:// printer whose session lives in a worker thread (--workers 2), behind `printfarm simulate` on a real
// pseudo-terminal: pulling the device mid-print takes it offline and fails the job (link_lost); when the device node
// comes back at the same path the session's back-off reconnects it, as on the main thread.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hasSocat } from '../helpers/socat-pty.js';
import { createJob, longGcode, untilJob, untilStatus } from '../jobs/jobs-harness.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { startSimulateProcess } from './e2e-harness.js';

const SIM_ARGS = ['--baud', '250000', '--speed', 'max'];

describe('a serial printer in a worker thread, unplugged and plugged back', { skip: !hasSocat() && 'socat is not installed' }, () => {
  let app: PrintersApp;
  let dir: string;
  let sim: Awaited<ReturnType<typeof startSimulateProcess>> | null = null;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pf-workers-unplug-'));
    app = await startPrintersApp({ workers: 2 });
  });
  after(async () => {
    await app.close();
    await sim?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('goes offline and fails its job (link_lost), then reconnects when the device is back', async () => {
    const ptyPath = path.join(dir, 'printer0');
    sim = await startSimulateProcess(ptyPath, SIM_ARGS);
    const printer = await app.create({ name: 'usb', connection_url: `serial://${ptyPath}?baud=250000` });
    assert.equal(typeof app.t.deps.printers.deps.workers?.workerOf(printer.id), 'number', 'the session is not in a worker');
    await app.untilStatus(printer.id, 'idle', 20_000);

    const job = await createJob(app, longGcode(30_000), { printer_id: printer.id });
    await untilJob(app, job.id, (j) => j.status === 'printing' && (j.progress ?? 0) > 0, 'to print');
    const seen = app.record('printer.offline', 'printer.online', 'job.failed');
    await sim.stop(); // socat and the simulator exit: the tty vanishes under the open port
    sim = null;

    const failed = await untilStatus(app, job.id, 'failed', 20_000);
    assert.equal(failed.error?.code, 'link_lost');
    await app.untilStatus(printer.id, 'offline', 20_000);
    const offline = await app.get(printer.id);
    assert.match(offline.error?.message ?? '', /link lost: device disconnected|cannot open serial port/);

    // Hot-plug: the device node reappears at the same path; the session's back-off (in the worker) finds it.
    sim = await startSimulateProcess(ptyPath, SIM_ARGS);
    await app.untilStatus(printer.id, 'idle', 30_000);
    assert.equal((await app.get(printer.id)).offline_reason, null);
    assert.deepEqual(
      seen.filter((e) => e.printer_id === printer.id).map((e) => e.name),
      ['job.failed', 'printer.offline', 'printer.online'],
    );
  });
});
