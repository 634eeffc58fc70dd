// The transactional outbox: record() writes the event row in the caller's transaction and lets the subscribers that
// keep rows of their own per event (the webhook outbox) write them in that same transaction.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Db } from '../storage/db.js';
import type { EngineSql } from '../storage/engines/engine-sql.js';
import type { Database } from '../storage/schema.js';
import type { CommittedFeed } from './committed-feed.js';
import { insertEvent } from './event-log.repository.js';
import type { RecordableType } from './event-names.js';
import { makeEvent, type PublicEvent } from './public-event.js';

/** A transaction (or, for a single statement, the database itself). */
export type Executor = Kysely<Database>;

/** An event just written to the log, as the in-transaction subscribers see it. */
export interface RecordedEvent {
  seq: number;
  type: RecordableType;
  createdMs: number;
  createdAt: string;
}

/**
 * Runs inside the transaction that records the event: what it writes commits or rolls back with the state change.
 * Subscribed once at composition (webhooks/webhooks-runtime.ts).
 */
export type RecordSubscriber = (trx: Executor, event: RecordedEvent) => Promise<void>;

export class EventOutbox {
  private readonly subscribers: RecordSubscriber[] = [];

  constructor(
    private readonly db: Db,
    private readonly sql: EngineSql,
    private readonly clock: Clock,
    private readonly feed: CommittedFeed,
  ) {}

  subscribe(subscriber: RecordSubscriber): void {
    this.subscribers.push(subscriber);
  }

  /**
   * Call INSIDE the transaction of the state change, with `object` as the API returns it now. Nothing is sent before
   * the transaction commits; a rollback takes the event and what the subscribers wrote with it.
   */
  async record<T>(trx: Executor, type: RecordableType, object: T): Promise<PublicEvent<T>> {
    const nowMs = this.clock.now();
    const event = makeEvent(type, object, nowMs);
    await this.sql.lockEventOrder(trx);
    const seq = await insertEvent(trx, {
      id: event.id,
      type,
      created_at: event.created_at,
      created_ms: nowMs,
      body: JSON.stringify(event),
    });
    const recorded: RecordedEvent = { seq, type, createdMs: nowMs, createdAt: event.created_at };
    for (const subscriber of this.subscribers) await subscriber(trx, recorded);
    // The read this schedules queues behind the open transaction, so it announces the event only once committed.
    this.feed.poke();
    return event;
  }

  /** For events without a state change of their own (printer.online from a session): one transaction of its own. */
  async recordNow<T>(type: RecordableType, object: T): Promise<PublicEvent<T>> {
    return this.db.transaction().execute((trx) => this.record(trx, type, object));
  }
}
