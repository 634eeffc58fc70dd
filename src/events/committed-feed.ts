// Tells subscribers about events once they are committed: a poke after record() reads the log past the last seen seq.
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import { eventsAfter, latestEventSeq, type EventRow } from './event-log.repository.js';

const BATCH = 500;

export type FeedListener = (rows: readonly EventRow[]) => void;

/**
 * Why reading the log works as a commit signal: kysely's SQLite driver has one connection behind a mutex, so the read a
 * poke schedules waits until the recording transaction has committed or rolled back, and then sees only committed rows.
 * A rolled-back event is never announced; a committed one is announced once, in seq (commit) order.
 * On PostgreSQL a poke may read before the commit (a pool has several connections): the event is then announced by the
 * next poke or the safety poll, and it is never skipped, because event-writing transactions commit in seq order
 * (EngineSql.lockEventOrder).
 */
export class CommittedFeed {
  /** Null until prime(): nothing is announced before the starting point is known. */
  private lastSeq: number | null = null;
  private readonly listeners = new Set<FeedListener>();
  private draining = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {}

  /** Reads where the log ends now: events already there are old, the ones after are announced. Call before serving. */
  async prime(): Promise<void> {
    if (this.lastSeq === null) this.lastSeq = await latestEventSeq(this.db);
  }

  /** The newest seq already announced (0 before prime()). */
  get announcedSeq(): number {
    return this.lastSeq ?? 0;
  }

  subscribe(listener: FeedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Cheap and coalesced: call after any commit that may have added events (record() does it for you). */
  poke(): void {
    if (this.stopped || this.lastSeq === null) return;
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
        const rows = await eventsAfter(this.db, this.lastSeq ?? 0, BATCH);
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
