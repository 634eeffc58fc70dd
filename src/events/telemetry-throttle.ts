// Pure per-printer throttle for live telemetry: at most one sample a second per printer, newer samples between are dropped.

export const TELEMETRY_MIN_INTERVAL_MS = 1000;

export class TelemetryThrottle {
  private readonly lastSent = new Map<string, number>();

  constructor(private readonly intervalMs = TELEMETRY_MIN_INTERVAL_MS) {}

  /** Whether a sample of this printer may go out at `nowMs`; records it when it may. */
  admit(printerId: string, nowMs: number): boolean {
    const last = this.lastSent.get(printerId);
    if (last !== undefined && nowMs - last < this.intervalMs) return false;
    this.lastSent.set(printerId, nowMs);
    return true;
  }

  /** A printer that went away frees its slot (keeps the map bounded by the printers that exist). */
  forget(printerId: string): void {
    this.lastSent.delete(printerId);
  }
}
