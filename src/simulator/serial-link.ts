// The modelled cable: bytes take 10 bits each at the baud rate, may be corrupted or lost, and land in a small RX buffer.
import type { SimScheduler, SimTimer } from './sim-scheduler.js';

/**
 * Wire time in integer microseconds. `span(k)`, the time k bytes take, is the one definition of when bytes arrive;
 * `bytesWithin(us)` is its exact inverse (found by stepping `span`, not by dividing floats), so a wake-up armed
 * for a byte's arrival always finds that byte arrived, at any uptime.
 */
export class ByteClock {
  /** µs per byte as a real number; 0 = no rate limit. */
  private readonly byteUs: number;

  constructor(
    /** Link rate in bit/s of scheduler time (baud x speed); 0 = no rate limit. */
    bitsPerSecond: number,
    /** One-way latency in µs. */
    readonly halfLatencyUs: number,
  ) {
    this.byteUs = bitsPerSecond > 0 ? 10_000_000 / bitsPerSecond : 0;
  }

  get unlimited(): boolean {
    return this.byteUs === 0;
  }

  /** Integer µs that k bytes occupy the wire; non-decreasing in k. */
  span(k: number): number {
    return k <= 0 ? 0 : Math.ceil(k * this.byteUs);
  }

  /** The largest k <= max with span(k) <= us. */
  bytesWithin(us: number, max: number): number {
    if (us < 0) return 0;
    if (this.byteUs === 0) return max;
    let k = Math.min(max, Math.max(0, Math.floor(us / this.byteUs)));
    while (k < max && this.span(k + 1) <= us) k++;
    while (k > 0 && this.span(k) > us) k--;
    return k;
  }
}

const isTerminator = (b: number | undefined): boolean => b === 0x0a || b === 0x0d;

/**
 * Where a line may end in a MeatPack stream (a superset: waking for nothing costs only a look). A decoded newline comes
 * from a byte with the packed newline code (12) in a nibble, from a raw terminator passed through as a literal, or, for
 * 0xCF (a literal first, then a packed newline), with the literal byte right after it. `prev` is the byte before.
 * A byte after 0xFF counts too: it may be a MeatPack command, which the firmware acts on (and reports) at once.
 */
function mayEndPackedLine(b: number, prev: number): boolean {
  if (b === 0x0a || b === 0x0d || prev === 0xcf || prev === 0xff) return true;
  if (b === 0xcf) return false;
  return (b & 0x0f) === 0x0c || b >> 4 === 0x0c;
}

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
  /** Scheduler µs at which the first bit of this chunk starts on the wire. */
  t0: number;
  /** The byte sent just before this chunk (-1: none). */
  prev: number;
}

/** Host -> printer: timing, corruption and loss on the wire. The receiver takes arrived bytes when asked. */
export class Uplink {
  private readonly chunks: Chunk[] = [];
  private freeAt = 0;
  private lastByte = -1;
  private untilCorrupt: number;
  private untilLoss: number;
  pendingBytes = 0;
  /** Bytes ever handed to a receiver (only grows). */
  taken = 0;
  corrupted = 0;
  lostOnWire = 0;

  constructor(
    private readonly wire: ByteClock,
    private readonly errorRate: number,
    private readonly lossRate: number,
    private readonly rng: Prng,
    /** The firmware unpacks MeatPack: line ends cannot be told from raw bytes alone. */
    private readonly packed = false,
  ) {
    this.untilCorrupt = rng.gap(errorRate);
    this.untilLoss = rng.gap(lossRate);
  }

  /** Puts bytes on the wire at `now` µs (after the faults); returns what will arrive and when its first byte started. */
  send(bytes: Buffer, now: number): { buf: Buffer; t0: number } {
    const buf = this.applyFaults(bytes);
    const t0 = Math.max(now, this.freeAt);
    this.freeAt = t0 + this.wire.span(buf.length);
    if (buf.length > 0) {
      this.chunks.push({ buf, off: 0, t0, prev: this.lastByte });
      this.lastByte = buf[buf.length - 1]!;
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

  /** µs at which byte `index` of a chunk starting at t0 has fully arrived (a whole chunk at once without a baud limit). */
  arrivalOf(t0: number, index: number): number {
    return t0 + this.wire.span(index + 1) + this.wire.halfLatencyUs;
  }

  /** Bytes of `c` arrived by `now`: exactly those whose arrivalOf() is <= now. */
  private arrivedIn(c: Chunk, now: number): number {
    return this.wire.bytesWithin(now - this.wire.halfLatencyUs - c.t0, c.buf.length);
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
      this.taken += taken;
      if (c.off < c.buf.length) {
        if (c.off < arrived) return false;
        break;
      }
      this.chunks.shift();
    }
    return limit < now && this.hasArrived(now);
  }

  private endsLine(c: Chunk, i: number): boolean {
    if (!this.packed) return isTerminator(c.buf[i]);
    return mayEndPackedLine(c.buf[i]!, i > 0 ? c.buf[i - 1]! : c.prev);
  }

  /** Arrival time of the first line terminator among the bytes arrived by `now`, or null. */
  private firstTerminatorArrival(now: number): number | null {
    for (const c of this.chunks) {
      const arrived = this.arrivedIn(c, now);
      for (let i = c.off; i < arrived; i++) if (this.endsLine(c, i)) return this.arrivalOf(c.t0, i);
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
        if (this.endsLine(c, i)) return this.arrivalOf(c.t0, i);
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
    this.lastByte = -1;
  }
}

/** The firmware's receive ring: a fixed number of bytes; what does not fit is the caller's to lose. */
export class ReceiveBuffer {
  private readonly buf: Buffer;
  private start = 0;
  private end = 0;
  /** Bytes ever taken out by takeLine/takeAll (only grows). */
  consumed = 0;

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
        this.consumed += i + 1 - this.start;
        this.start = i + 1;
        if (this.start === this.end) this.start = this.end = 0;
        return line;
      }
    }
    return null;
  }

  /** The next raw byte, or -1 when none is buffered (a MeatPack firmware reads byte by byte). */
  takeByte(): number {
    if (this.start === this.end) return -1;
    const b = this.buf[this.start++]!;
    this.consumed++;
    if (this.start === this.end) this.start = this.end = 0;
    return b;
  }

  /** Everything buffered, as text (the start of a line still arriving). */
  takeAll(): string {
    const text = this.buf.toString('latin1', this.start, this.end);
    this.consumed += this.end - this.start;
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
    private readonly wire: ByteClock,
    private readonly scheduler: SimScheduler,
    private readonly deliver: (bytes: Buffer) => void,
  ) {}

  send(text: string): void {
    const buf = Buffer.from(text, 'latin1');
    const now = this.scheduler.nowUs();
    const start = Math.max(now, this.freeAt);
    this.freeAt = start + this.wire.span(buf.length);
    this.queue.push({ buf, at: this.freeAt + this.wire.halfLatencyUs });
    this.bytesSent += buf.length;
    if (this.timer === null) this.arm();
  }

  private arm(): void {
    const head = this.queue[0];
    if (head !== undefined) this.timer = this.scheduler.atUs(head.at, () => this.flush());
  }

  private flush(): void {
    this.timer = null;
    const now = this.scheduler.nowUs();
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
