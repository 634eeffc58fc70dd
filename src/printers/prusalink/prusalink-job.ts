// A job the PrusaLink driver follows: the printer prints its own copy, so progress is what the printer reports and
// the filament is read from the file at that share of it (PrusaLink gives a percentage, no position in the file).
import type { ExtrusionIndex } from '../../protocol/extrusion-index.js';
import type { JobOutcome, JobSnapshot } from '../printer-state.js';
import type { JobHandle } from '../session-job-control.js';

/** Where the grams come from: PrusaLink reports only a percentage. */
export type UsedBasis = 'progress_percent';

/** The job snapshot of a PrusaLink job: `used_basis` says how `extruded_mm` was found (the lead surfaces it). */
export type PrusaLinkJobSnapshot = JobSnapshot & { used_basis: UsedBasis };

/** How filament up to a share of the file is found: the file's index (G-code) or its total (binary G-code). */
export type FilamentSource = { kind: 'index'; index: ExtrusionIndex } | { kind: 'total'; mm: number } | null;

export class PrusaLinkJob {
  /** The printer's job id once the printer shows it. */
  printerJobId: number | null = null;
  progress = 0;
  timePrintingS: number | null = null;
  phase: JobSnapshot['phase'] = 'streaming';
  cancelRequested = false;
  /** Monotonic time the printer took the upload (its print had begun then); null until then. */
  acceptedMono: number | null = null;
  filament: FilamentSource = null;
  outcome: JobOutcome | null = null;
  endedAt: number | null = null;
  /** Monotonic reading at the end: the elapsed time is measured on it, so a wall-clock jump changes nothing. */
  private endedMono: number | null = null;
  readonly finished: Promise<JobOutcome>;
  private resolve!: (o: JobOutcome) => void;

  constructor(
    readonly id: string,
    readonly filePath: string,
    readonly remoteName: string,
    readonly fileSize: number,
    /** Wall clock, for people: the job's started_at. */
    readonly startedAt: number,
    /** Monotonic reading at the start: the elapsed time until the printer reports its own. */
    readonly startedMono: number,
    /** The printer's job id before our upload: a FINISHED/STOPPED of that one is not ours. */
    readonly previousPrinterJobId: number | null,
  ) {
    this.finished = new Promise((r) => (this.resolve = r));
  }

  /** The file offset the reported percentage stands for. */
  offset(): number {
    return Math.round((this.progress / 100) * this.fileSize);
  }

  extrudedMm(): number[] {
    const f = this.filament;
    if (f === null) return [];
    if (f.kind === 'index') return f.index.extrudedAt(this.offset());
    return [(f.mm * this.progress) / 100];
  }

  /** Ends once; returns false when it had already ended. */
  end(outcome: JobOutcome, now: number, mono: number): boolean {
    if (this.outcome) return false;
    this.outcome = outcome;
    this.endedAt = now;
    this.endedMono = mono;
    this.resolve(outcome);
    return true;
  }

  /** `mono`: the clock's monotonic reading now. */
  snapshot(mono: number): PrusaLinkJobSnapshot {
    const end = this.endedMono ?? mono;
    return {
      id: this.id,
      file_path: this.filePath,
      progress: this.progress,
      bytes_acked: this.offset(),
      bytes_total: this.fileSize,
      gcode_bytes_acked: 0,
      gcode_bytes_total: null,
      lines_acked: 0,
      lines_sent: 0,
      lines_total: null,
      phase: this.phase,
      started_at: this.startedAt,
      elapsed_ms: this.timePrintingS !== null ? this.timePrintingS * 1000 : Math.max(0, end - this.startedMono),
      extruded_mm: this.extrudedMm(),
      used_basis: 'progress_percent',
      // The printer runs its own copy: an action takes effect there, never held behind a wait of ours.
      pending_action: null,
    };
  }

  /** `mono`: reads the clock's monotonic time. */
  handle(mono: () => number): JobHandle {
    return { id: this.id, finished: this.finished, snapshot: () => this.snapshot(mono()) };
  }
}
