// What every job a network printer prints from its own copy shares: its handle and one ending, the phase and the
// pending cancel the API shows, and its printing time (JobClock). A kind adds its counters (what the printer reports:
// a file position or a percentage) and how filament follows from them.
import type { Instant } from '../../clock.js';
import type { JobOutcome, JobSnapshot } from '../printer-state.js';
import type { JobHandle } from '../session-job-control.js';
import { JobClock } from './job-clock.js';

/** The counters of a job's snapshot a kind reports; the rest of the snapshot is the same for every kind. */
export type JobCounters = Pick<
  JobSnapshot,
  'progress' | 'bytes_acked' | 'bytes_total' | 'gcode_bytes_acked' | 'gcode_bytes_total' | 'extruded_mm' | 'used_basis' | 'pending_action'
> & { elapsed_ms?: number };

export abstract class NetworkJob {
  readonly handle: JobHandle;
  readonly finished: Promise<JobOutcome>;
  readonly clock: JobClock;
  phase: JobSnapshot['phase'] = 'streaming';
  cancelRequested = false;
  outcome: JobOutcome | null = null;
  private settle!: (o: JobOutcome) => void;

  constructor(
    readonly id: string,
    readonly filePath: string,
    /** The name of the upload on the printer. */
    readonly remoteName: string,
    /** The same instant on both clocks: started_at from the wall, the elapsed time from the monotonic one. */
    start: Instant,
    /** Reads the monotonic clock: a wall-clock jump mid-print must not make the elapsed time negative or hours long. */
    protected readonly monotonic: () => number,
  ) {
    this.clock = new JobClock(start);
    this.finished = new Promise<JobOutcome>((resolve) => (this.settle = resolve));
    this.handle = { id, finished: this.finished, snapshot: () => this.snapshot() };
  }

  get startedAt(): number {
    return this.clock.startedAt;
  }

  /** The file bytes done: the job.progress events' bytes_acked. */
  abstract get bytesDone(): number;
  /** The printer printed something of it: after its end the bed needs clearing. */
  abstract get printedAny(): boolean;
  /** The kind's counters for the snapshot. */
  protected abstract counters(): JobCounters;
  /** A completed job did the whole file: the counters say so. */
  protected abstract fillCounters(): void;

  /** Ends the job once; returns false when it had ended already. */
  end(outcome: JobOutcome): boolean {
    if (this.outcome) return false;
    if (outcome.status === 'completed') this.fillCounters();
    this.outcome = outcome;
    this.clock.stop(this.monotonic());
    this.settle(outcome);
    return true;
  }

  snapshot(): JobSnapshot {
    const { elapsed_ms, ...c } = this.counters();
    return {
      id: this.id,
      file_path: this.filePath,
      ...c,
      lines_acked: 0,
      lines_sent: 0,
      lines_total: null,
      phase: this.phase,
      started_at: this.startedAt,
      elapsed_ms: elapsed_ms ?? this.clock.elapsedMs(this.monotonic()),
    };
  }
}

/** The file offset a reported percentage stands for (printers that report only a share of their copy). */
export const percentOffset = (progress: number, fileSize: number): number => Math.round((progress / 100) * fileSize);

/**
 * The counters of a job its printer reports as a percentage of the file (PrusaLink, Bambu): bytes at that share, the
 * filament read from the file there (`used_basis` progress_percent), no pending action (the printer runs its own copy:
 * an action takes effect there, never held behind a wait of ours).
 */
export function percentCounters(progress: number, fileSize: number, extrudedMm: number[]): JobCounters {
  return {
    progress,
    bytes_acked: percentOffset(progress, fileSize),
    bytes_total: fileSize,
    gcode_bytes_acked: 0,
    gcode_bytes_total: null,
    extruded_mm: extrudedMm,
    used_basis: 'progress_percent',
    pending_action: null,
  };
}
