// One job printing on a Moonraker: its handle, the counters from the printer's reports, the filament from the file's
// extrusion index at the reported file position, and its one ending.
import type { Instant } from '../../clock.js';
import type { ExtrusionIndex } from '../../protocol/extrusion-index.js';
import type { JobOutcome, JobSnapshot } from '../printer-state.js';
import type { JobHandle } from '../session-job-control.js';
import type { PrintState, PrintView } from './moonraker-state.js';

export class MoonrakerJob {
  readonly handle: JobHandle;
  /** Set once the printer showed this file printing (or ended after our start): from then on its state is ours. */
  armed = false;
  /** /printer/print/start answered ok. */
  startAcked = false;
  cancelRequested = false;
  phase: JobSnapshot['phase'] = 'streaming';
  outcome: JobOutcome | null = null;
  index: ExtrusionIndex | null = null;
  private filePosition = 0;
  private fileSize: number;
  private progress = 0;
  /** Monotonic ms spent paused so far, and since when the current pause runs (null: not paused). */
  private pausedMs = 0;
  private pausedSince: number | null = null;
  /** Monotonic reading at the ending. */
  private endedAt: number | null = null;
  private settle!: (o: JobOutcome) => void;
  /** Wall-clock ms of the start, for the record (started_at); the elapsed time is measured from `startMono`. */
  readonly startedAt: number;
  private readonly startMono: number;

  constructor(
    readonly id: string,
    readonly filePath: string,
    /** The name of the upload on the printer (relative to the gcodes root). */
    readonly remoteName: string,
    /** The same instant on both clocks: started_at from the wall, the elapsed time from the monotonic one. */
    start: Instant,
    fileSize: number,
    /** print_stats before our start: an old ending of the same file name is not this job's. */
    readonly baseline: { filename: string; state: PrintState },
    /** Reads the monotonic clock: a wall-clock jump mid-print must not make the elapsed time negative or hours long. */
    private readonly monotonic: () => number,
  ) {
    this.startedAt = start.wall;
    this.startMono = start.monotonic;
    this.fileSize = fileSize;
    const finished = new Promise<JobOutcome>((resolve) => (this.settle = resolve));
    this.handle = { id, finished, snapshot: () => this.snapshot() };
  }

  /** Takes the printer's counters; returns true when the file position moved. */
  observe(v: PrintView): boolean {
    if (this.outcome) return false;
    const moved = v.filePosition !== this.filePosition;
    this.filePosition = v.filePosition;
    if (v.fileSize > 0) this.fileSize = v.fileSize;
    this.progress = v.progress;
    this.notePaused(v.state === 'paused');
    return moved;
  }

  /** Does this report concern our print? Arms the job the first time it does. */
  claims(v: PrintView): boolean {
    if (v.filename !== this.remoteName) return false;
    if (this.armed) return true;
    const active = v.state === 'printing' || v.state === 'paused';
    // Reports are coalesced: a short print may go from our start straight to its ending between two of them.
    const endedSinceStart = this.startAcked && (this.baseline.filename !== this.remoteName || this.baseline.state !== v.state);
    if (active || endedSinceStart) this.armed = true;
    return this.armed;
  }

  /**
   * Pauses as the printer reports them. Klipper's own print_duration is no use for the job's time: it starts at the
   * first extrusion (klippy/extras/print_stats.py), so a heat-up of minutes would read as no time at all.
   */
  private notePaused(paused: boolean): void {
    const now = this.monotonic();
    if (paused && this.pausedSince === null) this.pausedSince = now;
    else if (!paused && this.pausedSince !== null) {
      this.pausedMs += now - this.pausedSince;
      this.pausedSince = null;
    }
  }

  /** Ends the job once; returns false when it had ended already. */
  end(outcome: JobOutcome): boolean {
    if (this.outcome) return false;
    this.outcome = outcome;
    this.endedAt = this.monotonic();
    if (outcome.status === 'completed') {
      this.filePosition = this.fileSize;
      this.progress = 100;
    }
    this.settle(outcome);
    return true;
  }

  get bytesAcked(): number {
    return this.filePosition;
  }

  get progressPct(): number {
    return this.progress;
  }

  snapshot(): JobSnapshot {
    const now = this.endedAt ?? this.monotonic();
    return {
      id: this.id,
      file_path: this.filePath,
      progress: this.progress,
      bytes_acked: this.filePosition,
      bytes_total: this.fileSize,
      gcode_bytes_acked: this.filePosition,
      gcode_bytes_total: this.fileSize,
      lines_acked: 0,
      lines_sent: 0,
      lines_total: null,
      phase: this.phase,
      started_at: this.startedAt,
      // Printing time as a serial job counts it: from the start, heat-ups included, pauses left out, on the monotonic clock.
      elapsed_ms: Math.max(0, Math.round(now - this.startMono - this.pausedMs - (this.pausedSince !== null ? now - this.pausedSince : 0))),
      extruded_mm: this.index ? this.index.extrudedAt(this.filePosition) : [],
      used_basis: 'file_position',
      // Sent to the printer and not yet shown by it (Klipper runs a cancel behind an M109 wait, a pause after the move).
      pending_action: this.outcome ? null : this.cancelRequested ? 'cancel' : this.phase === 'pausing' ? 'pause' : null,
    };
  }
}
