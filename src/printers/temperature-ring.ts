// A fixed-size ring of temperature samples for one printer: the oldest falls out when full. Pure, no clock, no I/O.

/** One reading; null when the printer did not report that value. `at` is ms since the epoch. */
export interface TemperatureSample {
  at: number;
  hotend: number | null;
  hotend_target: number | null;
  bed: number | null;
  bed_target: number | null;
}

/** An hour at one sample every 5 s. */
export const TEMPERATURE_RING_CAPACITY = 720;

/** Values per sample in the flat array: at, hotend, hotend_target, bed, bed_target. */
const WIDTH = 5;

/**
 * The samples live in one preallocated Float64Array (NaN for null), so a printer's history costs the same few tens of
 * kilobytes from the first sample on, however long the server runs.
 */
export class TemperatureRing {
  private readonly data: Float64Array;
  /** Index of the slot the next push writes. */
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number = TEMPERATURE_RING_CAPACITY) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new Error(`ring capacity must be a positive integer, not ${capacity}`);
    this.data = new Float64Array(capacity * WIDTH);
  }

  get size(): number {
    return this.count;
  }

  push(s: TemperatureSample): void {
    const o = this.next * WIDTH;
    this.data[o] = s.at;
    this.data[o + 1] = s.hotend ?? NaN;
    this.data[o + 2] = s.hotend_target ?? NaN;
    this.data[o + 3] = s.bed ?? NaN;
    this.data[o + 4] = s.bed_target ?? NaN;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  /** The samples taken at or after `sinceMs`, oldest first (in the order they were pushed). */
  since(sinceMs: number = -Infinity): TemperatureSample[] {
    const out: TemperatureSample[] = [];
    const first = (this.next - this.count + this.capacity) % this.capacity;
    for (let i = 0; i < this.count; i++) {
      const o = ((first + i) % this.capacity) * WIDTH;
      const at = this.data[o]!;
      if (at < sinceMs) continue;
      out.push({ at, hotend: value(this.data[o + 1]!), hotend_target: value(this.data[o + 2]!), bed: value(this.data[o + 3]!), bed_target: value(this.data[o + 4]!) });
    }
    return out;
  }
}

const value = (n: number): number | null => (Number.isNaN(n) ? null : n);
