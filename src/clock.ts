// Time as a dependency: services take a Clock so tests can move time (key roll expiry, rate windows) without sleeping.
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests set and advance by hand. */
export class ManualClock implements Clock {
  constructor(private ms: number = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/**
 * A clock that keeps the wall clock's pace from a chosen instant: a whole server under test (real timers, real printers)
 * runs at a set time of day and date, whatever the machine's clock says.
 */
export class ShiftedClock implements Clock {
  private offsetMs: number;
  constructor(startMs: number, private readonly wall: Clock = systemClock) {
    this.offsetMs = startMs - wall.now();
  }
  now(): number {
    return this.wall.now() + this.offsetMs;
  }
  /** Jumps to `ms` and runs on from there. */
  set(ms: number): void {
    this.offsetMs = ms - this.wall.now();
  }
}

export const isoTime = (ms: number): string => new Date(ms).toISOString();
