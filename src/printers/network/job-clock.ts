// A followed job's printing time on the monotonic clock: from its start, heat-ups included, pauses left out, so a
// wall-clock jump mid-print neither stretches nor shortens it. Pure: every reading is handed in.
import type { Instant } from '../../clock.js';

export class JobClock {
  /** Wall-clock ms of the start, for the record (started_at); the elapsed time runs from `startMono`. */
  readonly startedAt: number;
  readonly startMono: number;
  private pausedMs = 0;
  private pausedSince: number | null = null;
  private endedMono: number | null = null;

  constructor(start: Instant) {
    this.startedAt = start.wall;
    this.startMono = start.monotonic;
  }

  /** The printer shows the print paused (or not) at monotonic `now`. */
  notePaused(paused: boolean, now: number): void {
    if (paused && this.pausedSince === null) this.pausedSince = now;
    else if (!paused && this.pausedSince !== null) {
      this.pausedMs += now - this.pausedSince;
      this.pausedSince = null;
    }
  }

  /** The job ended at monotonic `now`: its time stops there. */
  stop(now: number): void {
    this.notePaused(false, now);
    this.endedMono ??= now;
  }

  /** Printing time so far (until the end, once ended) in whole ms. */
  elapsedMs(now: number): number {
    const until = this.endedMono ?? now;
    const pausedNow = this.pausedSince !== null ? until - this.pausedSince : 0;
    return Math.max(0, Math.round(until - this.startMono - this.pausedMs - pausedNow));
  }
}
