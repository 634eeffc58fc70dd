// The writes a long-lived owner has started and not yet seen finish, awaitable as one: tests and shutdown wait on it.
// It keeps no result: a runner that tracks a hundred writes per job for months must not hold on to any of them.

export class PendingWrites {
  private pending: Promise<void> = Promise.resolve();

  /** Adds a write (already guarded: it must not reject). */
  track(write: Promise<unknown>): void {
    // Chained to nothing but `undefined`: Promise.all's nested result arrays would keep every write's result forever.
    this.pending = Promise.all([this.pending, write]).then(() => undefined);
  }

  /** Resolves once every write tracked so far, and every one tracked while waiting, has finished. */
  async settled(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.pending;
      await seen;
    } while (seen !== this.pending);
  }
}
