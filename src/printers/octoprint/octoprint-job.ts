// One of our jobs as OctoPrint prints it: counters from the reported file position (consumption from the extrusion
// index at that offset), the pause-aware elapsed time (on the monotonic clock), and the `finished` promise its handle
// hands out.
import type { Instant } from '../../clock.js';
import type { ExtrusionIndex } from '../../protocol/extrusion-index.js';
import type { JobOutcome, JobSnapshot } from '../printer-state.js';
import type { JobHandle } from '../session-job-control.js';
import type { OpActivity } from './octoprint-state-map.js';

export class OctoPrintJob {
  filepos = 0;
  progress = 0;
  phase: JobSnapshot['phase'] = 'streaming';
  /** OctoPrint has shown this file printing: from now on an idle printer means the print ended. */
  seenPrinting = false;
  cancelRequested = false;
  /** Our pause was sent and OctoPrint has not shown Paused yet. */
  pauseRequested = false;
  lastActivity: OpActivity = 'starting';
  outcome: JobOutcome | null = null;
  readonly finished: Promise<JobOutcome>;
  private resolve!: (o: JobOutcome) => void;
  private pausedMs = 0;
  private pausedSince: number | null = null;
  private endedAt: number | null = null;
  /** Wall-clock ms of the start, for the record (started_at); the elapsed time runs from `startMono` instead. */
  readonly startedAt: number;
  private readonly startMono: number;

  /**
   * `start`: the same instant on the wall clock (kept as started_at) and on the monotonic clock, which every `now` given
   * to this job's methods is read from: a wall-clock jump mid-print changes neither the elapsed time nor the pauses.
   */
  constructor(
    readonly id: string,
    readonly filePath: string,
    readonly remoteName: string,
    readonly size: number,
    readonly index: ExtrusionIndex,
    start: Instant,
  ) {
    this.startedAt = start.wall;
    this.startMono = start.monotonic;
    this.finished = new Promise((r) => (this.resolve = r));
  }

  /** Applies a reported position and activity; true when the progress moved (a job.progress is due). */
  update(filepos: number | null, completion: number, activity: OpActivity, now: number): boolean {
    this.lastActivity = activity;
    this.setPhase(activity, now);
    if (filepos === null) {
      if (completion <= this.progress) return false;
      this.progress = completion;
      return true;
    }
    // OctoPrint's filepos only grows during one print; a smaller one is a stale update.
    const pos = Math.min(Math.max(filepos, 0), this.size);
    if (pos <= this.filepos) return false;
    this.filepos = pos;
    this.progress = this.size > 0 ? (pos / this.size) * 100 : completion;
    return true;
  }

  private setPhase(activity: OpActivity, now: number): void {
    const phase: JobSnapshot['phase'] =
      activity === 'paused' ? 'paused' : activity === 'pausing' ? 'pausing' : activity === 'resuming' ? 'resuming' : activity === 'finishing' ? 'finishing' : 'streaming';
    if (phase === 'paused' && this.pausedSince === null) this.pausedSince = now;
    if (phase !== 'paused' && this.pausedSince !== null) {
      this.pausedMs += now - this.pausedSince;
      this.pausedSince = null;
    }
    this.phase = phase;
  }

  end(outcome: JobOutcome, now: number): boolean {
    if (this.outcome) return false;
    if (outcome.status === 'completed') {
      this.filepos = this.size;
      this.progress = 100;
    }
    this.setPhase('printing', now);
    this.outcome = outcome;
    this.endedAt = now;
    this.resolve(outcome);
    return true;
  }

  snapshot(now: number): JobSnapshot {
    const until = this.endedAt ?? now;
    const pausedNow = this.pausedSince !== null ? until - this.pausedSince : 0;
    return {
      id: this.id,
      file_path: this.filePath,
      progress: Math.round(this.progress * 100) / 100,
      bytes_acked: this.filepos,
      bytes_total: this.size,
      gcode_bytes_acked: 0,
      gcode_bytes_total: null,
      lines_acked: 0,
      lines_sent: 0,
      lines_total: null,
      phase: this.phase,
      started_at: this.startedAt,
      elapsed_ms: Math.max(0, Math.round(until - this.startMono - this.pausedMs - pausedNow)),
      extruded_mm: this.index.extrudedAt(this.filepos),
      used_basis: 'file_position',
      // Taken by the printer, not done yet: OctoPrint shows Cancelling/Pausing while Marlin's buffered moves run.
      pending_action: this.outcome ? null : this.cancelRequested || this.lastActivity === 'cancelling' ? 'cancel' : this.phase === 'pausing' || (this.pauseRequested && this.phase !== 'paused') ? 'pause' : null,
    };
  }

  /** `now` reads the monotonic clock. */
  handle(now: () => number): JobHandle {
    return { id: this.id, finished: this.finished, snapshot: () => this.snapshot(now()) };
  }
}
