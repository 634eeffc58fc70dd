// A job's whole life over HTTP on virtual printers: queued → printing → completed with slicer metadata and events;
// pause, resume and cancel through printer actions and DELETE; failure on a thermal runaway; PATCH rules.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fastSim, longJobSim, startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { createJob, gcode, getJob, jobEvents, longGcode, setOrg, untilJob, untilStatus } from './jobs-harness.js';


describe('job lifecycle', () => {
  let app: PrintersApp;
  before(async () => {
    app = await startPrintersApp();
  });
  after(() => app.close());

  it('prints a multipart job to completion: metadata, live fields, events, printer not ready after', async () => {
    const printer = await app.create({ name: 'fast', connection_url: fastSim('life-fast') });
    await app.untilStatus(printer.id, 'idle');
    const job = await createJob(app, gcode({ minutes: 12, grams: 3.5, type: 'PETG', nozzle: 0.4 }), { name: 'bracket', tags: ['a', 'b'] });
    assert.equal(job.status, 'queued');
    assert.equal(job.name, 'bracket');
    assert.equal(job.estimated_duration, 720);
    assert.deepEqual(job.material, { type: 'PETG', color: null, estimated_usage: 3.5, used: null, used_basis: null });
    assert.equal(job.nozzle_diameter, 0.4);
    assert.deepEqual(job.tags, ['a', 'b']);
    assert.deepEqual(job.job_ids, [job.id]);
    assert.match(job.file_id ?? '', /^file_/);

    const done = await untilStatus(app, job.id, 'completed');
    assert.equal(done.printer_id, printer.id);
    assert.equal(done.progress, 100);
    assert.ok(done.started_at && done.completed_at && done.completed_at >= done.started_at);
    assert.equal(done.error, null);
    assert.equal(done.estimated_remaining, null);
    assert.deepEqual(await jobEvents(app, job.id), ['job.created', 'job.started', 'job.completed']);
    // The printer printed: its bed must be cleared before the next job (stored, so a restart remembers).
    await app.until('printer not ready', async () => (await app.get(printer.id)).ready === false);

    const file = await app.call('GET', `/v1/files/${job.file_id}`);
    assert.equal(file.status, 200);
    assert.equal(file.body.estimated_duration, 720);
  });

  it('pauses, resumes and cancels through printer actions; DELETE cancels; events follow', async () => {
    const printer = await app.create({ name: 'long', connection_url: longJobSim('life-long') });
    await app.untilStatus(printer.id, 'idle');
    const job = await createJob(app, longGcode(3000, ['; estimated printing time (normal mode) = 1m 0s']), { printer_id: printer.id });
    await untilJob(app, job.id, (j) => j.status === 'printing' && j.progress > 0, 'printing with progress');

    const pause = await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'pause' });
    assert.equal(pause.status, 202, JSON.stringify(pause.body));
    const paused = await untilStatus(app, job.id, 'paused');
    const elapsedAtPause = paused.elapsed_time;
    assert.equal((await app.call('PATCH', `/v1/jobs/${job.id}`, { priority: 'urgent' })).body.error.code, 'invalid_state');
    const renamed = await app.call('PATCH', `/v1/jobs/${job.id}`, { name: 'renamed while paused', tags: ['x'] });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'renamed while paused');

    const resume = await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'resume' });
    assert.equal(resume.status, 202, JSON.stringify(resume.body));
    const resumed = await untilStatus(app, job.id, 'printing');
    assert.ok(resumed.elapsed_time >= elapsedAtPause);

    const del = await app.call('DELETE', `/v1/jobs/${job.id}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.equal(del.body.status, 'cancelled');
    assert.ok(del.body.completed_at);
    assert.ok(del.body.progress > 0 && del.body.progress < 100, String(del.body.progress));
    assert.deepEqual(await jobEvents(app, job.id), ['job.created', 'job.started', 'job.paused', 'job.resumed', 'job.cancelled']);
    await app.untilStatus(printer.id, 'idle');

    const again = await app.call('DELETE', `/v1/jobs/${job.id}`);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'invalid_state');
    assert.match(again.body.error.message, /cancelled/);
  });

  it('fails the job on a thermal runaway, with the firmware error', async () => {
    const printer = await app.create({ name: 'hot', connection_url: 'sim://life-runaway?speed=max&runaway_after_lines=200' });
    await app.untilStatus(printer.id, 'idle');
    await setOrg(app, { auto_start: true });
    const job = await createJob(app, gcode({ moves: 2000 }), { printer_id: printer.id });
    const failed = await untilStatus(app, job.id, 'failed');
    assert.equal(failed.error?.code, 'firmware_error');
    assert.match(failed.error?.message ?? '', /runaway|halted/i);
    assert.ok(failed.completed_at);
    assert.deepEqual(await jobEvents(app, job.id), ['job.created', 'job.started', 'job.failed']);
    assert.equal((await app.get(printer.id)).status, 'error');
  });

  it('a queued job is cancelled at once, and changes while queued', async () => {
    // Pinned to a printer that is offline, so it stays queued.
    const printer = await app.create({ name: 'away', connection_url: 'tcp://127.0.0.1:9' });
    const job = await createJob(app, gcode(), { printer_id: printer.id, priority: 'low' });
    const waiting = await untilJob(app, job.id, (j) => j.waiting_reason !== null, 'to get a waiting reason');
    assert.equal(waiting.status, 'queued');
    const patched = await app.call('PATCH', `/v1/jobs/${job.id}`, { priority: 'urgent', material: { type: 'PLA', color: 'red' }, group: 'bay' });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.priority, 'urgent');
    assert.deepEqual(patched.body.material, { type: 'PLA', color: 'red', estimated_usage: 3.5, used: null, used_basis: null });
    assert.equal(patched.body.group, 'bay');
    const bad = await app.call('PATCH', `/v1/jobs/${job.id}`, { status: 'completed' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /status/);
    const unknownPrinter = await app.call('PATCH', `/v1/jobs/${job.id}`, { printer_id: 'prt_doesnotexist' });
    assert.equal(unknownPrinter.status, 400);
    assert.equal(unknownPrinter.body.error.code, 'invalid_printer');
    const cancelled = await app.call('DELETE', `/v1/jobs/${job.id}`);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(cancelled.body.waiting_reason, null);
    assert.deepEqual(await jobEvents(app, job.id), ['job.created', 'job.cancelled']);
    assert.equal((await getJob(app, job.id)).status, 'cancelled');
  });
});
