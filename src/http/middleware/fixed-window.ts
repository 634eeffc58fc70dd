// Fixed-window counters in memory (per key, per client address): pure apart from the clock value passed in.

export interface WindowState {
  count: number;
  /** Unix ms the current window ends (and the count resets). */
  resetAt: number;
}

/** Windows are aligned to multiples of windowMs since the epoch, so every counter resets at the same instants. */
export class FixedWindowCounter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly windowMs: number,
    /** Past this many tracked ids, stale windows are dropped (bounds memory under an address flood). */
    private readonly maxEntries = 10_000,
  ) {}

  private windowStart(nowMs: number): number {
    return Math.floor(nowMs / this.windowMs) * this.windowMs;
  }

  peek(id: string, nowMs: number): WindowState {
    const start = this.windowStart(nowMs);
    const w = this.windows.get(id);
    return { count: w && w.start === start ? w.count : 0, resetAt: start + this.windowMs };
  }

  /** Counts one event and returns the state including it. */
  hit(id: string, nowMs: number): WindowState {
    const start = this.windowStart(nowMs);
    let w = this.windows.get(id);
    if (!w || w.start !== start) {
      if (!w && this.windows.size >= this.maxEntries) this.prune(start);
      w = { start, count: 0 };
      this.windows.set(id, w);
    }
    w.count += 1;
    return { count: w.count, resetAt: start + this.windowMs };
  }

  private prune(currentStart: number): void {
    for (const [id, w] of this.windows) if (w.start !== currentStart) this.windows.delete(id);
    // Still full of live windows: forget the oldest-inserted rather than grow without bound.
    while (this.windows.size >= this.maxEntries) {
      const first = this.windows.keys().next().value;
      if (first === undefined) break;
      this.windows.delete(first);
    }
  }
}
