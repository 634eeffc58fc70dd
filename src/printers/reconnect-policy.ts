// Exponential back-off for reconnecting a lost printer link: 1 s doubling to 30 s, back to 1 s after a success.
export interface ReconnectPolicyOptions {
  initialMs?: number;
  maxMs?: number;
}

export class ReconnectPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  private nextMs: number;
  /** Attempts since the last success (for logs and the snapshot). */
  attempts = 0;

  constructor(opts: ReconnectPolicyOptions = {}) {
    this.initialMs = opts.initialMs ?? 1000;
    this.maxMs = opts.maxMs ?? 30_000;
    if (!(this.initialMs > 0) || !(this.maxMs >= this.initialMs)) {
      throw new Error(`reconnect back-off needs 0 < initial (${this.initialMs}) <= max (${this.maxMs})`);
    }
    this.nextMs = this.initialMs;
  }

  /** The delay before the next attempt; each call doubles the one after it, up to the cap. */
  nextDelay(): number {
    const delay = this.nextMs;
    this.nextMs = Math.min(this.nextMs * 2, this.maxMs);
    this.attempts += 1;
    return delay;
  }

  reset(): void {
    this.nextMs = this.initialMs;
    this.attempts = 0;
  }
}
