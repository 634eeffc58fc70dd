// One job printing on a Moonraker: the counters from the printer's reports, the filament from the file's extrusion
// index at the reported file position, and when a report concerns it (claims). The rest is NetworkJob's.
import type { Instant } from '../../clock.js';
import type { ExtrusionIndex } from '../../protocol/extrusion-index.js';
import { NetworkJob, type JobCounters } from '../network/network-job.js';
import type { PrintState, PrintView } from './moonraker-state.js';

export class MoonrakerJob extends NetworkJob {
  /** Set once the printer showed this file printing (or ended after our start): from then on its state is ours. */
  armed = false;
  /** /printer/print/start answered ok. */
  startAcked = false;
  index: ExtrusionIndex | null = null;
  private filePosition = 0;
  private fileSize: number;
  private progress = 0;

  constructor(
    id: string,
    filePath: string,
    remoteName: string,
    start: Instant,
    fileSize: number,
    /** print_stats before our start: an old ending of the same file name is not this job's. */
    readonly baseline: { filename: string; state: PrintState },
    monotonic: () => number,
  ) {
    super(id, filePath, remoteName, start, monotonic);
    this.fileSize = fileSize;
  }

  /** Takes the printer's counters; returns true when the file position moved. */
  observe(v: PrintView): boolean {
    if (this.outcome) return false;
    const moved = v.filePosition !== this.filePosition;
    this.filePosition = v.filePosition;
    if (v.fileSize > 0) this.fileSize = v.fileSize;
    this.progress = v.progress;
    // Pauses as the printer reports them. Klipper's own print_duration is no use for the job's time: it starts at
    // the first extrusion (klippy/extras/print_stats.py), so a heat-up of minutes would read as no time at all.
    this.clock.notePaused(v.state === 'paused', this.monotonic());
    return moved;
  }

  /** Does this report concern our print? Arms the job the first time it does. */
  claims(v: PrintView): boolean {
    if (v.filename !== this.remoteName) return false;
    if (this.armed) return true;
    const active = v.state === 'printing' || v.state === 'paused';
    // Reports are coalesced: a short print may go from our start straight to its ending between two of them. Not
    // `standby`: Klipper answers the start once the file is loaded (print_stats standby, our file name) and only marks
    // it printing on its next reactor turn (virtual_sdcard work_handler); a report sent in between is no ending.
    const endedSinceStart = this.startAcked && v.state !== 'standby' && (this.baseline.filename !== this.remoteName || this.baseline.state !== v.state);
    if (active || endedSinceStart) this.armed = true;
    return this.armed;
  }

  get bytesDone(): number {
    return this.filePosition;
  }

  get printedAny(): boolean {
    return this.filePosition > 0;
  }

  get progressPct(): number {
    return this.progress;
  }

  protected fillCounters(): void {
    this.filePosition = this.fileSize;
    this.progress = 100;
  }

  protected counters(): JobCounters {
    return {
      progress: this.progress,
      bytes_acked: this.filePosition,
      bytes_total: this.fileSize,
      gcode_bytes_acked: this.filePosition,
      gcode_bytes_total: this.fileSize,
      extruded_mm: this.index ? this.index.extrudedAt(this.filePosition) : [],
      used_basis: 'file_position',
      // Sent to the printer and not yet shown by it (Klipper runs a cancel behind an M109 wait, a pause after the move).
      pending_action: this.outcome ? null : this.cancelRequested ? 'cancel' : this.phase === 'pausing' ? 'pause' : null,
    };
  }
}
