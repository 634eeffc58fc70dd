// A job the Bambu driver follows: the printer prints its own copy and reports a percentage, layers and the time left;
// the filament is read from the file's extrusion index at that share of it. The handle, ending and time are NetworkJob's.
import type { Instant } from '../../clock.js';
import type { ExtrusionIndex } from '../../protocol/extrusion-index.js';
import { NetworkJob, percentCounters, percentOffset, type JobCounters } from '../network/network-job.js';

export class BambuJob extends NetworkJob {
  /** The printer showed this upload printing (its gcode_file is our name); before that its report is the last print's. */
  seen = false;
  /** Monotonic time the printer accepted project_file. */
  acceptedMono: number | null = null;
  progress = 0;
  layer: number | null = null;
  remainingMinutes: number | null = null;
  index: ExtrusionIndex | null = null;

  constructor(
    id: string,
    filePath: string,
    remoteName: string,
    readonly fileSize: number,
    start: Instant,
    monotonic: () => number,
  ) {
    super(id, filePath, remoteName, start, monotonic);
  }

  get bytesDone(): number {
    return percentOffset(this.progress, this.fileSize);
  }

  get printedAny(): boolean {
    return this.progress > 0 || this.seen;
  }

  protected fillCounters(): void {
    this.progress = 100;
  }

  protected counters(): JobCounters {
    return percentCounters(this.progress, this.fileSize, this.index ? this.index.extrudedAt(this.bytesDone) : []);
  }
}
