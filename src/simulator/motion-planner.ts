// Machine position and the planner: a move becomes a block that takes the time its length and feedrate say.
import { msToUs, type SimScheduler, type SimTimer } from './sim-scheduler.js';

const AXES = ['X', 'Y', 'Z', 'E'] as const;
type Axis = (typeof AXES)[number];
/** Travel limits from 0 (software endstops). */
export type Limits = { X: number; Y: number; Z: number };

/** Reads a numeric word like `X12.5` from a command's words; undefined when absent or not a number. */
export function word(words: string[], letter: string): number | undefined {
  for (const w of words) {
    if (w.length > 1 && (w[0] === letter || w[0] === letter.toLowerCase())) {
      const n = Number(w.slice(1));
      if (Number.isFinite(n)) return n;
    }
  }
  return undefined;
}

/** Position and modes (G90/G91, M82/M83, G92); turns G0-G3 into a duration in simulated ms. */
export class MotionState {
  readonly pos: Record<Axis, number> = { X: 0, Y: 0, Z: 0, E: 0 };
  private absolute = true;
  private absoluteE = true;
  /** mm/min; Marlin starts at 25 mm/s. */
  private feedrate = 1500;

  setAbsolute(on: boolean): void {
    this.absolute = on;
    this.absoluteE = on;
  }
  setAbsoluteE(on: boolean): void {
    this.absoluteE = on;
  }
  setPosition(words: string[]): void {
    let any = false;
    for (const a of AXES) {
      const v = word(words, a);
      if (v !== undefined) {
        this.pos[a] = v;
        any = true;
      }
    }
    if (!any) for (const a of AXES) this.pos[a] = 0;
  }
  home(): void {
    this.pos.X = 0;
    this.pos.Y = 0;
    this.pos.Z = 0;
  }

  /** Where a G0-G3 would end, without moving. */
  targetOf(words: string[]): Record<Axis, number> {
    const target = { ...this.pos };
    for (const a of AXES) {
      const v = word(words, a);
      if (v === undefined) continue;
      const abs = a === 'E' ? this.absoluteE : this.absolute;
      target[a] = abs ? v : this.pos[a] + v;
    }
    return target;
  }

  /** True when `target` lies beyond `limits` on X, Y or Z. */
  static outside(target: Record<Axis, number>, limits: Limits): boolean {
    return (['X', 'Y', 'Z'] as const).some((a) => target[a] < 0 || target[a] > limits[a]);
  }

  /** Applies a G0/G1/G2/G3 (cut at `clampTo` when given) and returns how long it takes in simulated ms. */
  move(code: string, words: string[], clampTo: Limits | null = null): number {
    const f = word(words, 'F');
    if (f !== undefined && f > 0) this.feedrate = f;
    const start = { ...this.pos };
    Object.assign(this.pos, this.targetOf(words));
    if (clampTo !== null) for (const a of ['X', 'Y', 'Z'] as const) this.pos[a] = Math.min(clampTo[a], Math.max(0, this.pos[a]));
    const dx = this.pos.X - start.X;
    const dy = this.pos.Y - start.Y;
    const dz = this.pos.Z - start.Z;
    let length = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if ((code === 'G2' || code === 'G3') && length >= 0) length = this.arcLength(code, words, start, length);
    if (length === 0) length = Math.abs(this.pos.E - start.E);
    return (length / this.feedrate) * 60_000;
  }

  private arcLength(code: string, words: string[], start: Record<Axis, number>, chord: number): number {
    const i = word(words, 'I') ?? 0;
    const j = word(words, 'J') ?? 0;
    const r = Math.hypot(i, j);
    if (r === 0) return chord;
    const cx = start.X + i;
    const cy = start.Y + j;
    const a0 = Math.atan2(start.Y - cy, start.X - cx);
    const a1 = Math.atan2(this.pos.Y - cy, this.pos.X - cx);
    let sweep = code === 'G3' ? a1 - a0 : a0 - a1;
    while (sweep <= 0) sweep += 2 * Math.PI;
    return Math.hypot(r * sweep, this.pos.Z - start.Z);
  }
}

/**
 * A ring of `capacity` blocks run one after another. Zero-length blocks pass straight through. `onChange` runs after
 * a block finishes so the firmware can feed the next command.
 */
export class Planner {
  private readonly durations: number[] = [];
  private headEndsAt = 0;
  private timer: SimTimer | null = null;
  /** Scheduler µs at which the planner last ran dry after a move, or null. */
  emptySince: number | null = null;

  constructor(
    readonly capacity: number,
    private readonly scheduler: SimScheduler,
    private readonly onChange: () => void,
  ) {}

  get length(): number {
    return this.durations.length;
  }
  get free(): number {
    return this.capacity - this.durations.length;
  }
  isEmpty(): boolean {
    return this.durations.length === 0;
  }

  /** Queues a block of `ms` scheduler time (whole µs, at least one); the caller checks `free` first. */
  add(ms: number): void {
    if (ms <= 0) return;
    this.durations.push(Math.max(1, msToUs(ms)));
    if (this.durations.length === 1) this.startHead(this.scheduler.nowUs());
  }

  private startHead(at: number): void {
    this.headEndsAt = at + this.durations[0]!;
    this.timer = this.scheduler.atUs(this.headEndsAt, () => this.finishHead());
  }

  private finishHead(): void {
    this.timer = null;
    this.durations.shift();
    if (this.durations.length > 0) this.startHead(this.headEndsAt);
    else this.emptySince = this.scheduler.nowUs();
    this.onChange();
  }

  /** Quick stop / reset: every block is gone. */
  clear(): void {
    this.scheduler.cancel(this.timer);
    this.timer = null;
    this.durations.length = 0;
    this.emptySince = null;
  }
}
