// The one timer of a printer session: named session deadlines plus the protocol's, one setTimeout armed at the earliest.
import type { Clock } from '../clock.js';

interface Deadline {
  at: number;
  fn: () => void;
}

export class SessionTimer {
  private readonly deadlines = new Map<string, Deadline>();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private readonly fire = (): void => this.fired();

  /**
   * @param external the protocol's next deadline (ms on `clock.monotonic()`, as every deadline here), or null
   * @param onFire runs after the due named deadlines, on every wake-up; it must call arm() (the session's flush does)
   */
  constructor(
    private readonly clock: Clock,
    private readonly external: () => number | null,
    private readonly onFire: () => void,
  ) {}

  /** Runs `fn` once after `delayMs`; a second schedule under the same key replaces the first. */
  schedule(key: string, delayMs: number, fn: () => void): void {
    this.deadlines.set(key, { at: this.clock.monotonic() + Math.max(0, delayMs), fn });
    this.arm();
  }

  unschedule(key: string): void {
    this.deadlines.delete(key);
  }

  has(key: string): boolean {
    return this.deadlines.has(key);
  }

  /** Drops every deadline and the timer (the session is closed: nothing may keep the process alive). */
  clear(): void {
    this.deadlines.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  /**
   * Arms at the earliest deadline. A timer already armed earlier is left alone: per-line deadlines mostly move later,
   * and an early wake-up just re-arms, which is cheaper than clearing and creating a timer per line.
   */
  arm(): void {
    let next = this.external() ?? Infinity;
    for (const d of this.deadlines.values()) if (d.at < next) next = d.at;
    if (next === Infinity) return;
    if (this.timer && this.timerAt <= next) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = next;
    this.timer = setTimeout(this.fire, Math.max(0, next - this.clock.monotonic()));
  }

  private fired(): void {
    this.timer = null;
    this.timerAt = Infinity;
    const now = this.clock.monotonic();
    for (const [key, d] of [...this.deadlines]) {
      // A deadline may have been replaced or dropped by an earlier one's callback.
      if (d.at <= now && this.deadlines.get(key) === d) {
        this.deadlines.delete(key);
        d.fn();
      }
    }
    this.onFire();
  }
}
