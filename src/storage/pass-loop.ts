// The pass loop of an outbox worker (webhook deliveries, notifications): started once, woken from anywhere with the
// wake-ups coalesced into at most one pass running and one to follow, a timer for the next pass, and a stop that gives
// the work in flight a grace period before aborting it.

export interface InFlightWork {
  controller: AbortController;
  done: Promise<void>;
}

export class PassLoop {
  private running = false;
  private passing = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private passDone: Promise<void> = Promise.resolve();

  /** `pass` runs one pass; it calls `more()` to learn whether a wake-up came meanwhile and it should go round again. */
  constructor(private readonly pass: () => Promise<void>) {}

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.wake();
  }

  /** Run a pass now; during a pass, one more right after it. */
  wake(): void {
    if (!this.running) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    this.passing = true;
    clearTimeout(this.timer);
    this.passDone = this.pass().finally(() => {
      this.passing = false;
    });
  }

  /** Inside a pass: true (once) when woken meanwhile and still running; call before each round, then after it. */
  more(): boolean {
    const again = this.again && this.running;
    this.again = false;
    return again;
  }

  /** The next pass in `ms` unless woken sooner. */
  later(ms: number): void {
    if (this.running) this.timer = setTimeout(() => this.wake(), ms).unref();
  }

  /** No more passes; resolves once the running one ended. */
  async halt(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.passDone;
  }
}

/** Waits up to `graceMs` for the work in flight, then aborts what is left and waits for it to wind down. */
export async function settleOrAbort(inFlight: Iterable<InFlightWork>, graceMs: number): Promise<void> {
  const works = [...inFlight];
  const all = Promise.all(works.map((f) => f.done));
  let grace: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([all.then(() => false), new Promise<boolean>((resolve) => (grace = setTimeout(() => resolve(true), graceMs)))]);
  clearTimeout(grace);
  if (timedOut) {
    for (const f of works) f.controller.abort();
    await all;
  }
}
