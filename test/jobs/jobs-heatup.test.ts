// Pause, resume and cancel over HTTP while a real-time virtual printer heats its bed: M108 on Marlin, pending_action on
// Klipper; the job follows each action within 2 s however long the printer's heat-up or park takes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FirmwareScripts } from '../../src/protocol/firmware-profile.js';
import { FAST_SESSIONS } from '../helpers/test-app.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { createJob, getJob, longGcode, setOrg, untilJob, untilStatus } from './jobs-harness.js';

/** The bed heat-up first (tens of seconds in real time), then a long print. */
const heatThenPrint = (bed: number): string => longGcode(400, [`M190 S${bed}`]);

describe('actions inside a heat-up', () => {
  let app: PrintersApp;
  before(async () => {
    app = await startPrintersApp();
  });
  after(() => app.close());

  /**
   * A printer at speed=1 whose job has started and whose firmware sits in M190, its first line (a second in; the
   * heat-up lasts far longer). Klipper reports temperatures only after the wait, so that cannot be the signal.
   */
  async function heating(name: string, url: string, bed: number) {
    const printer = await app.create({ name, connection_url: url });
    await app.untilStatus(printer.id, 'idle');
    const job = await createJob(app, heatThenPrint(bed), { printer_id: printer.id });
    await untilJob(app, job.id, (j) => j.status === 'printing', 'printing');
    await new Promise((r) => setTimeout(r, 1000));
    return { printer, job };
  }

  it('Marlin: pause answers 202 and the job is paused inside M190 (M108); DELETE cancels it with 200', async () => {
    const { printer, job } = await heating('m-heat', 'sim://api-heat-m?speed=1', 80);
    const pause = await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'pause' });
    assert.equal(pause.status, 202, JSON.stringify(pause.body));
    const paused = await untilStatus(app, job.id, 'paused');
    assert.equal(paused.pending_action, null);
    await app.until('a temperature report', async () => (await app.get(printer.id)).temperatures.bed !== null);
    const bed = (await app.get(printer.id)).temperatures;
    assert.ok(bed.bed !== null && bed.bed < 60, `parked long before the bed reached 80 °C (${bed.bed})`);
    assert.equal(bed.bed_target, 80, 'the pause keeps the targets');

    const del = await app.call('DELETE', `/v1/jobs/${job.id}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.equal(del.body.status, 'cancelled');
    assert.equal(del.body.pending_action, null);
  });

  it('Marlin: resume inside a broken heat-up: the job is printing within 2 s while the printer heats again; a pause breaks it again', async () => {
    const { printer, job } = await heating('m-resume', 'sim://api-heat-resume?speed=1', 80);
    assert.equal((await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'pause' })).status, 202);
    await untilStatus(app, job.id, 'paused');
    const t0 = Date.now();
    const resume = await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'resume' });
    assert.equal(resume.status, 202, JSON.stringify(resume.body));
    const resumed = await untilJob(app, job.id, (j) => j.status === 'printing', 'printing again', 2_000);
    const took = Date.now() - t0;
    assert.equal(resumed.pending_action, null);
    const p = await app.get(printer.id);
    assert.equal(p.status, 'printing');
    assert.ok((p.temperatures.bed ?? 0) < 70, `the re-run heat-up is still going (${p.temperatures.bed} °C of 80, ${took} ms after the resume)`);
    assert.equal(p.temperatures.bed_target, 80);
    // Paused again inside that heat-up: broken too, the head still parked.
    const again = await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'pause' });
    assert.equal(again.status, 202, JSON.stringify(again.body));
    await untilStatus(app, job.id, 'paused', 2_000);
    assert.equal((await app.call('DELETE', `/v1/jobs/${job.id}`)).status, 200);
  });

  it('Klipper: DELETE inside M190 answers 202 with pending_action cancel; the job is cancelled when the wait ends', async () => {
    const { job } = await heating('k-heat', 'sim://api-heat-k?profile=klipper&speed=1', 50);
    const del = await app.call('DELETE', `/v1/jobs/${job.id}`);
    assert.equal(del.status, 202, JSON.stringify(del.body));
    assert.equal(del.body.status, 'printing', 'never pretend the cancel happened');
    assert.equal(del.body.pending_action, 'cancel');
    assert.equal((await getJob(app, job.id)).pending_action, 'cancel');
    const cancelled = await untilStatus(app, job.id, 'cancelled', 30_000);
    assert.equal(cancelled.pending_action, null);
  });

  it('cool_on_pause: a pause turns the heaters off; the resume reheats and waits before printing on', async () => {
    await setOrg(app, { cool_on_pause: true });
    try {
      const printer = await app.create({ name: 'cool', connection_url: 'sim://api-cool?speed=5' });
      await app.untilStatus(printer.id, 'idle');
      const job = await createJob(app, longGcode(3000, ['M140 S60', 'M104 S200', 'M190 S60', 'M109 S200']), { printer_id: printer.id });
      await untilJob(app, job.id, (j) => j.status === 'printing' && j.progress > 1, 'printing past the heat-up');
      assert.equal((await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'pause' })).status, 202);
      const parkedAt = (await untilStatus(app, job.id, 'paused')).progress;
      await app.until('heaters off while paused', async () => {
        const t = (await app.get(printer.id)).temperatures;
        return t.hotend_target === 0 && t.bed_target === 0;
      });
      await app.until('the nozzle cooled', async () => ((await app.get(printer.id)).temperatures.hotend ?? 999) < 190);
      assert.equal((await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'resume' })).status, 202);
      // The job is printing from the resume on (the reheat is part of it); its lines go on once the nozzle is hot.
      await untilStatus(app, job.id, 'printing', 2_000);
      await untilJob(app, job.id, (j) => j.progress > parkedAt, 'printing on past the pause');
      const t = (await app.get(printer.id)).temperatures;
      assert.equal(t.hotend_target, 200);
      assert.ok((t.hotend ?? 0) >= 195, `printing resumed only once the nozzle was hot again (${t.hotend})`);
      assert.equal((await app.call('DELETE', `/v1/jobs/${job.id}`)).status, 200);
    } finally {
      await setOrg(app, { cool_on_pause: false });
    }
  });
});

describe('cancel after a pause inside a heat-up, on a printer whose cancel script parks for seconds', () => {
  // Lift, then present the bed: M84 answers only once every move is done (Marlin runs its planner dry), 4-5 s here.
  const scripts: Partial<FirmwareScripts> = { cancel: ['G91', 'G1 Z10 F600', 'G90', 'G1 X0 Y200 F3000', 'M104 S0', 'M140 S0', 'M107', 'M84'] };
  let app: PrintersApp;
  before(async () => {
    app = await startPrintersApp({ printers: { sessionOptions: { ...FAST_SESSIONS, scripts } } });
  });
  after(() => app.close());

  async function pausedInHeatUp(name: string) {
    const printer = await app.create({ name, connection_url: `sim://${name}?speed=1` });
    await app.untilStatus(printer.id, 'idle');
    const job = await createJob(app, heatThenPrint(80), { printer_id: printer.id });
    await untilJob(app, job.id, (j) => j.status === 'printing', 'printing');
    await app.until('the bed heating', async () => (await app.get(printer.id)).temperatures.bed_target === 80);
    assert.equal((await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'pause' })).status, 202);
    await untilStatus(app, job.id, 'paused');
    return { printer, job };
  }

  it('DELETE after pause and resume (the broken wait running again) answers cancelled within 2 s; the printer parks after', async () => {
    const { printer, job } = await pausedInHeatUp('api-cancel-resumed');
    assert.equal((await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'resume' })).status, 202);
    await new Promise((r) => setTimeout(r, 500));
    const t0 = Date.now();
    const del = await app.call('DELETE', `/v1/jobs/${job.id}`);
    const took = Date.now() - t0;
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.equal(del.body.status, 'cancelled');
    assert.ok(took < 2_000, `DELETE answered after ${took} ms`);
    // The printer goes on with its script: heaters off at once, the park and M84 later.
    await app.until('heaters off', async () => (await app.get(printer.id)).temperatures.bed_target === 0, 5_000);
  });

  it('the cancel action after a pause: the job reads cancelled within 2 s', async () => {
    const { printer, job } = await pausedInHeatUp('api-cancel-paused');
    const t0 = Date.now();
    assert.equal((await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'cancel' })).status, 202);
    await untilStatus(app, job.id, 'cancelled', 2_000);
    assert.ok(Date.now() - t0 < 2_000);
  });
});
