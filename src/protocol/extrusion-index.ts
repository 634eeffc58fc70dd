// A compact map from byte offsets in a G-code file to the filament each tool has pushed up to there: built once per file
// by running the extrusion tracker over every line, so a printer that prints its own copy of the file (Moonraker,
// OctoPrint) and reports only its position in it is charged exactly what the file extruded up to that position.
import { ExtrusionTracker, type ExtrusionDialect } from './extrusion-tracker.js';

/** Built line by line (the I/O shell reads the file); a checkpoint is kept only where a line changed a total. */
export class ExtrusionIndexBuilder {
  private readonly tracker: ExtrusionTracker;
  private offsets: number[] = [];
  /** Per tool, the running net total after each checkpoint (same length as offsets). */
  private totals: number[][] = [];
  private last: number[];

  constructor(dialect: ExtrusionDialect) {
    this.tracker = new ExtrusionTracker(dialect);
    // A fresh tracker's tools have pushed nothing: no checkpoint until a line changes that.
    this.last = Array.from({ length: this.tracker.toolCount }, () => 0);
  }

  /** `endOffset`: the byte offset just past this line (its terminator included). Lines must come in file order. */
  addLine(line: string, endOffset: number): void {
    this.tracker.update(line);
    const tools = this.tracker.toolCount;
    let changed = tools !== this.last.length;
    for (let t = 0; t < tools && !changed; t++) changed = this.tracker.netMm(t) !== this.last[t];
    if (!changed) return;
    const now = Array.from({ length: tools }, (_, t) => this.tracker.netMm(t));
    this.offsets.push(endOffset);
    this.totals.push(now);
    this.last = now;
  }

  build(): ExtrusionIndex {
    const tools = this.last.length;
    const n = this.offsets.length;
    const offsets = new Float64Array(this.offsets);
    const columns = Array.from({ length: tools }, (_, t) => {
      const col = new Float32Array(n);
      for (let i = 0; i < n; i++) col[i] = this.totals[i]![t] ?? 0;
      return col;
    });
    this.offsets = [];
    this.totals = [];
    return new ExtrusionIndex(offsets, columns);
  }
}

export class ExtrusionIndex {
  constructor(
    /** Ascending byte offsets just past each line that changed a total. */
    private readonly offsets: Float64Array,
    /** Per tool, the net mm extruded up to the matching offset. */
    private readonly columns: Float32Array[],
  ) {}

  /** Tools the file uses (index = tool number). */
  get tools(): number {
    return this.columns.length;
  }

  /** Bytes the index holds, for the cache's budget. */
  get bytes(): number {
    return this.offsets.byteLength + this.columns.reduce((sum, c) => sum + c.byteLength, 0);
  }

  /** The whole file's net extrusion per tool (mm). */
  total(): number[] {
    return this.columns.map((c) => (c.length ? c[c.length - 1]! : 0));
  }

  /** Net mm per tool of every line that ends at or before `offset` (a printer's position in the file: bytes read). */
  extrudedAt(offset: number): number[] {
    let lo = 0;
    let hi = this.offsets.length; // first checkpoint past the offset
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.offsets[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return this.columns.map((c) => (lo === 0 ? 0 : c[lo - 1]!));
  }
}
