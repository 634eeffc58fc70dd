// Time as a dependency: services take a Clock so tests can move time (key roll expiry, rate windows) without sleeping.
import { performance } from 'node:perf_hooks';

export interface Clock {
  /** Milliseconds since the Unix epoch: for timestamps people read. It may jump (NTP sync at boot, a manual change). */
  now(): number;
  /**
   * Milliseconds from an arbitrary origin that only ever move forward at the real pace: for durations, pauses and
   * timeouts, so a wall-clock jump gives no negative, doubled or stalled ones.
   */
  monotonic(): number;
}

/** One instant read on both clocks: the wall reading for the record (started_at), the monotonic one to measure from. */
export interface Instant {
  wall: number;
  monotonic: number;
}

export const instantOf = (clock: Clock): Instant => ({ wall: clock.now(), monotonic: clock.monotonic() });

export const systemClock: Clock = { now: () => Date.now(), monotonic: () => performance.now() };

/** A clock tests set and advance by hand: advance() moves both readings, set() only the wall clock (a jump). */
export class ManualClock implements Clock {
  private mono = 0;
  constructor(private ms: number = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  monotonic(): number {
    return this.mono;
  }
  set(ms: number): void {
    this.ms = ms;
  }
  advance(ms: number): void {
    this.ms += ms;
    this.mono += ms;
  }
}

/**
 * A clock that keeps the wall clock's pace from a chosen instant: a whole server under test (real timers, real printers)
 * runs at a set time of day and date, whatever the machine's clock says. set() jumps the wall reading only.
 */
export class ShiftedClock implements Clock {
  private offsetMs: number;
  constructor(startMs: number, private readonly wall: Clock = systemClock) {
    this.offsetMs = startMs - wall.now();
  }
  now(): number {
    return this.wall.now() + this.offsetMs;
  }
  monotonic(): number {
    return this.wall.monotonic();
  }
  /** Jumps to `ms` and runs on from there. */
  set(ms: number): void {
    this.offsetMs = ms - this.wall.now();
  }
}

export const isoTime = (ms: number): string => new Date(ms).toISOString();
