// The polling of a network printer: one round at a time (a caller asking meanwhile joins it), the next one after
// `delay()`, and a printer that stays offline asked less and less often (pollDelay).

/**
 * The wait before the next poll: the poll interval, or while offline doubling with each failure in a row up to 8
 * intervals, so a printer that is switched off is not hammered. Pure.
 */
export function pollDelay(pollMs: number, offline: boolean, failures: number): number {
  return offline ? pollMs * Math.min(8, 2 ** Math.min(3, failures)) : pollMs;
}

export interface PollLoopOptions {
  /** One round: it reports its own failures (a rejection is swallowed here). */
  round: () => Promise<void>;
  /** The wait before the next round, read after each one. */
  delay: () => number;
  /** Whether a timed round is due (a pushed state makes polling a fallback); default always. */
  due?: () => boolean;
}

export class PollLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(private readonly opts: PollLoopOptions) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Polls from now on (the first round at once is the caller's: now()). */
  start(): void {
    this.stopped = false;
  }

  /** No more rounds; resolves once a running one is over. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clear();
    if (this.running) await this.running.catch(() => undefined);
  }

  /** One round now (joined when one runs); the next is timed after it. */
  now(): Promise<void> {
    if (this.running) return this.running;
    this.clear();
    this.running = this.opts
      .round()
      .catch(() => undefined)
      .finally(() => {
        this.running = null;
        this.schedule();
      });
    return this.running;
  }

  /** A round at the next turn of the loop (after an action: its effect shows sooner). */
  soon(): void {
    if (this.stopped) return;
    this.clear();
    this.timer = setTimeout(() => void this.now(), 0);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.clear();
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.opts.due && !this.opts.due()) this.schedule();
      else void this.now();
    }, this.opts.delay());
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
