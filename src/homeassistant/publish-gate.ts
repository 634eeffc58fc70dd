// Pure per-printer rate limit of published state: a state change goes at once, telemetry at most once per interval.

export const TELEMETRY_INTERVAL_MS = 1000;

export class PublishGate {
  private readonly lastSent = new Map<string, number>();

  constructor(private readonly intervalMs = TELEMETRY_INTERVAL_MS) {}

  /**
   * Whether a new state of `key` may go out at `nowMs` (monotonic ms); records it when it may. A change (`urgent`) always
   * may; so it also restarts the interval, keeping telemetry after it at the same pace.
   */
  admit(key: string, urgent: boolean, nowMs: number): boolean {
    const last = this.lastSent.get(key);
    if (!urgent && last !== undefined && nowMs - last < this.intervalMs) return false;
    this.lastSent.set(key, nowMs);
    return true;
  }

  forget(key: string): void {
    this.lastSent.delete(key);
  }
}
