// Printer session over the simulator: handshake and profile choice, streaming exactness, progress, console, home, cooldown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../src/errors.js';
import type { JobProgressPayload } from '../../src/events/event-types.js';
import { splitProfileParam } from '../../src/printers/printer-session.js';
import { writeGcode } from './gcode-fixture.js';
import { consoleEntries, openHarness } from './session-harness.js';

const FAST = 'speed=max&record=1';

test('handshake: boot noise is drained, Marlin is identified, autoreport is enabled, printer.online fires', async () => {
  const h = await openHarness(`sim://m1?${FAST}&boot_noise=1`);
  try {
    await h.session.connect();
    const snap = h.session.snapshot();
    assert.equal(snap.status, 'idle');
    assert.equal(snap.firmware?.profile, 'marlin');
    assert.match(snap.firmware?.name ?? '', /Marlin/);
    assert.equal(snap.firmware?.capabilities['AUTOREPORT_TEMP'], true);
    assert.deepEqual(h.names(), ['printer.online']);
    assert.match((h.events[0]!.payload as { firmware?: string }).firmware ?? '', /Marlin/);
    assert.ok(h.sim.printer.executed.includes('M155 S2'), 'autoreport switched on');
  } finally {
    await h.close();
  }
});

test('handshake: another firmware family gets its own profile; without autoreport the session polls M105', async () => {
  const h = await openHarness(`sim://p1?${FAST}&profile=prusa&autoreport=0`, { temperaturePollMs: 100 });
  try {
    await h.session.connect();
    assert.equal(h.session.snapshot().firmware?.profile, 'prusa');
    // A poll goes out only once the previous one was answered: the third M105 sent means two were executed.
    await consoleEntries(h.session, (e) => e.direction === 'sent' && e.text === 'M105', 3);
    assert.ok(!h.sim.printer.executed.includes('M155 S2'));
    assert.ok(h.sim.printer.executed.filter((c) => c === 'M105').length >= 2, 'M105 polled');
    assert.equal(typeof h.session.snapshot().temperatures.hotend, 'number');
  } finally {
    await h.close();
  }
});

test('a profile named by the session wins over detection; profile= is taken out of serial URLs only', async () => {
  assert.deepEqual(splitProfileParam('serial:///dev/ttyUSB0?baud=115200&profile=prusa'), {
    transportUrl: 'serial:///dev/ttyUSB0?baud=115200',
    profile: 'prusa',
  });
  assert.deepEqual(splitProfileParam('/dev/ttyACM0?profile=klipper'), { transportUrl: '/dev/ttyACM0', profile: 'klipper' });
  assert.equal(splitProfileParam('sim://a?profile=prusa').profile, undefined);
  const h = await openHarness(`sim://f1?${FAST}`, { profile: 'prusa' });
  try {
    await h.session.connect();
    assert.equal(h.session.snapshot().firmware?.profile, 'prusa');
  } finally {
    await h.close();
  }
  await assert.rejects(async () => openHarness('sim://x', { profile: 'nonsense' }), /unknown firmware profile/);
});

test('streams a file exactly: the printer executes the stripped lines in order; progress rises to 100; job.completed', async () => {
  const h = await openHarness(`sim://s1?${FAST}`);
  try {
    await h.session.connect();
    const file = path.join(h.dir, 'part.gcode');
    const fx = await writeGcode(file, 1500, { heat: true });
    const before = h.sim.printer.executedJobLines().length;
    const executedBefore = h.sim.printer.executed.length;
    const job = await h.session.startJob({ jobId: 'job_exact', filePath: file });
    assert.equal(h.session.snapshot().status, 'printing');
    await assert.rejects(h.session.startJob({ jobId: 'job_2', filePath: file }), (e: AppError) => e.code === 'printer_busy');
    await assert.rejects(h.session.home(), (e: AppError) => e.code === 'printer_busy');
    const outcome = await job.finished;
    assert.deepEqual(outcome, { status: 'completed' });
    const executed = h.sim.printer.executedJobLines().slice(before);
    // The session's closing M400 (firmware drained) is the one extra line.
    assert.equal(executed.at(-1), 'M400');
    assert.deepEqual(executed.slice(0, -1), fx.stripped);
    // The job began its own line numbering before its first line.
    const jobRecord = h.sim.printer.executed.slice(executedBefore);
    assert.ok(jobRecord.indexOf('M110 N0') >= 0 && jobRecord.indexOf('M110 N0') < jobRecord.indexOf(fx.stripped[0]!), 'M110 N0 at job start');

    const progress = h.events.filter((e) => e.name === 'job.progress').map((e) => (e.payload as JobProgressPayload).progress);
    assert.ok(progress.length >= 10);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]! >= progress[i - 1]!, `progress went back at ${i}`);
    assert.equal(progress.at(-1), 100);
    assert.deepEqual(h.names(), ['printer.online', 'job.started', 'job.completed']);
    const snap = job.snapshot();
    assert.equal(snap.lines_acked, fx.stripped.length);
    assert.equal(snap.bytes_acked, Buffer.byteLength(fx.text));
    // Progress counts the G-code sent (command + newline), comments and blank lines excluded, on both sides.
    const gcodeBytes = fx.stripped.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
    assert.equal(snap.gcode_bytes_total, gcodeBytes);
    assert.equal(snap.gcode_bytes_acked, gcodeBytes);
    assert.equal(snap.lines_total, fx.stripped.length);
    assert.equal(snap.progress, 100);
    assert.ok(snap.elapsed_ms > 0 && snap.elapsed_ms <= Date.now() - snap.started_at);
    const after = h.session.snapshot();
    assert.equal(after.status, 'idle');
    assert.equal(after.job, null);
    assert.equal(after.ready, false);
    await assert.rejects(h.session.startJob({ jobId: 'job_3', filePath: file }), /bed to be cleared/);
    h.session.markReady();
    const again = await h.session.startJob({ jobId: 'job_3', filePath: file });
    assert.deepEqual(await again.finished, { status: 'completed' });
  } finally {
    await h.close();
  }
});

test('a binary or missing file is a clear error; the printer stays idle', async () => {
  const h = await openHarness(`sim://g1?${FAST}`);
  try {
    await h.session.connect();
    const bad = path.join(h.dir, 'bad.gcode');
    await writeFile(bad, Buffer.concat([Buffer.from('G28\nG1 X5\n'), Buffer.alloc(64, 0), Buffer.from('\n')]));
    const job = await h.session.startJob({ jobId: 'job_bad', filePath: bad });
    const outcome = await job.finished;
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.status === 'failed' && outcome.error.code, 'file_invalid');
    assert.match(outcome.status === 'failed' ? outcome.error.message : '', /NUL byte at offset 10/);
    const failed = await h.waitFor('job.failed');
    assert.equal(failed.error?.code, 'file_invalid');
    assert.equal(h.session.snapshot().status, 'idle');
    await assert.rejects(h.session.startJob({ jobId: 'job_none', filePath: path.join(h.dir, 'nope.gcode') }), /cannot read G-code file/);
    assert.equal(h.session.snapshot().status, 'idle');

    const long = path.join(h.dir, 'long.gcode');
    await writeFile(long, `G28\nM117 ${'x'.repeat(120)}\nG1 X1\n`);
    const j2 = await h.session.startJob({ jobId: 'job_long', filePath: long });
    const o2 = await j2.finished;
    assert.equal(o2.status === 'failed' && o2.error.code, 'line_rejected');
    assert.match(o2.status === 'failed' ? o2.error.message : '', /line 2 of/);
    assert.ok(!h.sim.printer.executed.some((c) => c.startsWith('M117')), 'nothing truncated was sent');
  } finally {
    await h.close();
  }
});

test('console commands get their reply lines; home and cooldown run; offline sessions refuse', async () => {
  const h = await openHarness(`sim://c1?${FAST}`);
  try {
    await assert.rejects(h.session.sendCommand('M105'), (e: AppError) => e.code === 'printer_offline');
    await h.session.connect();
    const temps = await h.session.sendCommand('M105');
    assert.equal(temps.ok, true);
    assert.ok(temps.lines.some((l) => /T:\d/.test(l)), temps.lines.join('|'));
    const fw = await h.session.sendCommand('M115 ; with a comment');
    assert.ok(fw.lines.some((l) => l.includes('FIRMWARE_NAME:')));
    assert.deepEqual(await h.session.sendCommand('  ; only a comment'), { ok: true, lines: [] });
    await assert.rejects(h.session.sendCommand('G1 X1\nG1 X2'), /one command at a time/);
    await assert.rejects(h.session.sendCommand('M117 ' + 'y'.repeat(200)), /cannot take this command/);

    const homed = await h.session.home();
    assert.equal(homed.ok, true);
    await h.session.sendCommand('M104 S200');
    await h.session.cooldown();
    const ex = h.sim.printer.executed;
    assert.ok(ex.includes('G28'));
    assert.deepEqual(ex.slice(-3), ['M104 S0', 'M140 S0', 'M107']);
  } finally {
    await h.close();
  }
});
