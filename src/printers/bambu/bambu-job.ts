// A job the Bambu driver follows: the printer prints its own copy and reports a percentage, layers and the time left.
// Filament: a sliced 3MF's metres per slot at that share, on the tool of the AMS tray each slot prints from
// (slice_per_tray); a plain G-code file's extrusion index at that share (progress_percent). The handle, ending and time
// are NetworkJob's.
import type { Instant } from '../../clock.js';
import type { ExtrusionIndex } from '../../protocol/extrusion-index.js';
import { NetworkJob, percentCounters, percentOffset, type JobCounters } from '../network/network-job.js';

/** What a slot of a sliced plate uses, and the tool it is charged to (the AMS tray index; 0 for the external spool). */
export interface SlotUse {
  tool: number;
  /** Millimetres the whole plate uses of it. */
  mm: number;
}

export class BambuJob extends NetworkJob {
  /** The printer showed this upload printing (its gcode_file is our name); before that its report is the last print's. */
  seen = false;
  /** Monotonic time the printer accepted project_file. */
  acceptedMono: number | null = null;
  progress = 0;
  layer: number | null = null;
  remainingMinutes: number | null = null;
  index: ExtrusionIndex | null = null;
  /** A sliced 3MF: each slot's use on its tray; null for plain G-code. */
  slots: SlotUse[] | null = null;

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
    if (this.slots) return { ...percentCounters(this.progress, this.fileSize, slotExtrusion(this.slots, this.progress)), used_basis: 'slice_per_tray' };
    return percentCounters(this.progress, this.fileSize, this.index ? this.index.extrudedAt(this.bytesDone) : []);
  }
}

/** Millimetres per tool at `progress` percent of the plate (two slots on one tray add up). */
export function slotExtrusion(slots: readonly SlotUse[], progress: number): number[] {
  const out: number[] = [];
  for (const s of slots) {
    while (out.length <= s.tool) out.push(0);
    out[s.tool]! += (s.mm * Math.min(100, Math.max(0, progress))) / 100;
  }
  return out;
}
