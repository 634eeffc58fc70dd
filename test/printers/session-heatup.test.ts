// Printer session over a real-time simulator: pause and cancel inside a heat-up (M108 on Marlin, pending on Klipper),
// resume (printing again at once), and a cancel that does not wait for the printer's park.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import type { AppError } from '../../src/errors.js';
import { consoleEntries, openHarness, until, type Harness } from './session-harness.js';

/** A heat-up first, then lines that must not run before a pause or cancel taken inside it. */
const BEHIND = ['M109 S200', 'G1 X10 Y10 F6000', 'G1 X20 Y10 E1 F1200', 'G1 X30 Y10 E2'];
const HOUSEKEEPING = /^(M105|M155|M110)/;

async function startHeating(h: Harness, bed: number): Promise<{ base: number; finished: Promise<unknown> }> {
  await h.session.connect();
  const file = path.join(h.dir, 'heat.gcode');
  await writeFile(file, [`M190 S${bed}`, ...BEHIND, ''].join('\n'));
  const base = h.sim.printer.executed.length;
  const job = await h.session.startJob({ jobId: 'job_heat', filePath: file });
  // The firmware is inside M190 once the bed has its target (the wait answers only at the end).
  await until(() => h.sim.printer.temperatures().bedTarget === bed);
  return { base, finished: job.finished };
}

const ran = (h: Harness, base: number): string[] => h.sim.printer.executed.slice(base).filter((c) => !HOUSEKEEPING.test(c));

test('Marlin: pause inside M190 breaks it with M108 and parks; nothing behind the wait ran; the targets stay', async () => {
  const h = await openHarness('sim://heat1?record=1&speed=1');
  try {
    const { base } = await startHeating(h, 60);
    await h.session.pause();
    const snap = h.session.snapshot();
    assert.equal(snap.status, 'paused');
    assert.equal(snap.job!.pending_action, null);
    const t = h.sim.printer.temperatures();
    assert.ok(t.bed < 45, `the bed was far from its target when parked (${t.bed.toFixed(1)} °C): the wait was broken`);
    assert.equal(t.bedTarget, 60, 'pause keeps the targets');
    assert.deepEqual(ran(h, base), ['M190 S60', 'M108', 'M400', 'M83', 'G1 E-2 F2400', 'G91', 'G1 Z10 F600', 'G90']);

    // Resume runs the broken wait again before anything moves; a cancel inside it breaks that one too.
    const sent = consoleEntries(h.session, (e) => e.direction === 'sent' && e.text === 'M190 S60', 1);
    const resumed = h.session.resume().then(() => null, (err: AppError) => err);
    await sent;
    await until(() => h.sim.printer.queueDepth.commands > 0);
    assert.equal(await h.session.cancel(), 'cancelled');
    assert.equal((await resumed)?.code, 'invalid_state', 'the cancel ended the resume');
    // The job ended at once; the printer finishes the cancel script on its own.
    await until(() => ran(h, base).includes('M84'));
    const after = ran(h, base);
    assert.deepEqual(after.slice(8, 11), ['M190 S60', 'M108', 'M104 S0'], 'the re-issued wait, broken, then heaters off');
    assert.ok(!after.some((c) => BEHIND.includes(c)), `the held job lines never ran: ${after.join(' | ')}`);
    assert.equal(h.sim.printer.temperatures().bedTarget, 0);
  } finally {
    await h.close();
  }
});

test('Marlin: resume after a pause inside M190 is printing at once (job.resumed); the held lines run after the heat-up', async () => {
  const h = await openHarness('sim://heat1r?record=1&speed=1');
  try {
    const { base } = await startHeating(h, 35);
    await h.session.pause();
    const resumed = h.session.resume();
    resumed.catch(() => undefined); // awaited below; a failure before then must not be reported as unhandled
    await until(() => h.session.snapshot().status === 'printing', 2_000);
    assert.ok(h.names().includes('job.resumed'), h.names().join(', '));
    assert.equal(h.session.snapshot().job!.phase, 'resuming');
    assert.ok(!ran(h, base).some((c) => BEHIND.includes(c)), 'nothing behind the wait ran yet');
    await resumed;
    assert.ok(h.sim.printer.temperatures().bed >= 34, 'streaming went on only once the bed was hot again');
    assert.equal(h.session.snapshot().job!.phase, 'streaming');
    await h.session.cancel();
  } finally {
    await h.close();
  }
});

test('Marlin: a pause during the heat-up a resume runs again breaks it too; nothing moved; the next resume prints on', async () => {
  const h = await openHarness('sim://heat1p?record=1&speed=1');
  try {
    await startHeating(h, 40);
    await h.session.pause();
    const parkedAt = h.sim.printer.executed.length;
    const sent = consoleEntries(h.session, (e) => e.direction === 'sent' && e.text === 'M190 S40', 1);
    const first = h.session.resume();
    first.catch(() => undefined); // awaited below; a failure before then must not be reported as unhandled
    await sent;
    await until(() => h.sim.printer.queueDepth.commands > 0);
    await h.session.pause();
    assert.equal(h.session.snapshot().status, 'paused');
    assert.equal(h.session.snapshot().job!.phase, 'paused');
    await first; // superseded by the pause: it ends quietly
    await until(() => ran(h, parkedAt).includes('M108'));
    assert.deepEqual(ran(h, parkedAt), ['M190 S40', 'M108'], 'the head never moved back');
    assert.ok(h.sim.printer.temperatures().bed < 38, 'paused again long before the bed was hot');
    assert.deepEqual(h.names().filter((n) => n.startsWith('job.')), ['job.started', 'job.paused', 'job.resumed', 'job.paused']);

    await h.session.resume();
    assert.equal(h.session.snapshot().job!.phase, 'streaming');
    assert.ok(h.sim.printer.temperatures().bed >= 39, 'the second resume waited for the bed');
    await h.session.cancel();
  } finally {
    await h.close();
  }
});

/** A cancel script that lifts and presents the bed (seconds of motion; M84 answers once it is done). */
const PARK = ['G91', 'G1 Z10 F600', 'G90', 'G1 X0 Y200 F3000', 'M104 S0', 'M140 S0', 'M84'];

/** Starts `head` then 3000 short travel moves on a connected harness; resolves with the job handle. */
async function travelJob(h: Harness, id: string, head: string[]) {
  await h.session.connect();
  const file = path.join(h.dir, `${id}.gcode`);
  const travel = Array.from({ length: 3000 }, (_, i) => `G1 X${i % 2 === 0 ? 10 : 11} Y10 F600`);
  await writeFile(file, [...head, ...travel, ''].join('\n'));
  return h.session.startJob({ jobId: id, filePath: file });
}

test('cancel settles the job after the script\'s retract; the printer finishes its park on its own', async () => {
  const h = await openHarness('sim://park1?record=1&speed=1', { scripts: { cancel: ['M83', 'G1 E-4 F2400', ...PARK] } });
  try {
    const job = await travelJob(h, 'job_park', ['G90', 'M83', 'G1 X0 Y0 Z0.2 F6000', 'G1 X5 E10 F6000']);
    await until(() => (job.snapshot().extruded_mm[0] ?? 0) >= 10);
    assert.equal(await h.session.cancel(), 'cancelled');
    assert.ok(!h.sim.printer.executed.includes('M84'), 'the cancel did not wait for the park');
    assert.deepEqual(await job.finished, { status: 'cancelled' });
    assert.equal(job.snapshot().extruded_mm[0], 6, '10 mm printed, 4 mm pulled back by the script');
    await until(() => h.sim.printer.executed.includes('M84'), 10_000);
    assert.equal(job.snapshot().extruded_mm[0], 6, 'what ran after the job settled is not its filament');
  } finally {
    await h.close();
  }
});

test('a disconnect right after a cancel lets the printer take the rest of its cancel script first: the heaters go off', async () => {
  const h = await openHarness('sim://park2?record=1&speed=1', { scripts: { cancel: PARK } });
  try {
    const job = await travelJob(h, 'job_warm', ['M140 S50', 'M104 S150', 'G90', 'G1 X0 Y0 Z0.2 F6000']);
    await until(() => job.snapshot().lines_acked > 20);
    assert.equal(await h.session.cancel(), 'cancelled');
    await h.session.disconnect();
    const t = h.sim.printer.temperatures();
    assert.deepEqual([t.hotendTarget, t.bedTarget], [0, 0], 'the heaters-off lines reached the printer before the link closed');
  } finally {
    await h.close();
  }
});

test('Marlin: cancel inside M190 breaks it, turns the heaters off and runs the cancel script; nothing behind ran', async () => {
  const h = await openHarness('sim://heat2?record=1&speed=1');
  try {
    const { base, finished } = await startHeating(h, 60);
    assert.equal(await h.session.cancel(), 'cancelled');
    assert.deepEqual(await finished, { status: 'cancelled' });
    await until(() => ran(h, base).includes('M84'));
    assert.deepEqual(ran(h, base), [
      'M190 S60',
      'M108',
      'M104 S0',
      'M140 S0',
      'M107',
      'G91',
      'G1 Z10 F600',
      'G90',
      'M104 S0',
      'M140 S0',
      'M107',
      'M84',
    ]);
    assert.ok(h.sim.printer.temperatures().bed < 45);
  } finally {
    await h.close();
  }
});

test('a Marlin built without EMERGENCY_PARSER (M115 says so): no M108, the pause is pending until the heat-up ends', async () => {
  const h = await openHarness('sim://heat3?record=1&speed=1&emergency_parser=0');
  try {
    const { base } = await startHeating(h, 35);
    const parked = h.session.pause();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(h.session.snapshot().job!.pending_action, 'pause');
    await parked;
    assert.equal(h.session.snapshot().job!.pending_action, null);
    assert.deepEqual(ran(h, base), ['M190 S35', 'M400', 'M83', 'G1 E-2 F2400', 'G91', 'G1 Z10 F600', 'G90']);
  } finally {
    await h.close();
  }
});

test('Klipper: pause and cancel inside M190 are pending actions that take effect the moment the wait ends', async () => {
  const h = await openHarness('sim://heat4?record=1&profile=klipper&speed=1');
  try {
    const { base } = await startHeating(h, 35);
    const parked = h.session.pause();
    await new Promise((r) => setTimeout(r, 50));
    let snap = h.session.snapshot();
    assert.equal(snap.status, 'printing', 'never pretend the pause happened');
    assert.equal(snap.job!.pending_action, 'pause');
    await parked;
    snap = h.session.snapshot();
    assert.equal(snap.status, 'paused');
    assert.equal(snap.job!.pending_action, null);
    assert.ok(h.sim.printer.temperatures().bed >= 34, 'parked only once the heat-up was over');
    assert.deepEqual(ran(h, base), ['M190 S35', 'M400', 'M83', 'G1 E-2 F2400', 'G91', 'G1 Z10 F600', 'G90']);
    await h.session.cancel();
  } finally {
    await h.close();
  }

  const c = await openHarness('sim://heat5?record=1&profile=klipper&speed=1');
  try {
    const { base, finished } = await startHeating(c, 35);
    assert.equal(await c.session.cancel(), 'pending');
    assert.equal(await c.session.cancel(), 'pending', 'a second cancel changes nothing');
    const snap = c.session.snapshot();
    assert.equal(snap.status, 'printing');
    assert.equal(snap.job!.pending_action, 'cancel');
    assert.deepEqual(await finished, { status: 'cancelled' });
    assert.ok(c.sim.printer.temperatures().bed >= 34 || c.sim.printer.temperatures().bedTarget === 0);
    await until(() => ran(c, base).includes('M84'));
    assert.deepEqual(ran(c, base), ['M190 S35', 'G91', 'G1 Z10 F600', 'G90', 'M104 S0', 'M140 S0', 'M107', 'M84']);
  } finally {
    await c.close();
  }
});

test('resume after a short pause sets the targets without waiting; after a cooldown it waits for them', async () => {
  const h = await openHarness('sim://heat6?record=1&speed=max&baud=115200');
  try {
    await h.session.connect();
    const file = path.join(h.dir, 'r.gcode');
    const moves = Array.from({ length: 3000 }, (_, i) => `G1 X${(i % 100) + 10} Y${(i % 50) + 10} E${(i * 0.01).toFixed(2)}`);
    await writeFile(file, ['M140 S60', 'M104 S200', 'M190 S60', 'M109 S200', 'G90', 'M82', ...moves, ''].join('\n'));
    await h.session.startJob({ jobId: 'job_r', filePath: file });
    await h.waitFor('job.progress', (p) => p.progress >= 10);
    await h.session.pause();
    let base = h.sim.printer.executed.length;
    await h.session.resume();
    assert.deepEqual(ran(h, base).slice(0, 2), ['M140 S60', 'M104 S200'], 'the heaters held their targets');

    await h.waitFor('job.progress', (p) => p.progress >= 30);
    await h.session.pause();
    await h.session.cooldown();
    base = h.sim.printer.executed.length;
    await h.session.resume();
    assert.deepEqual(ran(h, base).slice(0, 2), ['M190 S60', 'M109 S200'], 'the heaters cooled: resume waits for them');
  } finally {
    await h.close();
  }
});

test('a pause while moves are queued is the job\'s pending action until the printer ran them and parked', async () => {
  // Real Marlin with a full planner of 0.5 s moves took 36 s from the pause to paused, with nothing on the job to say
  // the pause was taken (peer tier, serial:// on Marlin).
  const h = await openHarness('sim://pausemoves?record=1&speed=1');
  try {
    const moves = Array.from({ length: 40 }, (_, i) => `G1 X${i % 2 === 0 ? 10 : 20} Y10 F1200`);
    const job = await travelJob(h, 'job_pause_moves', ['G90', 'G1 X0 Y0 Z0.2 F6000', ...moves]);
    await until(() => job.snapshot().lines_acked > 8);
    const paused = h.session.pause();
    assert.equal(job.snapshot().pending_action, 'pause', 'taken at once, shown on the job');
    assert.equal(job.snapshot().phase, 'pausing');
    await paused;
    assert.equal(job.snapshot().phase, 'paused');
    assert.equal(job.snapshot().pending_action, null);
    await h.session.cancel();
  } finally {
    await h.close();
  }
});
