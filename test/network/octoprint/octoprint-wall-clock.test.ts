// A wall clock that jumps (NTP setting a Pi's clock after boot) while OctoPrint prints our job: the elapsed time, the
// pauses and the start's grace run on the monotonic clock; started_at stays a wall-clock timestamp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { ShiftedClock } from '../../../src/clock.js';
import { assertElapsedWithin } from '../elapsed-bounds.js';
import { rig, testGcode, until, type Rig } from './octoprint-harness.js';

const HOUR = 3_600_000;
const WALL_START = Date.UTC(2026, 4, 1, 8, 0, 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A connected driver whose wall clock starts at WALL_START and can be jumped; the stand-in keeps the real time. */
async function withJumpingClock(run: (r: Rig, clock: ShiftedClock) => Promise<void>): Promise<void> {
  const clock = new ShiftedClock(WALL_START);
  const r = await rig({ driver: { clock } });
  try {
    await r.driver.connect();
    await run(r, clock);
  } finally {
    await r.close();
  }
}

test('the wall clock jumps back an hour and forward two while printing and while paused: elapsed_ms stays the real printing time', () =>
  withJumpingClock(async (r, clock) => {
    const t0 = performance.now();
    const handle = await r.driver.startJob({ jobId: 'job_jump', filePath: r.file('jump.gcode', testGcode(600)) });
    const t1 = performance.now();
    const startedAt = handle.snapshot().started_at;
    assert.ok(Math.abs(startedAt - WALL_START) < 5000, `started_at ${startedAt} is a wall-clock time near ${WALL_START}`);

    await until('progress', () => handle.snapshot().bytes_acked > 300);
    clock.set(clock.now() - HOUR);
    assertElapsedWithin(() => handle.snapshot().elapsed_ms, t0, t1, 'printing, after the jump back');

    const pauseCalled = performance.now();
    await r.driver.pause();
    const pausedAt = handle.snapshot().elapsed_ms;
    const paused = performance.now();
    clock.set(clock.now() + 2 * HOUR);
    await sleep(300);
    assert.equal(handle.snapshot().elapsed_ms, pausedAt, 'no printing time while paused, whatever the wall clock did');
    clock.set(clock.now() - HOUR);
    assert.equal(handle.snapshot().elapsed_ms, pausedAt);
    const resumeCalled = performance.now();
    await r.driver.resume();

    await until('more progress', () => handle.snapshot().bytes_acked > 3000);
    clock.set(clock.now() + 2 * HOUR);
    await r.driver.cancel();
    assert.deepEqual(await handle.finished, { status: 'cancelled' });
    const realMs = performance.now() - t0;
    const end = handle.snapshot();
    assert.ok(end.elapsed_ms >= pauseCalled - t1 - 1, `elapsed_ms ${end.elapsed_ms}: at least the printing before the pause (${Math.round(pauseCalled - t1)} ms)`);
    assert.ok(end.elapsed_ms <= realMs - (resumeCalled - paused) + 1, `elapsed_ms ${end.elapsed_ms} within the real printing time (${Math.round(realMs - (resumeCalled - paused))} ms)`);
    assert.equal(end.started_at, startedAt, 'started_at is the wall reading of the start, not moved by the jumps');
  }));

test('a wall clock jumping forward while the upload runs does not read the still idle printer as the end of the job', () =>
  withJumpingClock(async (r, clock) => {
    // Big enough that OctoPrint is still idle, receiving it, when the driver hears from it below.
    const path = r.file('big.gcode', testGcode(120_000));
    const started = r.driver.startJob({ jobId: 'job_big', filePath: path });
    // `printing` from the moment the start's grace runs (before the upload).
    await until('the start', () => r.driver.currentStatus === 'printing', 20_000);
    clock.set(clock.now() + 2 * HOUR);
    await r.driver.refresh();
    const handle = await started;
    await until('OctoPrint printing', () => r.driver.snapshot().job !== null || r.driver.snapshot().external_job !== null);
    assert.ok(!r.events.some((e) => e.name === 'job.cancelled' || e.name === 'job.failed' || e.name === 'job.completed'), `the job did not end: ${r.events.map((e) => e.name).join(', ')}`);
    assert.equal(r.driver.snapshot().job?.id, 'job_big');
    assert.equal(r.driver.snapshot().external_job, null, 'our own print, not an external one');
    await until('progress', () => handle.snapshot().bytes_acked > 300);
    await r.driver.cancel();
    assert.deepEqual(await handle.finished, { status: 'cancelled' });
  }));

test('a job adopted after our restart measures on from OctoPrint\'s printTime: a wall jump afterwards changes nothing', () =>
  withJumpingClock(async (r, clock) => {
    const path = r.file('adopt.gcode', testGcode(3000));
    const t0 = performance.now();
    const first = await r.driver.startJob({ jobId: 'job_a', filePath: path, remoteName: 'job_a-1.gcode' });
    const t1 = performance.now();
    const startedAt = first.snapshot().started_at;
    await until('progress', () => first.snapshot().bytes_acked > 300);
    await sleep(700);
    await r.driver.disconnect(); // the process goes away; OctoPrint prints on

    const again = r.newDriver({ clock });
    await again.connect();
    const handle = await again.adoptJob!({ jobId: 'job_a', filePath: path, remoteName: 'job_a-1.gcode', startedAt });
    assert.ok(handle);
    clock.set(clock.now() - HOUR);
    // OctoPrint reports printTime in whole seconds: half a second either way.
    assertElapsedWithin(() => handle.snapshot().elapsed_ms, t0, t1, 'adopted, after the jump back', 501);
    assert.equal(handle.snapshot().started_at, startedAt, 'started_at is the recorded start');
    await again.cancel();
    assert.deepEqual(await handle.finished, { status: 'cancelled' });
  }));
