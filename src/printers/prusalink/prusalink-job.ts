// A job the PrusaLink driver follows: the printer prints its own copy, so progress is what the printer reports and
// the filament is read from the file at that share of it (PrusaLink gives a percentage, no position in the file). The
// handle, the ending and the elapsed time are NetworkJob's.
import type { Instant } from '../../clock.js';
import type { ExtrusionIndex } from '../../protocol/extrusion-index.js';
import type { JobSnapshot } from '../printer-state.js';
import { NetworkJob, percentCounters, percentOffset, type JobCounters } from '../network/network-job.js';

/** Where the grams come from: PrusaLink reports only a percentage. */
export type UsedBasis = 'progress_percent';

/** The job snapshot of a PrusaLink job: `used_basis` says how `extruded_mm` was found (the lead surfaces it). */
export type PrusaLinkJobSnapshot = JobSnapshot & { used_basis: UsedBasis };

/** How filament up to a share of the file is found: the file's index (G-code) or its total (binary G-code). */
export type FilamentSource = { kind: 'index'; index: ExtrusionIndex } | { kind: 'total'; mm: number } | null;

export class PrusaLinkJob extends NetworkJob {
  /** The printer's job id once the printer shows it. */
  printerJobId: number | null = null;
  progress = 0;
  timePrintingS: number | null = null;
  /** Monotonic time the printer took the upload (its print had begun then); null until then. */
  acceptedMono: number | null = null;
  filament: FilamentSource = null;

  constructor(
    id: string,
    filePath: string,
    remoteName: string,
    readonly fileSize: number,
    /** started_at for people; the elapsed time, until the printer reports its own, from the monotonic reading. */
    start: Instant,
    /** The printer's job id before our upload: a FINISHED/STOPPED of that one is not ours. */
    readonly previousPrinterJobId: number | null,
    monotonic: () => number,
  ) {
    super(id, filePath, remoteName, start, monotonic);
  }

  /** The file offset the reported percentage stands for. */
  offset(): number {
    return percentOffset(this.progress, this.fileSize);
  }

  extrudedMm(): number[] {
    const f = this.filament;
    if (f === null) return [];
    if (f.kind === 'index') return f.index.extrudedAt(this.offset());
    return [(f.mm * this.progress) / 100];
  }

  get bytesDone(): number {
    return this.offset();
  }

  get printedAny(): boolean {
    return this.progress > 0;
  }

  /** The firmware caps a percentage read from the file position at 99: a completed print did the whole file. */
  protected fillCounters(): void {
    this.progress = 100;
  }

  protected counters(): JobCounters {
    return {
      ...percentCounters(this.progress, this.fileSize, this.extrudedMm()),
      ...(this.timePrintingS !== null ? { elapsed_ms: this.timePrintingS * 1000 } : {}),
    };
  }
}
