// The network core through a stand-in kind: the events a run of reports publishes, a refused start, a job's one
// ending, a slow cancel answered `pending`. Transcripts of the bus, no network.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../../src/clock.js';
import { EventBus } from '../../../src/events/event-bus.js';
import { ExtrusionIndexCache } from '../../../src/printers/extrusion-index-cache.js';
import { NetworkJob, type JobCounters } from '../../../src/printers/network/network-job.js';
import { NetworkPrinterCore } from '../../../src/printers/network/network-printer-core.js';
import type { JobOutcome, OfflineReason, PrinterSnapshot, PrinterStatus } from '../../../src/printers/printer-state.js';
import type { JobHandle } from '../../../src/printers/session-job-control.js';

class StandInJob extends NetworkJob {
  done = 0;
  get bytesDone(): number {
    return this.done;
  }
  get printedAny(): boolean {
    return this.done > 0;
  }
  protected fillCounters(): void {
    this.done = 1000;
  }
  protected counters(): JobCounters {
    return { progress: this.done / 10, bytes_acked: this.done, bytes_total: 1000, gcode_bytes_acked: 0, gcode_bytes_total: null, extruded_mm: [], used_basis: 'file_position', pending_action: this.cancelRequested ? 'cancel' : null };
  }
}

/** Only what a test drives: the core's protected steps made callable. */
class StandIn extends NetworkPrinterCore<StandInJob> {
  protected firmwareView(): PrinterSnapshot['firmware'] {
    return { name: 'Stand-in 1.0', profile: 'standin', capabilities: {} };
  }
  report(status: PrinterStatus, reason: OfflineReason | null = null, message?: string): void {
    this.show(status, reason, message ? { code: reason ?? 'firmware_error', message } : null);
  }
  lose(reason: OfflineReason, message: string): void {
    this.linkDown(reason, message);
  }
  newJob(): StandInJob {
    return new StandInJob('j1', '/tmp/j1.gcode', 'j1.gcode', { wall: this.clock.now(), monotonic: this.clock.monotonic() }, () => this.clock.monotonic());
  }
  async begin(job: StandInJob, start: () => Promise<void>): Promise<JobHandle> {
    this.requireStartable();
    return this.launch(job, start, (err) => new Error(`refused: ${(err as Error).message}`));
  }
  finish(job: StandInJob, outcome: JobOutcome): boolean {
    return this.endJob(job, outcome);
  }
  cancelWith(send: () => Promise<void>, late: (err: Error) => void): Promise<'cancelled' | 'pending'> {
    return this.cancelJob(send, late);
  }
  get followed(): StandInJob | null {
    return this.job;
  }
  async connect(): Promise<void> {}
  async reconnect(): Promise<void> {}
  async disconnect(): Promise<void> {
    this.closed();
  }
  async startJob(): Promise<JobHandle> {
    throw new Error('not used');
  }
  async adoptJob(): Promise<JobHandle | null> {
    return null;
  }
  async pause(): Promise<void> {}
  async resume(): Promise<void> {}
  async cancel(): Promise<'cancelled'> {
    return 'cancelled';
  }
  async home(): Promise<{ ok: boolean; lines: string[] }> {
    return { ok: true, lines: [] };
  }
  async cooldown(): Promise<void> {}
  emergencyStop(): void {}
  async sendCommand(): Promise<{ ok: boolean; lines: string[] }> {
    return { ok: true, lines: [] };
  }
}

function rig(): { p: StandIn; events: string[]; clock: ManualClock } {
  const bus = new EventBus();
  const events: string[] = [];
  bus.onAny((payload, name) => {
    const p = payload as { reason?: string; error?: { code: string } };
    events.push([name, p.reason, p.error?.code].filter((x) => x !== undefined).join(' '));
  });
  const clock = new ManualClock();
  const p = new StandIn({ printerId: 'p1', url: 'standin://printer', bus, clock, extrusionIndexes: new ExtrusionIndexCache() });
  return { p, events, clock };
}

test('a run of reports: each change publishes its one event, the reason and error shown only while they stand', async () => {
  const { p, events } = rig();
  p.report('connecting');
  p.report('idle');
  p.report('idle');
  p.report('printing');
  p.report('error', 'firmware_error', 'Klipper is shut down');
  assert.deepEqual(p.snapshot().error, { code: 'firmware_error', message: 'Klipper is shut down' });
  p.report('idle');
  assert.equal(p.snapshot().error, null);
  p.lose('unreachable', 'ECONNREFUSED');
  assert.equal(p.snapshot().offline_reason, 'unreachable');
  assert.equal(p.linkInfo().connectedAt, null);
  p.report('connecting', 'unreachable', 'ECONNREFUSED');
  p.lose('unreachable', 'ECONNREFUSED');
  p.report('idle');
  await p.disconnect();
  assert.deepEqual(events, [
    'printer.online',
    'printer.error Klipper is shut down',
    'printer.online',
    'printer.offline ECONNREFUSED',
    'printer.online',
    'printer.offline disconnected',
  ]);
  assert.equal(p.snapshot().offline_reason, null, 'disconnected on purpose: no reason to act on');
});

test('a refused start fails the job as file_invalid and gives the printer back idle; an accepted one publishes job.started', async () => {
  const { p, events } = rig();
  p.report('idle');
  const refused = p.newJob();
  await assert.rejects(p.begin(refused, () => Promise.reject(new Error('HTTP 415'))), /refused: HTTP 415/);
  assert.equal(p.currentStatus, 'idle');
  assert.equal(p.followed, null);
  assert.deepEqual(await refused.finished, { status: 'failed', error: { code: 'file_invalid', message: 'HTTP 415' } });
  const job = p.newJob();
  let seen: PrinterStatus | null = null;
  const handle = await p.begin(job, async () => {
    seen = p.currentStatus;
  });
  assert.equal(seen, 'printing', 'held printing while the kind uploads and starts');
  assert.equal(handle.id, 'j1');
  assert.equal(p.snapshot().job?.id, 'j1');
  assert.deepEqual(events.slice(1), ['job.started']);
});

test('a job ends once: completed fills its counters, publishes its last progress, and the bed needs clearing', async () => {
  const { p, events, clock } = rig();
  p.report('idle');
  const job = p.newJob();
  await p.begin(job, async () => undefined);
  clock.advance(4000);
  assert.equal(p.finish(job, { status: 'completed' }), true);
  assert.equal(p.finish(job, { status: 'failed', error: { code: 'link_lost', message: 'late' } }), false, 'one ending');
  assert.deepEqual(events.slice(1), ['job.started', 'job.progress', 'job.completed']);
  const snap = job.handle.snapshot();
  assert.equal(snap.bytes_acked, 1000);
  assert.equal(snap.elapsed_ms, 4000);
  clock.advance(4000);
  assert.equal(job.handle.snapshot().elapsed_ms, 4000, 'the time stops at the end');
  assert.equal(p.snapshot().job, null);
  assert.equal(p.snapshot().ready, false);
  p.report('idle');
  await assert.rejects(p.begin(p.newJob(), async () => undefined), /waiting for the bed to be cleared/);
  p.markReady();
  assert.equal(p.snapshot().ready, true);
});

test('a cancel the printer takes slowly answers pending; a late refusal withdraws it', async () => {
  const { p } = rig();
  p.report('idle');
  const job = p.newJob();
  await p.begin(job, async () => undefined);
  let refuse!: (err: Error) => void;
  const late: Error[] = [];
  const answer = await p.cancelWith(() => new Promise<void>((_resolve, reject) => (refuse = reject)), (err) => late.push(err));
  assert.equal(answer, 'pending');
  assert.equal(job.handle.snapshot().pending_action, 'cancel');
  refuse(new Error('the printer said no'));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(late.map((e) => e.message), ['the printer said no']);
  assert.equal(job.handle.snapshot().pending_action, null, 'withdrawn: the print goes on');
  assert.equal(await p.cancelWith(() => Promise.resolve(), () => undefined), 'cancelled');
  await assert.rejects(p.cancelWith(() => Promise.reject(new Error('HTTP 409')), () => undefined), /HTTP 409/);
  assert.equal(job.cancelRequested, false, 'a refused cancel leaves no pending cancel');
});
