// End to end through the API and a real pseudo-terminal: a printer added as serial:// (the real serialport binding,
// line parser and protocol), a job uploaded over HTTP, scheduled, streamed over the pty to the virtual firmware on the
// other end, and completed — then a second job cut by a thermal runaway fails.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPtyPair, hasSocat, type PtyPair } from '../helpers/socat-pty.js';
import { attachPrinter } from './e2e-harness.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { createJob, gcode, untilStatus } from '../jobs/jobs-harness.js';

describe('a job over the API on a serial printer behind a pseudo-terminal', { skip: !hasSocat() && 'socat is not installed' }, () => {
  let app: PrintersApp;
  let pair: PtyPair;
  let sim: Awaited<ReturnType<typeof attachPrinter>>;
  before(async () => {
    pair = await createPtyPair();
    sim = await attachPrinter(pair.devicePath, 'baud=250000&speed=max&runaway_after_lines=400');
    app = await startPrintersApp();
  });
  after(async () => {
    await app.close();
    await sim.close();
    await pair.close();
  });

  it('prints to completion, every line received once, then fails on a thermal runaway', async () => {
    const printer = await app.create({ name: 'usb', connection_url: `serial://${pair.hostPath}?baud=250000` });
    await app.untilStatus(printer.id, 'idle', 20_000);
    assert.match((await app.get(printer.id)).firmware ?? '', /Marlin/);

    const job = await createJob(app, gcode({ moves: 150 }), { printer_id: printer.id });
    const done = await untilStatus(app, job.id, 'completed', 30_000);
    assert.equal(done.progress, 100);
    // The firmware on the other end of the pty executed each move of the file exactly once.
    const moves = sim.printer.executed.filter((l) => /^G1 X1[01] Y10 E0\.05/.test(l));
    assert.equal(moves.length, 150);

    await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'ready' });
    const doomed = await createJob(app, gcode({ moves: 1000, tag: 'doomed' }), { printer_id: printer.id });
    const failed = await untilStatus(app, doomed.id, 'failed', 30_000);
    assert.equal(failed.error?.code, 'firmware_error');
    assert.equal((await app.get(printer.id)).status, 'error');
  });
});
