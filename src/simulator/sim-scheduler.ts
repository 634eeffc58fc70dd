// Time for virtual printers in integer microseconds: one shared real-time timer loop for every printer, or a manual clock.
import { performance } from 'node:perf_hooks';

/**
 * Simulated time is an integer count of microseconds. Floating-point milliseconds lose their fraction as the
 * uptime grows (at 30 days a double resolves ~0.5 ns, but sums of byte times drift), and a wake-up computed in
 * floats can land just before the instant it waits for, forever. Integers compare exactly at any uptime.
 */
export function msToUs(ms: number): number {
  return ms <= 0 ? 0 : Math.round(ms * 1000);
}

/** A pending callback; `fn` is nulled when cancelled (lazy deletion keeps the heap cheap). */
export interface SimTimer {
  /** Due time in integer microseconds. */
  at: number;
  seq: number;
  fn: (() => void) | null;
  owner: SimScheduler;
}

export interface SimScheduler {
  /** Integer microseconds on this scheduler's clock (real time for the real-time loop). */
  nowUs(): number;
  /** Runs `fn` once the clock reaches `atUs` (rounded up to a whole µs; at once, asynchronously, if already past). */
  atUs(atUs: number, fn: () => void): SimTimer;
  cancel(timer: SimTimer | null): void;
  /** Drops every pending timer of this scheduler; later at() calls are ignored. */
  dispose(): void;
}

/** Min-heap on (at, seq) so equal times run in the order they were scheduled. */
class TimerHeap {
  private items: SimTimer[] = [];
  get size(): number {
    return this.items.length;
  }
  peek(): SimTimer | undefined {
    return this.items[0];
  }
  private less(a: SimTimer, b: SimTimer): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }
  push(t: SimTimer): void {
    const h = this.items;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }
  pop(): SimTimer | undefined {
    const h = this.items;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last !== undefined) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

let seqCounter = 0;

/**
 * The process-wide loop: one heap and at most one armed setTimeout, whatever the number of printers.
 * The timer stays referenced only while something is scheduled, so an idle process can exit.
 */
class RealTimeLoop {
  private readonly heap = new TimerHeap();
  private handle: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private armedFor = Infinity;
  private running = false;

  nowUs(): number {
    return Math.floor(performance.now() * 1000);
  }

  add(t: SimTimer): void {
    this.heap.push(t);
    if (!this.running && t.at < this.armedFor) this.arm();
  }

  private arm(): void {
    if (this.handle !== null) clearTimeout(this.handle);
    this.handle = null;
    this.armedFor = Infinity;
    if (this.immediate !== null) return;
    // Skip cancelled timers at the top so a fully cancelled heap does not keep the process alive.
    let top = this.heap.peek();
    while (top !== undefined && top.fn === null) {
      this.heap.pop();
      top = this.heap.peek();
    }
    if (top === undefined) return;
    this.armedFor = top.at;
    const wait = (top.at - this.nowUs()) / 1000;
    // Node clamps setTimeout to >= 1 ms: a timer already due (baud=0, speed=max) runs on the next setImmediate
    // instead, or every host write -> firmware read -> ok hop would cost a millisecond.
    if (wait <= 0) this.immediate = setImmediate(() => this.run());
    else this.handle = setTimeout(() => this.run(), wait);
  }

  private run(): void {
    this.handle = null;
    this.immediate = null;
    this.armedFor = Infinity;
    this.running = true;
    try {
      // Re-read the clock as the batch runs: what fell due meanwhile runs now, not a timer tick (>= 1 ms) later.
      let now = this.nowUs();
      for (let top = this.heap.peek(); top !== undefined; top = this.heap.peek()) {
        if (top.at > now) {
          now = this.nowUs();
          if (top.at > now) break;
        }
        this.heap.pop();
        const fn = top.fn;
        top.fn = null;
        if (fn !== null) fn();
      }
    } finally {
      this.running = false;
      this.arm();
    }
  }
}

const sharedLoop = new RealTimeLoop();

/** A printer's view of the shared real-time loop. */
export class RealTimeScheduler implements SimScheduler {
  private disposed = false;
  private readonly live = new Set<SimTimer>();

  nowUs(): number {
    return sharedLoop.nowUs();
  }

  atUs(at: number, fn: () => void): SimTimer {
    const timer: SimTimer = { at: Math.ceil(at), seq: seqCounter++, fn: null, owner: this };
    if (this.disposed) return timer;
    timer.fn = () => {
      this.live.delete(timer);
      fn();
    };
    this.live.add(timer);
    sharedLoop.add(timer);
    return timer;
  }

  cancel(timer: SimTimer | null): void {
    if (timer === null) return;
    timer.fn = null;
    this.live.delete(timer);
  }

  dispose(): void {
    this.disposed = true;
    for (const t of this.live) t.fn = null;
    this.live.clear();
  }
}

/** A clock that only moves when a test says so; timers run in time order with nowUs() equal to their due time. */
export class ManualScheduler implements SimScheduler {
  private readonly heap = new TimerHeap();
  /** Integer µs. */
  private time: number;
  private disposed = false;

  /** `startMs`: the uptime the clock starts at (a test of a long-running simulator starts at days). */
  constructor(startMs = 0) {
    this.time = msToUs(startMs);
  }

  nowUs(): number {
    return this.time;
  }

  /** Milliseconds, for tests that measure simulated durations. */
  now(): number {
    return this.time / 1000;
  }

  atUs(at: number, fn: () => void): SimTimer {
    const timer: SimTimer = { at: Math.max(Math.ceil(at), this.time), seq: seqCounter++, fn: this.disposed ? null : fn, owner: this };
    if (!this.disposed) this.heap.push(timer);
    return timer;
  }

  cancel(timer: SimTimer | null): void {
    if (timer !== null) timer.fn = null;
  }

  dispose(): void {
    this.disposed = true;
    while (this.heap.size > 0) this.heap.pop()!.fn = null;
  }

  /** Moves the clock forward by `ms`, running every timer due on the way. */
  advance(ms: number): void {
    const target = this.time + msToUs(ms);
    for (let top = this.heap.peek(); top !== undefined && top.at <= target; top = this.heap.peek()) {
      this.heap.pop();
      this.time = Math.max(this.time, top.at);
      const fn = top.fn;
      top.fn = null;
      if (fn !== null) fn();
    }
    this.time = target;
  }

  /** Advances in `stepMs` steps until `done()` holds; throws after `maxMs` so a broken model fails instead of hanging. */
  advanceUntil(done: () => boolean, maxMs: number, stepMs = 1): number {
    const start = this.now();
    while (!done()) {
      if (this.now() - start >= maxMs) throw new Error(`condition not reached within ${maxMs} simulated ms`);
      this.advance(stepMs);
    }
    return this.now() - start;
  }
}
