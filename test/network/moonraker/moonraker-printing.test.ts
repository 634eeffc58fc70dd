// The Moonraker driver against the stand-in over real HTTP and websockets: identify, upload + start, progress, pause,
// resume, cancel, console replies, filament from the file position, our restart mid-print, and a print started elsewhere.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { filamentGrams } from '../../../src/protocol/extrusion-state.js';
import type { ConsoleEntry } from '../../../src/printers/session-context.js';
import { handMmAt, harness, testPrint, until, type Harness } from './moonraker-harness.js';

let h: Harness;
before(async () => {
  h = await harness();
});
after(async () => {
  await h.close();
});

/** PLA on 1.75 mm: the grams the meter would charge for `mm`. */
const grams = (mm: number): number => filamentGrams(mm, 1.75, 1.24);
const within1pct = (got: number, want: number, what: string): void =>
  assert.ok(Math.abs(got - want) <= want * 0.01, `${what}: ${got.toFixed(4)} g, hand-computed ${want.toFixed(4)} g`);
const names = (): string[] => h.events.map((e) => e.name);

test('identify: firmware from /printer/info, temperatures from the subscription, printer.online', async () => {
  const p = h.printer();
  await p.connect();
  const s = p.snapshot();
  assert.equal(s.status, 'idle');
  assert.deepEqual(s.firmware, { name: 'Klipper v0.12.0-standin', profile: 'klipper', capabilities: {} });
  assert.equal(typeof s.temperatures.hotend, 'number');
  assert.equal(typeof s.temperatures.bed, 'number');
  assert.equal(s.offline_reason, null);
  assert.ok(h.events.some((e) => e.name === 'printer.online' && (e.payload as { printer_id: string }).printer_id === p.printerId));
  await p.disconnect();
});

test('upload + start, progress from file_position, completion, grams from the index within 1 % of the hand count', async () => {
  const p = h.printer();
  await p.connect();
  const gcode = testPrint(80);
  const file = await h.file('cube.gcode', gcode);
  h.events.length = 0;
  const job = await p.startJob({ jobId: 'job-cube', filePath: file, remoteName: 'job-cube-abc123.gcode' });
  assert.equal(p.currentStatus, 'printing');
  assert.ok(h.standIn.klipper.hasFile('job-cube-abc123.gcode'), 'uploaded under the remote name');
  // Mid-print: the counters are the printer's position in the file, the filament the file pushed up to there.
  await until('the print to be under way', () => job.snapshot().bytes_acked > 200);
  const mid = job.snapshot();
  within1pct(grams(mid.extruded_mm[0]!), grams(handMmAt(gcode, mid.bytes_acked)), `mid-print at byte ${mid.bytes_acked}`);
  assert.equal(mid.bytes_total, Buffer.byteLength(gcode));
  assert.equal(await job.finished.then((o) => o.status), 'completed');
  const end = job.snapshot();
  assert.equal(end.progress, 100);
  assert.equal(end.bytes_acked, Buffer.byteLength(gcode));
  const handMm = handMmAt(gcode, Infinity);
  assert.equal(handMm, 120); // 80 segments of 1.5 mm, every retraction pushed back
  within1pct(grams(end.extruded_mm[0]!), grams(handMm), 'whole print');
  const progress = h.events.filter((e) => e.name === 'job.progress').map((e) => (e.payload as { progress: number }).progress);
  assert.ok(progress.length >= 2 && progress.every((v, i) => i === 0 || v >= progress[i - 1]!), `progress rises: ${progress}`);
  assert.deepEqual(names().filter((n) => n.startsWith('job.') && n !== 'job.progress'), ['job.started', 'job.completed']);
  assert.equal(p.snapshot().status, 'idle');
  assert.equal(p.snapshot().ready, false, 'the bed must be cleared after a print');
  await assert.rejects(p.startJob({ jobId: 'next', filePath: file }), /bed to be cleared/);
  p.markReady();
  await p.disconnect();
});

test('pause, resume, cancel: the printer shows each, and a cancelled job is charged what the file extruded', async () => {
  const p = h.printer();
  await p.connect();
  const gcode = testPrint(400);
  const file = await h.file('long.gcode', gcode);
  h.events.length = 0;
  const job = await p.startJob({ jobId: 'job-long', filePath: file });
  await until('bytes to be printed', () => job.snapshot().bytes_acked > 300);
  await p.pause();
  assert.equal(p.currentStatus, 'paused');
  assert.equal(job.snapshot().phase, 'paused');
  assert.equal(h.standIn.klipper.objects().print_stats!.state, 'paused');
  // The printer's own position: the driver's view follows it one status report (250 ms) later, and the line that was
  // running when the pause came in still finishes.
  const at = h.standIn.klipper.objects().virtual_sdcard!.file_position as number;
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(h.standIn.klipper.objects().virtual_sdcard!.file_position, at, 'nothing read while paused');
  assert.equal(job.snapshot().bytes_acked, at, 'the driver caught up with the paused position');
  await p.resume();
  assert.equal(p.currentStatus, 'printing');
  await until('more bytes after resuming', () => job.snapshot().bytes_acked > at);
  await p.cancel();
  assert.deepEqual(await job.finished, { status: 'cancelled' });
  const end = job.snapshot();
  assert.ok(end.bytes_acked > at && end.bytes_acked < Buffer.byteLength(gcode));
  within1pct(grams(end.extruded_mm[0]!), grams(handMmAt(gcode, end.bytes_acked)), `cancelled at byte ${end.bytes_acked}`);
  assert.deepEqual(names().filter((n) => n.startsWith('job.') && n !== 'job.progress'), ['job.started', 'job.paused', 'job.resumed', 'job.cancelled']);
  assert.equal(p.currentStatus, 'idle');
  p.markReady();
  await p.disconnect();
});

test('console: replies are the notify_gcode_response lines of the command; Klipper errors are ok: false', async () => {
  const p = h.printer();
  await p.connect();
  const seen: ConsoleEntry[] = [];
  p.onConsole((e) => seen.push(e));
  const m105 = await p.sendCommand('M105');
  assert.equal(m105.ok, true);
  assert.match(m105.lines.join('\n'), /^B:[\d.]+ \/[\d.]+ T0:[\d.]+ \/[\d.]+$/);
  const refused = await p.sendCommand('G1 X999 F3000');
  assert.equal(refused.ok, false);
  assert.match(refused.lines.join('\n'), /Move out of range/);
  assert.deepEqual(await p.sendCommand('   '), { ok: true, lines: [] });
  await assert.rejects(p.sendCommand('G28\nG1 X1'), /one command at a time/);
  assert.ok(seen.some((e) => e.direction === 'sent' && e.text === 'M105'));
  assert.ok(seen.some((e) => e.direction === 'received' && e.kind === 'warning' && /Move out of range/.test(e.text)));
  await p.disconnect();
});

test('our restart mid-print: a new driver adopts the print by its remote name and the job completes in our records', async () => {
  const first = h.printer();
  await first.connect();
  const gcode = testPrint(250);
  const file = await h.file('adopt.gcode', gcode);
  const remoteName = 'job-adopt-deadbeef.gcode';
  const job = await first.startJob({ jobId: 'job-adopt', filePath: file, remoteName });
  await until('the print to be under way', () => job.snapshot().bytes_acked > 200);
  const startedAt = job.snapshot().started_at;
  await first.disconnect(); // the process went away; the printer prints on
  h.events.length = 0;
  const second = h.printer();
  await second.connect();
  assert.equal(second.currentStatus, 'printing');
  assert.equal(await second.adoptJob({ jobId: 'other', filePath: file, remoteName: 'job-other.gcode', startedAt }), null);
  const adopted = await second.adoptJob({ jobId: 'job-adopt', filePath: file, remoteName, startedAt });
  assert.ok(adopted);
  assert.equal(second.snapshot().job?.id, 'job-adopt');
  assert.equal(second.snapshot().external_job, null);
  assert.deepEqual(await adopted.finished, { status: 'completed' });
  within1pct(grams(adopted.snapshot().extruded_mm[0]!), grams(handMmAt(gcode, Infinity)), 'adopted print');
  assert.ok(h.events.some((e) => e.name === 'job.completed' && (e.payload as { job_id: string }).job_id === 'job-adopt'));
  assert.ok(!names().includes('printer.external_job_ended'), 'an adopted print is not an external one');
  second.markReady();
  await second.disconnect();
});

test('a print started on the printer: printing with external_job, nothing sent to it, recorded when it ends', async () => {
  const p = h.printer();
  await p.connect();
  h.events.length = 0;
  const gcode = testPrint(120);
  h.standIn.startExternalPrint('benchy.gcode', gcode);
  await until('the external print to show', () => p.snapshot().external_job != null);
  const s = p.snapshot();
  assert.equal(s.status, 'printing');
  assert.equal(s.job, null);
  assert.equal(s.external_job?.file_name, 'benchy.gcode');
  const file = await h.file('mine.gcode', testPrint(5));
  await assert.rejects(p.startJob({ jobId: 'mine', filePath: file }), /printer_busy|is printing/);
  await until('the external print to end', () => names().includes('printer.external_job_ended'), 20_000);
  const ended = h.events.find((e) => e.name === 'printer.external_job_ended')!.payload as {
    file_name: string; status: string; print_seconds: number; extruded_mm: number[]; started_at: number; ended_at: number;
  };
  assert.equal(ended.file_name, 'benchy.gcode');
  assert.equal(ended.status, 'completed');
  assert.ok(ended.print_seconds > 0 && ended.ended_at >= ended.started_at);
  assert.ok(Math.abs(ended.extruded_mm[0]! - handMmAt(gcode, Infinity)) < 0.01, `Klipper's filament_used ${ended.extruded_mm}`);
  assert.equal(p.snapshot().status, 'idle');
  assert.equal(p.snapshot().external_job, null);
  p.markReady();
  await p.disconnect();
});

/**
 * A real-time stand-in printing `M109 S<target>` then a short part, the heat-up under way when `body` runs; the
 * harness is closed afterwards.
 */
async function inHeatUp(
  jobId: string,
  target: number,
  body: (h: Harness, p: ReturnType<Harness['printer']>, job: Awaited<ReturnType<ReturnType<Harness['printer']>['startJob']>>) => Promise<void>,
): Promise<void> {
  const slow = await harness({ simulator: { speed: 1 } });
  try {
    const p = slow.printer();
    await p.connect();
    const file = await slow.file(`${jobId}.gcode`, `M109 S${target}\n${testPrint(20)}`);
    const job = await p.startJob({ jobId, filePath: file });
    await until('the heat-up to be under way', () => (slow.standIn.klipper.objects().extruder!.target as number) === target);
    await body(slow, p, job);
    await p.disconnect();
  } finally {
    await slow.close();
  }
}

test("a heat-up at the start is printing time: Klipper's print_duration stays 0 until the first extrusion, the job's time does not", async () => {
  // Real Klipper (print_stats.py) counts print_duration from the first extrusion; the stand-in does the same now.
  await inHeatUp('job-heat', 200, async (slow, _p, job) => {
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(slow.standIn.klipper.objects().print_stats!.print_duration, 0, 'Klipper counts nothing before the first extrusion');
    const elapsed = job.snapshot().elapsed_ms;
    assert.ok(elapsed >= 1000, `the heat-up counts as printing time: elapsed_ms ${elapsed}`);
  });
});

test('cancel inside a heat-up: Klipper runs it after the wait, so the cancel answers pending at once and lands later', async () => {
  // Real Klipper held the cancel request for 22 s behind an M109 (print_stats printing all along); a request timeout
  // shorter than the wait must not turn the accepted cancel into an error.
  await inHeatUp('job-heat-cancel', 45, async (_slow, p, job) => {
    const t0 = performance.now();
    assert.equal(await p.cancel(), 'pending');
    assert.ok(performance.now() - t0 < 2000, `answered after ${Math.round(performance.now() - t0)} ms`);
    assert.equal(job.snapshot().pending_action, 'cancel');
    assert.deepEqual(await job.finished, { status: 'cancelled' });
    assert.equal(job.snapshot().pending_action, null);
    p.markReady();
  });
});
