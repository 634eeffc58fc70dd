// The modelled cable: bytes take 10 bits each at the baud rate, may be corrupted or lost, and land in a small RX buffer.
import type { SimScheduler, SimTimer } from './sim-scheduler.js';

const isTerminator = (b: number | undefined): boolean => b === 0x0a || b === 0x0d;

/** mulberry32: tiny, fast and good enough to make fault injection reproducible from a seed. */
export class Prng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Number of trials before the next success at probability p (geometric), so faults cost nothing per clean byte. */
  gap(p: number): number {
    if (p <= 0) return Infinity;
    return Math.floor(Math.log(1 - this.next()) / Math.log(1 - p));
  }
}

interface Chunk {
  buf: Buffer;
  /** Bytes already handed to the receiver. */
  off: number;
  /** Scheduler time the first bit of this chunk starts on the wire. */
  t0: number;
}

/** Host -> printer: timing, corruption and loss on the wire. The receiver takes arrived bytes when asked. */
export class Uplink {
  private readonly chunks: Chunk[] = [];
  private freeAt = 0;
  private untilCorrupt: number;
  private untilLoss: number;
  pendingBytes = 0;
  corrupted = 0;
  lostOnWire = 0;

  constructor(
    /** Scheduler ms per byte; 0 = no rate limit. */
    readonly byteMs: number,
    readonly halfLatencyMs: number,
    private readonly errorRate: number,
    private readonly lossRate: number,
    private readonly rng: Prng,
  ) {
    this.untilCorrupt = rng.gap(errorRate);
    this.untilLoss = rng.gap(lossRate);
  }

  /** Puts bytes on the wire at `now` (after the faults); returns what will arrive and when its first byte started. */
  send(bytes: Buffer, now: number): { buf: Buffer; t0: number } {
    const buf = this.applyFaults(bytes);
    const t0 = Math.max(now, this.freeAt);
    this.freeAt = t0 + buf.length * this.byteMs;
    if (buf.length > 0) {
      this.chunks.push({ buf, off: 0, t0 });
      this.pendingBytes += buf.length;
    }
    return { buf, t0 };
  }

  private applyFaults(bytes: Buffer): Buffer {
    let out = Buffer.from(bytes);
    if (this.untilCorrupt < out.length) {
      let i = this.untilCorrupt;
      while (i < out.length) {
        out[i] = out[i]! ^ (1 << Math.floor(this.rng.next() * 7));
        this.corrupted++;
        i += 1 + this.rng.gap(this.errorRate);
      }
      this.untilCorrupt = i - out.length;
    } else this.untilCorrupt -= out.length;
    if (this.untilLoss < out.length) {
      const keep: number[] = [];
      let i = this.untilLoss;
      let from = 0;
      while (i < out.length) {
        for (let k = from; k < i; k++) keep.push(k);
        this.lostOnWire++;
        from = i + 1;
        i += 1 + this.rng.gap(this.lossRate);
      }
      for (let k = from; k < out.length; k++) keep.push(k);
      this.untilLoss = i - out.length;
      const kept = Buffer.allocUnsafe(keep.length);
      keep.forEach((src, dst) => (kept[dst] = out[src]!));
      out = kept;
    } else this.untilLoss -= out.length;
    return out;
  }

  /** Time at which byte `index` of a chunk starting at t0 has fully arrived (a whole chunk at once without a baud limit). */
  arrivalOf(t0: number, index: number): number {
    return t0 + (index + 1) * this.byteMs + this.halfLatencyMs;
  }

  private arrivedIn(c: Chunk, now: number): number {
    if (this.byteMs === 0) return now >= c.t0 + this.halfLatencyMs ? c.buf.length : 0;
    const n = Math.floor((now - this.halfLatencyMs - c.t0) / this.byteMs + 1e-9);
    return Math.max(0, Math.min(c.buf.length, n));
  }

  /**
   * Hands the bytes arrived by `now` to `sink`, which returns how many it took; a short take stops the delivery
   * (native USB pushes back) and the rest stays on the wire. With `oneLine`, delivery stops after the first line
   * terminator, so the firmware handles each line before the bytes that came after it (a flush after a bad line
   * must not eat what arrived later). Returns true when it stopped there with more arrived bytes waiting.
   */
  deliver(now: number, sink: (buf: Buffer, from: number, to: number) => number, oneLine = false): boolean {
    const limit = oneLine ? Math.min(now, this.firstTerminatorArrival(now) ?? now) : now;
    while (this.chunks.length > 0) {
      const c = this.chunks[0]!;
      const arrived = this.arrivedIn(c, limit);
      if (arrived <= c.off) break;
      const taken = sink(c.buf, c.off, arrived);
      c.off += taken;
      this.pendingBytes -= taken;
      if (c.off < c.buf.length) {
        if (c.off < arrived) return false;
        break;
      }
      this.chunks.shift();
    }
    return limit < now && this.hasArrived(now);
  }

  /** Arrival time of the first line terminator among the bytes arrived by `now`, or null. */
  private firstTerminatorArrival(now: number): number | null {
    for (const c of this.chunks) {
      const arrived = this.arrivedIn(c, now);
      for (let i = c.off; i < arrived; i++) if (isTerminator(c.buf[i])) return this.arrivalOf(c.t0, i);
      if (arrived < c.buf.length) return null;
    }
    return null;
  }

  private hasArrived(now: number): boolean {
    const c = this.chunks[0];
    return c !== undefined && this.arrivedIn(c, now) > c.off;
  }

  /** When the next line terminator still on the wire arrives (null if none). */
  nextTerminatorAt(): number | null {
    for (const c of this.chunks) {
      for (let i = c.off; i < c.buf.length; i++) {
        if (isTerminator(c.buf[i])) return this.arrivalOf(c.t0, i);
      }
    }
    return null;
  }

  /** When at most `n` bytes will still be on the wire (null if that is already so). */
  timeWhenPendingAtMost(n: number): number | null {
    let skip = this.pendingBytes - n;
    if (skip <= 0) return null;
    for (const c of this.chunks) {
      const left = c.buf.length - c.off;
      if (skip <= left) return this.arrivalOf(c.t0, c.off + skip - 1);
      skip -= left;
    }
    return null;
  }

  clear(): void {
    this.chunks.length = 0;
    this.pendingBytes = 0;
  }
}

/** The firmware's receive ring: a fixed number of bytes; what does not fit is the caller's to lose. */
export class ReceiveBuffer {
  private readonly buf: Buffer;
  private start = 0;
  private end = 0;

  constructor(readonly capacity: number) {
    this.buf = Buffer.alloc(capacity);
  }

  get used(): number {
    return this.end - this.start;
  }
  get free(): number {
    return this.capacity - this.used;
  }

  /** Copies what fits of src[from, to); returns the count copied. */
  push(src: Buffer, from: number, to: number): number {
    const n = Math.min(to - from, this.free);
    if (n <= 0) return 0;
    if (this.end + n > this.capacity) {
      this.buf.copyWithin(0, this.start, this.end);
      this.end -= this.start;
      this.start = 0;
    }
    src.copy(this.buf, this.end, from, from + n);
    this.end += n;
    return n;
  }

  /** The next complete line without its terminator, or null when no terminator is buffered. */
  takeLine(): string | null {
    for (let i = this.start; i < this.end; i++) {
      const b = this.buf[i];
      if (b === 0x0a || b === 0x0d) {
        const line = this.buf.toString('latin1', this.start, i);
        this.start = i + 1;
        if (this.start === this.end) this.start = this.end = 0;
        return line;
      }
    }
    return null;
  }

  /** Everything buffered, as text (the start of a line still arriving). */
  takeAll(): string {
    const text = this.buf.toString('latin1', this.start, this.end);
    this.start = this.end = 0;
    return text;
  }

  clear(): void {
    this.start = this.end = 0;
  }
}

/** Printer -> host: lines take their time on the wire and reach the host in chunks. */
export class Downlink {
  private readonly queue: Array<{ buf: Buffer; at: number }> = [];
  private freeAt = 0;
  private timer: SimTimer | null = null;
  bytesSent = 0;

  constructor(
    private readonly byteMs: number,
    private readonly halfLatencyMs: number,
    private readonly scheduler: SimScheduler,
    private readonly deliver: (bytes: Buffer) => void,
  ) {}

  send(text: string): void {
    const buf = Buffer.from(text, 'latin1');
    const now = this.scheduler.now();
    const start = Math.max(now, this.freeAt);
    this.freeAt = start + buf.length * this.byteMs;
    this.queue.push({ buf, at: this.freeAt + this.halfLatencyMs });
    this.bytesSent += buf.length;
    if (this.timer === null) this.arm();
  }

  private arm(): void {
    const head = this.queue[0];
    if (head !== undefined) this.timer = this.scheduler.at(head.at, () => this.flush());
  }

  private flush(): void {
    this.timer = null;
    const now = this.scheduler.now();
    let n = 0;
    while (n < this.queue.length && this.queue[n]!.at <= now) n++;
    const due = this.queue.splice(0, n);
    this.arm();
    if (due.length === 1) this.deliver(due[0]!.buf);
    else if (due.length > 1) this.deliver(Buffer.concat(due.map((d) => d.buf)));
  }

  clear(): void {
    this.scheduler.cancel(this.timer);
    this.timer = null;
    this.queue.length = 0;
  }
}
