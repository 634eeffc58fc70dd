// A wall clock that jumps mid-print (a Pi's clock set by NTP after boot): printing time, pauses and the protocol's
// timeouts run on the monotonic reading, so the job's elapsed time is neither negative nor doubled, and it finishes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ManualClock, ShiftedClock, systemClock } from '../../src/clock.js';
import { writeGcode } from './gcode-fixture.js';
import { openHarness } from './session-harness.js';

const HOUR = 3_600_000;

test('ManualClock: set() jumps the wall reading only; advance() moves both', () => {
  const c = new ManualClock(Date.UTC(2026, 0, 1));
  c.advance(5000);
  c.set(Date.UTC(2020, 0, 1));
  assert.equal(c.now(), Date.UTC(2020, 0, 1));
  assert.equal(c.monotonic(), 5000);
  c.advance(10);
  assert.equal(c.monotonic(), 5010);
  const s = new ShiftedClock(Date.UTC(2001, 0, 1));
  const m0 = s.monotonic();
  s.set(Date.UTC(2030, 0, 1));
  assert.ok(s.monotonic() - m0 < 1000, 'a wall jump does not move the monotonic reading');
  assert.ok(Math.abs(systemClock.monotonic() - performance.now()) < 100);
});

test('the wall clock jumps back an hour, then forward two, while printing and while paused: elapsed_ms stays the real printing time', async () => {
  // Booted with a clock stuck in 1970-ish territory that NTP then corrects: here, a day in 2026 moved about by hand.
  const wallStart = Date.UTC(2026, 4, 1, 8, 0, 0);
  const clock = new ShiftedClock(wallStart);
  const h = await openHarness('sim://jump1?speed=max&baud=115200', { clock });
  try {
    await h.session.connect();
    const file = path.join(h.dir, 'jump.gcode');
    await writeGcode(file, 1500);
    const t0 = performance.now();
    const job = await h.session.startJob({ jobId: 'job_jump', filePath: file });
    assert.ok(Math.abs(job.snapshot().started_at - wallStart) < 5000, 'started_at is a wall-clock time');

    await h.waitFor('job.progress', (p) => p.progress >= 20);
    clock.set(clock.now() - HOUR);
    const afterBack = job.snapshot().elapsed_ms;
    assert.ok(afterBack > 0, `elapsed after the jump back: ${afterBack}`);

    await h.session.pause();
    const pausedAt = job.snapshot().elapsed_ms;
    clock.set(clock.now() + 2 * HOUR);
    const pauseT0 = performance.now();
    await new Promise((r) => setTimeout(r, 300));
    const pauseMs = performance.now() - pauseT0;
    assert.equal(job.snapshot().elapsed_ms, pausedAt, 'no printing time while paused, whatever the wall clock did');
    await h.session.resume();

    await h.waitFor('job.progress', (p) => p.progress >= 60);
    clock.set(clock.now() - 3 * HOUR);
    const outcome = await job.finished;
    const realMs = performance.now() - t0;
    assert.deepEqual(outcome, { status: 'completed' });
    const elapsed = job.snapshot().elapsed_ms;
    assert.ok(elapsed > 0, `elapsed_ms ${elapsed} > 0`);
    assert.ok(elapsed <= realMs - pauseMs, `elapsed_ms ${elapsed} within the real printing time (${Math.round(realMs - pauseMs)} ms)`);
    assert.ok(!h.names().includes('job.failed') && !h.names().includes('printer.offline'), h.names().join(', '));
  } finally {
    await h.close();
  }
});
