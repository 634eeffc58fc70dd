// Tells subscribers about events once they are committed: a poke after record() reads the log past the last seen seq.
import type BetterSqlite3 from 'better-sqlite3';
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import { eventsAfter, type EventRow } from './event-log.repository.js';

const BATCH = 500;

export type FeedListener = (rows: readonly EventRow[]) => void;

/**
 * Why reading the log works as a commit signal: kysely's SQLite driver has one connection behind a mutex, so the read a
 * poke schedules waits until the recording transaction has committed or rolled back, and then sees only committed rows.
 * A rolled-back event is never announced; a committed one is announced once, in seq (commit) order.
 */
export class CommittedFeed {
  private lastSeq: number;
  private readonly listeners = new Set<FeedListener>();
  private draining = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Db,
    sqlite: BetterSqlite3.Database,
    private readonly logger: Logger,
  ) {
    // Synchronous, so an event recorded right after construction is never mistaken for an old one.
    const row = sqlite.prepare('SELECT max(seq) AS seq FROM events').get() as { seq: number | null };
    this.lastSeq = row.seq ?? 0;
  }

  /** The newest seq already announced. */
  get announcedSeq(): number {
    return this.lastSeq;
  }

  subscribe(listener: FeedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Cheap and coalesced: call after any commit that may have added events (record() does it for you). */
  poke(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = true;
    setImmediate(() => void this.drain());
  }

  stop(): void {
    this.stopped = true;
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        this.again = false;
        const rows = await eventsAfter(this.db, this.lastSeq, BATCH);
        if (rows.length > 0) {
          this.lastSeq = (rows[rows.length - 1] as EventRow).seq;
          for (const l of this.listeners) {
            try {
              l(rows);
            } catch (err) {
              this.logger.error('events: a feed listener threw', { error: err as Error });
            }
          }
        }
        if (this.stopped || (rows.length < BATCH && !this.again)) break;
      }
    } catch (err) {
      if (!this.stopped) this.logger.error('events: reading the event log failed', { error: err as Error });
    } finally {
      this.draining = false;
    }
  }
}
