// Actions waiting for the printer to show their effect (paused, resumed, the print gone): each settles when a report
// passes its test, or fails at its deadline or when the link goes down.
export interface Waiting {
  promise: Promise<void>;
  /** Gives up the wait quietly (the action was refused before it reached the printer). */
  cancel(): void;
}

interface Waiter<V> {
  test: (v: V) => boolean;
  settle: (err: Error | null) => void;
}

export class StateWaiters<V> {
  private readonly waiters = new Set<Waiter<V>>();

  /** Waits until a report passes `test`; fails with `timeout()` after `timeoutMs`. */
  wait(test: (v: V) => boolean, timeoutMs: number, timeout: () => Error): Waiting {
    let w!: Waiter<V>;
    const promise = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => w.settle(timeout()), timeoutMs);
      w = {
        test,
        settle: (err) => {
          if (!this.waiters.delete(w)) return;
          clearTimeout(timer);
          if (err) reject(err);
          else resolve();
        },
      };
      this.waiters.add(w);
    });
    return {
      promise,
      cancel: () => {
        promise.catch(() => undefined);
        w.settle(new Error('cancelled'));
      },
    };
  }

  /** A new report: every wait it satisfies is over. */
  check(v: V): void {
    for (const w of [...this.waiters]) if (w.test(v)) w.settle(null);
  }

  /** Fails the waits the report `v` does not satisfy (all of them without one). */
  reject(err: Error, v?: V): void {
    for (const w of [...this.waiters]) if (v === undefined || !w.test(v)) w.settle(err);
  }
}
