// A wall clock that jumps (NTP setting a Pi's clock after boot) while a Moonraker print runs: the durations the driver
// measures itself run on the monotonic clock, started_at and ended_at stay wall-clock timestamps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { ShiftedClock } from '../../../src/clock.js';
import { assertElapsedWithin } from '../elapsed-bounds.js';
import { harness, testPrint, until } from './moonraker-harness.js';

const HOUR = 3_600_000;
const WALL_START = Date.UTC(2026, 4, 1, 8, 0, 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('the wall clock jumps back an hour and forward two, before the printer reports, while printing and while paused: elapsed_ms stays the printing time', async () => {
  const h = await harness();
  const clock = new ShiftedClock(WALL_START);
  // A long ping: the status reports are held back below (half-closed socket) without the link being dropped for it.
  const p = h.printer({ clock, pingMs: 60_000 });
  try {
    await p.connect();
    const file = await h.file('jump.gcode', testPrint(400));
    // Until the printer's first report of our print (and its print_duration), the driver measures the time itself.
    h.standIn.setFault('half_close', true);
    const t0 = performance.now();
    const job = await p.startJob({ jobId: 'job-jump', filePath: file });
    const t1 = performance.now();
    const startedAt = job.snapshot().started_at;
    assert.ok(Math.abs(startedAt - WALL_START) < 5000, `started_at ${startedAt} is a wall-clock time near ${WALL_START}`);

    await sleep(200);
    clock.set(clock.now() - HOUR);
    assertElapsedWithin(() => job.snapshot().elapsed_ms, t0, t1, 'before the first report, after the jump back');
    await sleep(100);
    clock.set(clock.now() + 2 * HOUR);
    assertElapsedWithin(() => job.snapshot().elapsed_ms, t0, t1, 'before the first report, after the jump forward');
    assert.equal(job.snapshot().started_at, startedAt, 'started_at is the wall reading of the start, not moved by the jumps');

    // From the printer's reports on, Klipper's print_duration (pauses left out).
    h.standIn.setFault('half_close', false);
    await until('bytes to be printed', () => job.snapshot().bytes_acked > 300);
    clock.set(clock.now() - HOUR);
    const printing = job.snapshot().elapsed_ms;
    assert.ok(printing > 0 && printing <= performance.now() - t0, `printing: elapsed_ms ${printing}`);

    await p.pause();
    const pausedAt = job.snapshot().elapsed_ms;
    const pauseT0 = performance.now();
    clock.set(clock.now() + 2 * HOUR);
    await sleep(300);
    clock.set(clock.now() - HOUR);
    assert.equal(job.snapshot().elapsed_ms, pausedAt, 'no printing time while paused, whatever the wall clock did');
    // A part of the printer's pause: from after it showed paused to before we asked it to resume.
    const pauseMs = performance.now() - pauseT0;
    await p.resume();

    await until('more bytes after resuming', () => job.snapshot().bytes_acked > 600);
    clock.set(clock.now() - 3 * HOUR);
    await p.cancel();
    assert.deepEqual(await job.finished, { status: 'cancelled' });
    const end = job.snapshot();
    const realMs = performance.now() - t0;
    assert.ok(end.elapsed_ms > pausedAt, `elapsed_ms ${end.elapsed_ms} grew after the resume (${pausedAt} at the pause)`);
    assert.ok(end.elapsed_ms <= realMs - pauseMs, `elapsed_ms ${end.elapsed_ms} within the real printing time (${Math.round(realMs - pauseMs)} ms)`);
    assert.equal(end.started_at, startedAt);
    p.markReady();
  } finally {
    await h.close();
  }
});

test('a print started on the printer that vanishes while we are away: print_seconds is measured on the monotonic clock, started_at and ended_at are wall times', async () => {
  const h = await harness();
  const clock = new ShiftedClock(WALL_START);
  const p = h.printer({ clock });
  try {
    await p.connect();
    const t0 = performance.now();
    h.standIn.startExternalPrint('benchy.gcode', testPrint(2000));
    await until('the external print', () => p.snapshot().external_job !== null);
    const t1 = performance.now();
    const startedAt = p.snapshot().external_job!.started_at;
    assert.ok(Math.abs(startedAt - WALL_START) < 5000, `started_at ${startedAt} is a wall-clock time near ${WALL_START}`);

    // Our link drops; meanwhile the wall clock is set back and Klipper restarts: the print is gone when we are back,
    // with no print_duration of it left to report.
    h.standIn.setFault('drop_socket', true);
    await until('offline', () => p.currentStatus === 'offline');
    clock.set(clock.now() - HOUR);
    h.standIn.klipper.restart();
    await sleep(200);
    const t2 = performance.now();
    h.standIn.setFault('drop_socket', false);
    await until('the external print to be recorded', () => h.events.some((e) => e.name === 'printer.external_job_ended'));
    const t3 = performance.now();
    const ended = h.events.find((e) => e.name === 'printer.external_job_ended')!.payload as {
      started_at: number; ended_at: number; print_seconds: number; status: string;
    };
    assert.equal(ended.started_at, startedAt);
    assert.ok(Math.abs(ended.ended_at - (WALL_START - HOUR)) < 10_000, `ended_at ${ended.ended_at} is the wall reading at the end (after the jump back)`);
    // From the printer's start (t0..t1) to our noticing its end (t2..t3).
    assert.ok(ended.print_seconds * 1000 >= t2 - t1 - 1 && ended.print_seconds * 1000 <= t3 - t0 + 1, `print_seconds ${ended.print_seconds}, the real time is ${Math.round(t2 - t1)}..${Math.round(t3 - t0)} ms`);
  } finally {
    await h.close();
  }
});
