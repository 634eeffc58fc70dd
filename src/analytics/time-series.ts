// Pure accumulation of a time series: named sums per calendar bucket, fed sums per bucket (made in SQL) and job spans (cut per bucket).
import { jobOverlap, type JobSpan } from './job-overlap.js';
import { bucketLabel, type Interval } from './time-buckets.js';

export interface SeriesPoint {
  /** Bucket start, UTC. */
  start: string;
  /** Bucket start as a local calendar label in the series' zone. */
  label: string;
  [metric: string]: number | string;
}

export class TimeSeries<K extends string> {
  private readonly sums: Record<K, number>[];

  /**
   * `starts`: ascending bucket starts (bucketRange of the period). The series is clipped to the period [fromMs, endMs):
   * the first bucket counts from fromMs, the last stops at endMs, so its sums add up to the period's totals.
   */
  constructor(
    private readonly starts: number[],
    private readonly fromMs: number,
    private readonly endMs: number,
    private readonly interval: Interval,
    private readonly tz: string,
    private readonly keys: readonly K[],
  ) {
    this.sums = starts.map(() => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>);
  }

  /** Index of the bucket holding `ms`, or -1 outside the series. */
  private indexOf(ms: number): number {
    if (this.starts.length === 0 || ms < this.fromMs || ms >= this.endMs) return -1;
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= ms) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Adds `amount` to `key` in the bucket at `index` (sums made elsewhere, e.g. counted per bucket in SQL). */
  addAt(index: number, key: K, amount: number): void {
    this.sums[index]![key] += amount;
  }

  /** The buckets as clipped to the period: [bounds[i], bounds[i + 1]) in UTC ms, from the period's start to its end. */
  bounds(): number[] {
    return [...this.starts.map((start, i) => (i === 0 ? this.fromMs : start)), this.endMs];
  }

  /** Spreads a job over the buckets it overlaps: printing seconds to `secondsKey`, `amount` × share to `amountKey`. */
  addSpan(span: JobSpan, nowMs: number, secondsKey: K | null, amountKey: K | null = null, amount = 0): void {
    const end = span.completedMs ?? Math.max(span.startedMs, nowMs);
    const first = Math.max(0, this.indexOf(Math.max(span.startedMs, this.fromMs)));
    for (let i = first; i < this.starts.length && this.starts[i]! <= end; i++) {
      const o = jobOverlap(span, Math.max(this.starts[i]!, this.fromMs), Math.min(this.starts[i + 1] ?? this.endMs, this.endMs), nowMs);
      if (secondsKey) this.sums[i]![secondsKey] += o.seconds;
      if (amountKey) this.sums[i]![amountKey] += amount * o.share;
    }
  }

  /** The points, each metric rounded to `digits` decimals. */
  points(digits = 2): SeriesPoint[] {
    const f = 10 ** digits;
    return this.starts.map((start, i) => {
      const point: SeriesPoint = { start: new Date(start).toISOString(), label: bucketLabel(start, this.interval, this.tz) };
      for (const k of this.keys) point[k] = Math.round(this.sums[i]![k] * f) / f;
      return point;
    });
  }
}
