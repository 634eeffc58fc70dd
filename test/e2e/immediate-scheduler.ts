// A real-time simulator clock that runs timers already due through setImmediate, for long integrity runs and the benchmark.
import { performance } from 'node:perf_hooks';
import type { SimScheduler, SimTimer } from '../../src/simulator/sim-scheduler.js';

/*
 * Why not the simulator's own RealTimeScheduler: it arms setTimeout even for timers that are already due, and Node
 * clamps that to >= 1 ms, so a printer with baud=0 and speed=max pays about a millisecond per hop (host write ->
 * firmware read -> ok -> host) and streams ~1,300 lines/s. Here a due timer runs on the next setImmediate (tens of
 * microseconds), so 100,000-line runs fit in a test. Time is still real time: nothing runs early.
 */

class Heap {
  private readonly items: SimTimer[] = [];
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
    for (let i = h.length - 1; i > 0; ) {
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
      for (let i = 0; ; ) {
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

let seq = 0;

/** One loop for every printer using this scheduler kind; nothing stays armed when nothing is scheduled. */
class ImmediateLoop {
  private readonly heap = new Heap();
  private immediate: NodeJS.Immediate | null = null;
  private timeout: NodeJS.Timeout | null = null;
  private timeoutAt = Infinity;
  private running = false;

  add(t: SimTimer): void {
    this.heap.push(t);
    if (!this.running) this.arm();
  }

  private arm(): void {
    let top = this.heap.peek();
    while (top !== undefined && top.fn === null) {
      this.heap.pop();
      top = this.heap.peek();
    }
    if (top === undefined) {
      this.clearTimeout();
      return;
    }
    if (this.immediate !== null) return;
    const wait = top.at - performance.now();
    if (wait <= 0) {
      this.clearTimeout();
      this.immediate = setImmediate(() => this.run());
      return;
    }
    if (this.timeout !== null && this.timeoutAt <= top.at) return;
    this.clearTimeout();
    this.timeoutAt = top.at;
    this.timeout = setTimeout(() => {
      this.timeout = null;
      this.timeoutAt = Infinity;
      this.run();
    }, wait);
  }

  private clearTimeout(): void {
    if (this.timeout !== null) clearTimeout(this.timeout);
    this.timeout = null;
    this.timeoutAt = Infinity;
  }

  private run(): void {
    this.immediate = null;
    this.running = true;
    try {
      const now = performance.now();
      for (let top = this.heap.peek(); top !== undefined && top.at <= now; top = this.heap.peek()) {
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

const loop = new ImmediateLoop();

/** Pass as `createSimTransport(url, { scheduler: new ImmediateScheduler() })`. */
export class ImmediateScheduler implements SimScheduler {
  private readonly live = new Set<SimTimer>();
  private disposed = false;

  now(): number {
    return performance.now();
  }

  at(at: number, fn: () => void): SimTimer {
    const timer: SimTimer = { at, seq: seq++, fn: null, owner: this };
    if (this.disposed) return timer;
    timer.fn = () => {
      this.live.delete(timer);
      fn();
    };
    this.live.add(timer);
    loop.add(timer);
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
