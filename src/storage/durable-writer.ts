// The one queue that writes state which must never be lost (a running print's progress, end and consumption, a webhook
// delivery's outcome): in order, one at a time; on a full disk the writes are held in memory and written, still in
// order, as soon as space returns (retried on a timer and at the next write).
import type { Logger } from '../logger.js';
import { isStorageFull } from './storage-full.js';

/** How often held writes are tried again while the disk stays full. */
export const DURABLE_RETRY_MS = 2_000;

export interface DurableWriterOptions {
  logger: Logger;
  retryMs?: number;
  /** The disk just filled (a write was held). */
  onFull?(): void;
  /** Held writes went through: there is room again. */
  onWritten?(): void;
}

interface Waiter {
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

interface Item {
  what: string;
  /** Writes with one key replace each other while waiting: only the newest (e.g. a job's latest progress) matters. */
  key: string | undefined;
  work: () => Promise<unknown>;
  waiters: Waiter[];
}

export class DurableWriter {
  private readonly queue: Item[] = [];
  private running = false;
  private full = false;
  private closing = false;
  private timer: NodeJS.Timeout | null = null;
  /** Callers of untilStoredOrHeld waiting for the disk to fill (or their writes to be stored). */
  private readonly onHeld = new Set<() => void>();
  private readonly retryMs: number;

  constructor(private readonly o: DurableWriterOptions) {
    this.retryMs = o.retryMs ?? DURABLE_RETRY_MS;
  }

  /** Whether writes are held because the disk is full. */
  get blocked(): boolean {
    return this.full;
  }

  /** Writes waiting (held or not yet run). */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Runs `work` after every write queued before it; resolves with its result once it is stored. A full disk never
   * rejects: the write waits for room. Any other error rejects this write alone (later ones still run).
   */
  write<T>(what: string, work: () => Promise<T>, key?: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = { resolve: resolve as (v: unknown) => void, reject };
      // The head may be running right now; only a write that has not started can be replaced.
      const from = this.running ? 1 : 0;
      const same = key === undefined ? -1 : this.queue.findIndex((it, i) => i >= from && it.key === key);
      if (same >= 0) {
        const item = this.queue[same]!;
        item.work = work;
        item.what = what;
        item.waiters.push(waiter);
      } else {
        this.queue.push({ what, key, work, waiters: [waiter] });
      }
      // A new write is also the moment to try held ones again.
      void this.pump();
    });
  }

  /**
   * Resolves once `writes` (promises of write()) are settled, or as soon as the disk is full and they are held: for a
   * caller that wants its writes stored before it goes on (a reader after it sees them) but must never wait for room.
   */
  async untilStoredOrHeld(writes: readonly Promise<unknown>[]): Promise<void> {
    if (writes.length === 0) return;
    let done: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      done = resolve;
      if (this.full) resolve();
      else this.onHeld.add(resolve);
    });
    try {
      await Promise.race([Promise.allSettled(writes), held]);
    } finally {
      this.onHeld.delete(done);
    }
  }

  /** Something else was written: there may be room again, so held writes are tried now rather than at the next tick. */
  nudge(): void {
    if (this.full) void this.pump();
  }

  /**
   * At shutdown: held writes are tried once more, and a write that still finds the disk full is given up (rejected and
   * logged) instead of being held for ever. Resolves when the queue is empty.
   */
  async close(): Promise<void> {
    this.closing = true;
    this.clearTimer();
    await this.pump();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.clearTimer();
    try {
      while (this.queue.length > 0) {
        const item = this.queue[0]!;
        let value: unknown;
        try {
          value = await item.work();
        } catch (err) {
          if (isStorageFull(err) && !this.closing) {
            this.hold(item);
            return;
          }
          this.queue.shift();
          if (isStorageFull(err)) this.o.logger.error('a held write was lost at shutdown: the disk is still full', { write: item.what });
          for (const w of item.waiters) w.reject(err);
          continue;
        }
        this.queue.shift();
        if (this.full) {
          this.full = false;
          this.o.logger.info('the disk has room again: held writes are being stored', { write: item.what, still_waiting: this.queue.length });
          this.o.onWritten?.();
        }
        for (const w of item.waiters) w.resolve(value);
      }
    } finally {
      this.running = false;
    }
  }

  private hold(item: Item): void {
    if (!this.full) {
      this.full = true;
      this.o.logger.warn('the disk is full: state writes are held in memory until there is room', { write: item.what, waiting: this.queue.length });
      this.o.onFull?.();
      for (const resolve of this.onHeld) resolve();
      this.onHeld.clear();
    }
    this.timer = setTimeout(() => void this.pump(), this.retryMs);
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
