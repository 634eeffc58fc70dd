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

export const isoTime = (ms: number): string => new Date(ms).toISOString();
