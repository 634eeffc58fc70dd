// The last hour of every connected printer's temperatures, in memory: sampled from the session snapshots every 5 s of the
// app's clock into one ring per printer; a deleted printer's ring is dropped.
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/event-bus.js';
import type { PrinterSnapshot } from './printer-state.js';
import { TemperatureRing, TEMPERATURE_RING_CAPACITY, type TemperatureSample } from './temperature-ring.js';

/** One sample a printer every this many ms of the clock. */
export const TEMPERATURE_INTERVAL_MS = 5_000;
/**
 * The timer wakes this often and samples when a new 5 s slot of the clock began: a wake-up that comes late or early
 * never skips nor doubles a slot, and with a hand-moved test clock nothing is sampled twice at one instant.
 */
const POLL_MS = 1_000;

/** What the history reads of the live sessions. */
export interface SampledSession {
  readonly printerId: string;
  snapshot(): PrinterSnapshot;
}

export interface TemperatureHistoryDeps {
  sessions: { list(): SampledSession[] };
  clock: Clock;
  bus: EventBus;
  /** Samples kept per printer (default 720: an hour at 5 s). */
  capacity?: number;
}

const reading = (n: number | undefined): number | null => (typeof n === 'number' && Number.isFinite(n) ? n : null);

export class TemperatureHistory {
  private readonly rings = new Map<string, TemperatureRing>();
  private readonly capacity: number;
  private lastSlot: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private offRemoved: (() => void) | null = null;

  constructor(private readonly d: TemperatureHistoryDeps) {
    this.capacity = d.capacity ?? TEMPERATURE_RING_CAPACITY;
  }

  /** Starts sampling (the farm calls this at start); a second call does nothing. */
  start(): void {
    if (this.timer) return;
    this.offRemoved = this.d.bus.on('printer.removed', (p) => this.forget(p.printer_id));
    this.timer = setInterval(() => this.tick(), POLL_MS);
    this.timer.unref();
    this.tick();
  }

  /** Stops sampling and lets go of every ring (the farm calls this once the sessions are closed). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.offRemoved?.();
    this.offRemoved = null;
    this.rings.clear();
    this.lastSlot = null;
  }

  /** Samples when the clock entered a new 5 s slot since the last sample; true when it did. */
  tick(): boolean {
    const now = this.d.clock.now();
    const slot = Math.floor(now / TEMPERATURE_INTERVAL_MS);
    if (slot === this.lastSlot) return false;
    this.lastSlot = slot;
    this.sampleAt(now);
    return true;
  }

  /** One sample of every connected printer (idle, printing, paused or error), stamped `now`. */
  sampleAt(now: number): void {
    for (const session of this.d.sessions.list()) {
      const snap = session.snapshot();
      if (snap.status === 'offline' || snap.status === 'connecting') continue;
      const t = snap.temperatures;
      let ring = this.rings.get(session.printerId);
      if (!ring) this.rings.set(session.printerId, (ring = new TemperatureRing(this.capacity)));
      ring.push({ at: now, hotend: reading(t.hotend), hotend_target: reading(t.hotend_target), bed: reading(t.bed), bed_target: reading(t.bed_target) });
    }
  }

  /** The printer's samples of the last `minutes` of the clock, oldest first; [] when it has none. */
  read(printerId: string, minutes: number): TemperatureSample[] {
    return this.rings.get(printerId)?.since(this.d.clock.now() - minutes * 60_000) ?? [];
  }

  forget(printerId: string): void {
    this.rings.delete(printerId);
  }

  /** Printers with a ring (for tests of the memory bound). */
  get printers(): number {
    return this.rings.size;
  }
}
