// One of our jobs as OctoPrint prints it: counters from the reported file position (consumption from the extrusion
// index at that offset) and the phase from OctoPrint's activity. The handle, the ending and the pause-aware elapsed
// time are NetworkJob's.
import type { Instant } from '../../clock.js';
import type { ExtrusionIndex } from '../../protocol/extrusion-index.js';
import type { JobOutcome, JobSnapshot } from '../printer-state.js';
import { NetworkJob, type JobCounters } from '../network/network-job.js';
import type { OpActivity } from './octoprint-state-map.js';

export class OctoPrintJob extends NetworkJob {
  filepos = 0;
  progress = 0;
  /** OctoPrint has shown this file printing: from now on an idle printer means the print ended. */
  seenPrinting = false;
  /** Our pause was sent and OctoPrint has not shown Paused yet. */
  pauseRequested = false;
  lastActivity: OpActivity = 'starting';

  constructor(
    id: string,
    filePath: string,
    remoteName: string,
    readonly size: number,
    readonly index: ExtrusionIndex,
    start: Instant,
    monotonic: () => number,
  ) {
    super(id, filePath, remoteName, start, monotonic);
  }

  /** Applies a reported position and activity; true when the progress moved (a job.progress is due). */
  update(filepos: number | null, completion: number, activity: OpActivity): boolean {
    this.lastActivity = activity;
    this.setPhase(activity);
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

  private setPhase(activity: OpActivity): void {
    const phase: JobSnapshot['phase'] =
      activity === 'paused' ? 'paused' : activity === 'pausing' ? 'pausing' : activity === 'resuming' ? 'resuming' : activity === 'finishing' ? 'finishing' : 'streaming';
    this.clock.notePaused(phase === 'paused', this.monotonic());
    this.phase = phase;
  }

  override end(outcome: JobOutcome): boolean {
    if (this.outcome) return false;
    this.setPhase('printing');
    return super.end(outcome);
  }

  get bytesDone(): number {
    return this.filepos;
  }

  get printedAny(): boolean {
    return this.seenPrinting;
  }

  protected fillCounters(): void {
    this.filepos = this.size;
    this.progress = 100;
  }

  protected counters(): JobCounters {
    return {
      progress: Math.round(this.progress * 100) / 100,
      bytes_acked: this.filepos,
      bytes_total: this.size,
      gcode_bytes_acked: 0,
      gcode_bytes_total: null,
      extruded_mm: this.index.extrudedAt(this.filepos),
      used_basis: 'file_position',
      // Taken by the printer, not done yet: OctoPrint shows Cancelling/Pausing while Marlin's buffered moves run.
      pending_action: this.outcome ? null : this.cancelRequested || this.lastActivity === 'cancelling' ? 'cancel' : this.phase === 'pausing' || (this.pauseRequested && this.phase !== 'paused') ? 'pause' : null,
    };
  }
}
