// JobStream on its own: progress by G-code bytes (comments and blanks excluded), its phase table and printing time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripGcodeLine } from '../../src/protocol/framing.js';
import { JobStream, type JobPhase } from '../../src/printers/job-stream.js';
import { countGcode } from '../../src/printers/session-gcode-total.js';

const rules = { strip: stripGcodeLine, check: () => null };

/** Opens a job on `text`, pushes every line into a sink that takes all, and resolves with the job and the pushes. */
async function openJob(text: string): Promise<{ job: JobStream; pushed: string[]; done: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-job-'));
  const file = path.join(dir, 'j.gcode');
  await writeFile(file, text);
  const job = new JobStream('job_t', file, { wall: 1000, monotonic: 1000 }, () => undefined, (m) => assert.fail(m));
  await job.source.open();
  job.gcodeTotal = await countGcode(file, stripGcodeLine);
  const pushed: string[] = [];
  const sink = { jobCapacity: () => 1000, pushJobLine: (t: string) => void pushed.push(t) };
  for (let i = 0; i < 50 && !job.sourceDone; i++) {
    assert.equal(job.feed(sink, rules, 1000), null);
    if (!job.sourceDone) await new Promise((r) => setImmediate(r));
  }
  return { job, pushed, done: () => rm(dir, { recursive: true, force: true }) };
}

test('progress counts the sent G-code bytes against a total measured the same way: a comment block weighs nothing', async () => {
  // 4 KB of header comments and blank lines, then four moves of 10 bytes each once stripped (9 + newline).
  const header = Array.from({ length: 100 }, (_, i) => `; slicer setting number ${i} = something long enough`).join('\n');
  const text = `${header}\n\n   \nG1 X10.00 ; first\nG1 X20.00\n\nG1 X30.00\r\n;middle\nG1 X40.00`;
  const { job, pushed, done } = await openJob(text);
  try {
    assert.deepEqual(pushed, ['G1 X10.00', 'G1 X20.00', 'G1 X30.00', 'G1 X40.00']);
    assert.deepEqual(job.gcodeTotal, { bytes: 40, lines: 4 });
    const rows: Array<{ acks: number; progress: number }> = [
      { acks: 0, progress: 0 },
      { acks: 1, progress: 25 },
      { acks: 2, progress: 50 },
      { acks: 4, progress: 100 },
    ];
    let acked = 0;
    for (const row of rows) {
      for (; acked < row.acks; acked++) job.acked(10, 2000);
      // By file bytes the first ack alone would already be past 90 % (the header rides on it).
      assert.equal(job.progressPct(), row.progress, `after ${row.acks} acks`);
      assert.equal(job.snapshot(2000).gcode_bytes_acked, row.acks * 10);
    }
    assert.equal(job.snapshot(2000).lines_total, 4);
  } finally {
    job.end({ status: 'cancelled' }, 2000);
    await done();
  }
});

test('elapsed_ms counts printing only: pauses and their scripts are left out (table of transitions)', async () => {
  const { job, done } = await openJob('G1 X1\n');
  try {
    const steps: Array<{ at: number; to: JobPhase | 'end'; elapsed: number }> = [
      { at: 3000, to: 'pausing', elapsed: 2000 },
      { at: 3500, to: 'paused', elapsed: 2000 },
      { at: 10_000, to: 'resuming', elapsed: 2000 },
      { at: 10_500, to: 'streaming', elapsed: 2000 },
      { at: 11_000, to: 'finishing', elapsed: 2500 },
      { at: 12_000, to: 'end', elapsed: 3500 },
    ];
    for (const s of steps) {
      if (s.to === 'end') job.end({ status: 'completed' }, s.at);
      else job.transition(s.to, s.at);
      assert.equal(job.elapsedMs(s.at), s.elapsed, `at ${s.at} (${s.to})`);
    }
    // Ended: the clock stops for good.
    assert.equal(job.snapshot(99_000).elapsed_ms, 3500);
  } finally {
    await done();
  }
});

test('the phase table refuses a move it does not list', async () => {
  const { job, done } = await openJob('G1 X1\n');
  try {
    assert.throws(() => job.transition('paused', 1500), /no transition from streaming to paused/);
    job.transition('finishing', 1500);
    assert.throws(() => job.transition('streaming', 1600), /no transition from finishing to streaming/);
  } finally {
    job.end({ status: 'cancelled' }, 2000);
    await done();
  }
});

test('filament counts per tool on acknowledgement, not on send: what the firmware ran', async () => {
  const text = ['M83', 'G1 X1 E2.5', 'G1 E-0.8', 'G1 E0.8', 'T1', 'G1 X2 E4', 'T0', 'G1 X3 E1.5'].join('\n');
  const { job, pushed, done } = await openJob(text);
  try {
    assert.equal(pushed.length, 8);
    assert.deepEqual(job.snapshot(1000).extruded_mm, [0], 'nothing acknowledged yet');
    for (let i = 0; i < 4; i++) job.acked(10, 1000);
    assert.deepEqual(job.snapshot(1000).extruded_mm, [2.5], 'a retraction and its recovery net zero');
    for (let i = 0; i < 4; i++) job.acked(10, 1000);
    assert.deepEqual(job.snapshot(1000).extruded_mm, [4, 4]);
  } finally {
    await done();
  }
});
