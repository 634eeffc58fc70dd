// A wall clock that jumps while a PrusaLink job runs (a Pi's clock set by NTP after boot): the driver's start deadline
// and the elapsed time it counts itself run on the monotonic reading, so a jump neither fails the job nor shows hours.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ShiftedClock } from '../../../src/clock.js';
import { gcodeText, named, rig, until } from './prusalink-harness.js';

const HOUR = 3_600_000;

test('the wall clock jumps two hours forward, then three back, while the upload waits and prints: no false timeout, elapsed stays real', async () => {
  // The printer takes 600 ms from the upload to printing: the driver counts that wait itself.
  const r = await rig({ startDelayMs: 600 });
  try {
    const wallStart = Date.UTC(2026, 4, 1, 8, 0, 0);
    const clock = new ShiftedClock(wallStart);
    const p = r.driver({ clock, startTimeoutMs: 5000 });
    await p.connect();
    const h = await p.startJob({ jobId: 'job-jump', filePath: await r.file('a.gcode', gcodeText(300)) });
    clock.set(wallStart + 2 * HOUR);
    // A few polls while the printer has not shown the print yet: a wall-clock deadline would fail the job here.
    await new Promise((res) => setTimeout(res, 200));
    const waiting = h.snapshot();
    assert.ok(waiting.elapsed_ms >= 0 && waiting.elapsed_ms < 60_000, `elapsed while waiting: ${waiting.elapsed_ms} ms`);
    assert.ok(Math.abs(waiting.started_at - wallStart) < 5000, 'started_at is the wall-clock time of the start');
    clock.set(wallStart - HOUR);
    await until(() => h.snapshot().progress >= 5, 'printing after the jumps');
    const printing = h.snapshot();
    assert.ok(printing.elapsed_ms >= 0 && printing.elapsed_ms < 60_000, `elapsed while printing: ${printing.elapsed_ms} ms`);
    assert.deepEqual(await h.finished, { status: 'completed' });
    assert.equal(named(r, 'job.failed').length, 0, 'no false start timeout');
    const end = h.snapshot();
    assert.ok(end.elapsed_ms >= 0 && end.elapsed_ms < 60_000, `elapsed at the end: ${end.elapsed_ms} ms`);
  } finally {
    await r.close();
  }
});
