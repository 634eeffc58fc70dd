// The PrusaLink driver against the stand-in over real HTTP: identify, a job from upload to its end, pause, resume,
// cancel, filament from the reported percentage, adoption after our restart, a print started on the printer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AppError } from '../../../src/errors.js';
import type { PrusaLinkJobSnapshot } from '../../../src/printers/prusalink/prusalink-job.js';
import { bgcodeAround } from '../../helpers/bgcode-builder.js';
import { externalPrinting, gcodeText, mmUpTo, named, rig, until } from './prusalink-harness.js';

test('identify: Digest login, firmware from /api/version, idle, printer.online', async () => {
  const r = await rig();
  try {
    const p = r.driver();
    await p.connect();
    const s = p.snapshot();
    assert.equal(s.status, 'idle');
    assert.match(s.firmware!.name, /^PrusaLink, firmware 6\.2\.0/);
    assert.equal(s.firmware!.profile, 'prusalink');
    assert.equal(s.firmware!.capabilities.console, false);
    assert.equal(s.offline_reason, null);
    assert.equal(named(r, 'printer.online').length, 1);
    assert.ok(typeof s.temperatures.hotend === 'number');
    assert.equal(p.stats(), null);
    assert.ok(p.linkInfo().connectedAt !== null);
  } finally {
    await r.close();
  }
});

test('upload + start, progress, pause, resume, cancel; filament from the percentage within 1 % of the hand count', async () => {
  // The printer starts a print a few polls after the upload, as a real one does.
  const r = await rig({ startDelayMs: 150 });
  try {
    const p = r.driver();
    await p.connect();
    const text = gcodeText(400);
    const path = await r.file('cube.gcode', text);
    const handle = await p.startJob({ jobId: 'job-1', filePath: path, remoteName: 'job-1-abc.gcode' });
    assert.equal(p.currentStatus, 'printing');
    assert.ok(r.standIn.files.has('job-1-abc.gcode'), 'stored under the remote name');
    assert.deepEqual(named(r, 'job.started'), [{ printer_id: 'p1', job_id: 'job-1' }]);
    await until(() => handle.snapshot().progress >= 20, 'progress 20 %');
    assert.ok(named(r, 'job.progress').length > 0);

    await p.pause();
    assert.equal(p.currentStatus, 'paused');
    assert.equal(r.standIn.host.state, 'PAUSED');
    assert.equal(named(r, 'job.paused').length, 1);
    // One more poll so the snapshot holds the percentage the printer shows while paused.
    await new Promise((res) => setTimeout(res, 120));
    const snap = handle.snapshot() as PrusaLinkJobSnapshot;
    assert.equal(snap.phase, 'paused');
    assert.equal(snap.used_basis, 'progress_percent');
    assert.equal(snap.bytes_total, Buffer.byteLength(text));
    const byHand = mmUpTo(text, Math.round((snap.progress / 100) * Buffer.byteLength(text)));
    assert.ok(byHand > 50, `some filament by hand (${byHand})`);
    assert.ok(Math.abs(snap.extruded_mm[0]! - byHand) <= byHand * 0.01, `driver ${snap.extruded_mm[0]} vs hand ${byHand}`);

    await p.resume();
    assert.equal(p.currentStatus, 'printing');
    assert.equal(named(r, 'job.resumed').length, 1);
    await until(() => handle.snapshot().progress > snap.progress, 'progress after resume');

    await p.cancel();
    assert.deepEqual(await handle.finished, { status: 'cancelled' });
    assert.equal(named(r, 'job.cancelled').length, 1);
    assert.equal(r.standIn.host.state, 'STOPPED');
    const last = handle.snapshot();
    assert.ok(last.extruded_mm[0]! >= byHand, 'the cancelled job is charged what was extruded');
    assert.equal(p.currentStatus, 'idle');
    assert.equal(p.snapshot().ready, false, 'the bed must be cleared before the next job');
    await assert.rejects(p.startJob({ jobId: 'job-2', filePath: path }), (e: AppError) => e.code === 'printer_busy');
    p.markReady();
    assert.equal(p.snapshot().ready, true);
    // The job again under the same remote name, while the printer still shows the stopped one (same file name):
    // that STOPPED is not the new print's end.
    const next = await p.startJob({ jobId: 'job-1', filePath: await r.file('short.gcode', gcodeText(30)), remoteName: 'job-1-abc.gcode' });
    assert.deepEqual(await next.finished, { status: 'completed' });
    assert.deepEqual(next.snapshot().extruded_mm, [30]);
  } finally {
    await r.close();
  }
});

test('a job runs to its end: completed, 100 %, the whole file\'s filament', async () => {
  const r = await rig();
  try {
    const p = r.driver();
    await p.connect();
    const text = gcodeText(60);
    const handle = await p.startJob({ jobId: 'job-c', filePath: await r.file('small.gcode', text) });
    assert.deepEqual(await handle.finished, { status: 'completed' });
    assert.ok(r.standIn.files.has('job-c.gcode'), 'the default remote name is <jobId>.gcode');
    const snap = handle.snapshot();
    assert.equal(snap.progress, 100);
    assert.deepEqual(snap.extruded_mm, [60]);
    assert.equal(named(r, 'job.completed').length, 1);
    assert.equal(p.snapshot().job, null);
    assert.equal(p.currentStatus, 'idle');
  } finally {
    await r.close();
  }
});

test('console, home, cooldown and emergency stop say PrusaLink has none (409), nothing is pretended', async () => {
  const r = await rig();
  try {
    const p = r.driver();
    await p.connect();
    await assert.rejects(p.sendCommand('M105'), (e: AppError) => e.status === 409 && /no G-code console/.test(e.message));
    await assert.rejects(p.home(), (e: AppError) => e.status === 409);
    await assert.rejects(p.cooldown(), (e: AppError) => e.status === 409);
    assert.throws(() => p.emergencyStop(), (e: AppError) => e.status === 409 && /emergency stop/.test(e.message));
  } finally {
    await r.close();
  }
});

test('our restart mid-print: a new driver adopts the print by its remote name and sees it to its end', async () => {
  const r = await rig();
  try {
    const first = r.driver();
    await first.connect();
    const path = await r.file('long.gcode', gcodeText(150));
    const started = Date.now();
    const h1 = await first.startJob({ jobId: 'job-a', filePath: path, remoteName: 'job-a-123.gcode' });
    await until(() => h1.snapshot().progress >= 10, 'progress before the restart');
    await first.disconnect();

    const second = r.driver();
    await second.connect();
    assert.equal(second.currentStatus, 'printing');
    assert.equal(await second.adoptJob({ jobId: 'other', filePath: path, remoteName: 'not-this.gcode', startedAt: started }), null);
    const h2 = await second.adoptJob({ jobId: 'job-a', filePath: path, remoteName: 'job-a-123.gcode', startedAt: started });
    assert.ok(h2);
    assert.equal(second.snapshot().external_job, null);
    assert.equal(second.snapshot().job?.id, 'job-a');
    assert.deepEqual(await h2.finished, { status: 'completed' });
    assert.equal(h2.snapshot().started_at, started);
    assert.equal(named(r, 'printer.external_job_ended').length, 0, 'the adopted print is not an external one');
  } finally {
    await r.close();
  }
});

test('a print that ended while we were down is not adopted: the firmware names no job in FINISHED', async () => {
  // Prusa-Firmware-Buddy answers GET /api/v1/job with 204 in FINISHED (printer_state::has_job is false there): nothing
  // says the finished print was ours, so the job is not claimed as completed on a guess (the job runner fails it).
  const r = await rig();
  try {
    const first = r.driver();
    await first.connect();
    const path = await r.file('short.gcode', gcodeText(40));
    await first.startJob({ jobId: 'job-f', filePath: path, remoteName: 'job-f-1.gcode' });
    await first.disconnect();
    await until(() => r.standIn.host.state === 'FINISHED', 'the printer to finish');
    const second = r.driver();
    await second.connect();
    assert.equal(await second.adoptJob({ jobId: 'job-f', filePath: path, remoteName: 'job-f-1.gcode', startedAt: Date.now() }), null);
    assert.equal(second.currentStatus, 'idle');
    assert.equal(second.snapshot().external_job, null);
  } finally {
    await r.close();
  }
});

test('a print started on the printer: external_job, no job, busy for us, recorded when it ends', async () => {
  const r = await rig();
  try {
    const p = await externalPrinting(r, 80);
    const s = p.snapshot();
    assert.equal(s.status, 'printing');
    assert.equal(s.job, null);
    assert.equal(s.external_job!.file_name, 'benchy.gcode');
    await assert.rejects(p.startJob({ jobId: 'x', filePath: await r.file('x.gcode', gcodeText(2)) }), (e: AppError) => e.code === 'printer_busy');
    await until(() => named(r, 'printer.external_job_ended').length === 1, 'the external print to end');
    const ended = named(r, 'printer.external_job_ended')[0]!;
    assert.equal(ended.file_name, 'benchy.gcode');
    assert.equal(ended.status, 'completed');
    assert.ok(ended.ended_at >= ended.started_at);
    assert.equal(p.snapshot().external_job, null);
    assert.equal(p.currentStatus, 'idle');
  } finally {
    await r.close();
  }
});

test('a binary G-code job: stored as .bgcode, filament from its metadata total at the reported percentage', async () => {
  const r = await rig();
  try {
    const p = r.driver();
    await p.connect();
    const path = await r.file('part.bgcode', bgcodeAround(gcodeText(300), 'filament used [mm]=300\nfilament used [g]=0.9\n', 2048));
    const h = await p.startJob({ jobId: 'job-b', filePath: path });
    assert.ok(r.standIn.files.has('job-b.bgcode'), 'the default remote name keeps the binary extension');
    await until(() => h.snapshot().progress >= 20, 'progress');
    await p.pause();
    await new Promise((res) => setTimeout(res, 120));
    const snap = h.snapshot() as PrusaLinkJobSnapshot;
    assert.equal(snap.used_basis, 'progress_percent');
    const byHand = (300 * snap.progress) / 100;
    assert.ok(Math.abs(snap.extruded_mm[0]! - byHand) <= byHand * 0.01, `driver ${snap.extruded_mm[0]} vs hand ${byHand}`);
    await p.resume();
    assert.deepEqual(await h.finished, { status: 'completed' });
    assert.deepEqual(h.snapshot().extruded_mm, [300]);
  } finally {
    await r.close();
  }
});
