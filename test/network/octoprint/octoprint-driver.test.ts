// The OctoPrint driver against the stand-in over real HTTP and websockets: identify, print, pause, resume, cancel,
// console replies, consumption from the file position, completion, re-adoption after our restart, external prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { handExtruded, rig, testGcode, until } from './octoprint-harness.js';

test('identify, upload + start, progress, pause, resume, console reply, cancel charged from the file position', async () => {
  const r = await rig();
  try {
    await r.driver.connect();
    const snap = r.driver.snapshot();
    assert.equal(snap.status, 'idle');
    assert.equal(snap.firmware?.name, 'OctoPrint 1.10.3');
    assert.equal(snap.offline_reason, null);
    await until('the push socket', () => r.driver.pushing);
    await until('temperatures', () => r.driver.snapshot().temperatures.hotend !== undefined);

    const text = testGcode(400);
    const path = r.file('job.gcode', text);
    const handle = await r.driver.startJob({ jobId: 'job_1', filePath: path, remoteName: 'job_1-abc.gcode' });
    assert.ok(r.standIn.files.has('job_1-abc.gcode'), 'uploaded under the remote name');
    assert.equal(r.driver.currentStatus, 'printing');
    await until('progress', () => handle.snapshot().bytes_acked > 300);
    assert.ok(r.events.some((e) => e.name === 'job.started'));
    assert.ok(r.events.some((e) => e.name === 'job.progress'));

    await r.driver.pause();
    assert.equal(r.driver.currentStatus, 'paused');
    assert.equal(handle.snapshot().phase, 'paused');
    assert.ok(r.events.some((e) => e.name === 'job.paused'));
    const reply = await r.driver.sendCommand('M115');
    assert.equal(reply.ok, true);
    assert.ok(reply.lines.some((l) => l.startsWith('FIRMWARE_NAME:')), JSON.stringify(reply));
    await r.driver.resume();
    await until('printing again', () => r.driver.currentStatus === 'printing');
    assert.ok(r.events.some((e) => e.name === 'job.resumed'));
    await assert.rejects(r.driver.resume(), /cannot resume/);

    await r.driver.cancel();
    const outcome = await handle.finished;
    assert.deepEqual(outcome, { status: 'cancelled' });
    assert.ok(r.events.some((e) => e.name === 'job.cancelled'));
    assert.equal(r.driver.currentStatus, 'idle');
    const s = handle.snapshot();
    assert.ok(s.bytes_acked > 0 && s.bytes_acked < s.bytes_total, `cancelled mid-file at ${s.bytes_acked}`);
    const expected = handExtruded(text, s.bytes_acked);
    assert.ok(expected > 0);
    assert.ok(Math.abs(s.extruded_mm[0]! - expected) <= expected * 0.01, `extruded ${s.extruded_mm[0]} vs hand ${expected}`);
    assert.equal(r.driver.snapshot().ready, false);
    await assert.rejects(r.driver.startJob({ jobId: 'job_2', filePath: path }), /bed to be cleared/);
  } finally {
    await r.close();
  }
});

test('a print that runs to its end completes with the whole file charged', async () => {
  const r = await rig({ standIn: { simulator: { speed: 'max' } } });
  try {
    await r.driver.connect();
    const text = testGcode(60);
    const handle = await r.driver.startJob({ jobId: 'job_c', filePath: r.file('c.gcode', text) });
    assert.deepEqual(await handle.finished, { status: 'completed' });
    assert.ok(r.standIn.files.has('job_c.gcode'), 'default remote name is the job id');
    const s = handle.snapshot();
    assert.equal(s.progress, 100);
    assert.equal(s.extruded_mm[0], 30);
    assert.ok(r.events.some((e) => e.name === 'job.completed'));
  } finally {
    await r.close();
  }
});

test('polling every pollMs when the push socket is refused: the job still progresses, pauses and completes', async () => {
  const r = await rig({ standIn: { faults: { drop_socket: true } } });
  try {
    await r.driver.connect();
    const handle = await r.driver.startJob({ jobId: 'job_p', filePath: r.file('p.gcode', testGcode(150)) });
    await until('progress by polling', () => handle.snapshot().bytes_acked > 200);
    assert.equal(r.driver.pushing, false);
    await r.driver.pause();
    assert.equal(r.driver.currentStatus, 'paused');
    // Without the socket there is no terminal log to read a reply from: the command is sent, the reply is empty.
    assert.deepEqual(await r.driver.sendCommand('M105'), { ok: true, lines: [] });
    await r.driver.resume();
    assert.deepEqual(await handle.finished, { status: 'completed' });
  } finally {
    await r.close();
  }
});

test('our restart mid-print: a new driver adopts the job by its remote name and follows it to the end', async () => {
  const r = await rig();
  try {
    await r.driver.connect();
    const path = r.file('a.gcode', testGcode(200));
    const first = await r.driver.startJob({ jobId: 'job_a', filePath: path, remoteName: 'job_a-123.gcode' });
    await until('progress', () => first.snapshot().bytes_acked > 200);
    await r.driver.disconnect(); // the process goes away; OctoPrint prints on
    const startedAt = first.snapshot().started_at;

    const again = r.newDriver();
    await again.connect();
    assert.equal(again.currentStatus, 'printing');
    assert.equal(await again.adoptJob!({ jobId: 'job_x', filePath: path, remoteName: 'other.gcode', startedAt }), null);
    const handle = await again.adoptJob!({ jobId: 'job_a', filePath: path, remoteName: 'job_a-123.gcode', startedAt });
    assert.ok(handle);
    assert.equal(again.snapshot().external_job, null);
    assert.equal(again.snapshot().job?.id, 'job_a');
    assert.deepEqual(await handle.finished, { status: 'completed' });
    assert.ok(!r.events.some((e) => e.name === 'printer.external_job_ended'), 'an adopted job is not an external print');
  } finally {
    await r.close();
  }
});

test('a print started on OctoPrint itself is an external job, and its end is reported', async () => {
  const r = await rig();
  try {
    await r.driver.connect();
    assert.ok(r.standIn.startExternalPrint('benchy.gcode', testGcode(120)));
    await until('external job', () => r.driver.snapshot().external_job != null);
    const snap = r.driver.snapshot();
    assert.equal(snap.status, 'printing');
    assert.equal(snap.job, null);
    assert.equal(snap.external_job?.file_name, 'benchy.gcode');
    await assert.rejects(r.driver.startJob({ jobId: 'j', filePath: r.file('x.gcode', 'G28\n') }), /printer_busy|is printing/);
    await until('external end', () => r.events.some((e) => e.name === 'printer.external_job_ended'), 20_000);
    const end = r.events.find((e) => e.name === 'printer.external_job_ended')!.payload as { file_name: string; status: string; started_at: number; ended_at: number };
    assert.equal(end.file_name, 'benchy.gcode');
    assert.equal(end.status, 'completed');
    assert.ok(end.ended_at >= end.started_at);
    await until('idle', () => r.driver.currentStatus === 'idle');
    assert.equal(r.driver.snapshot().external_job, null);
  } finally {
    await r.close();
  }
});
