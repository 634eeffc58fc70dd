// The transactional outbox: record() writes the event row and one delivery row per matching enabled webhook in the caller's transaction.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Db } from '../storage/db.js';
import type { Database } from '../storage/schema.js';
import { newDeliveryId } from '../webhooks/delivery-record.js';
import { insertDelivery } from '../webhooks/deliveries.repository.js';
import { enabledWebhooks, takeWebhookSeq } from '../webhooks/webhooks.repository.js';
import type { CommittedFeed } from './committed-feed.js';
import { insertEvent } from './event-log.repository.js';
import { anyPatternMatches, type RecordableType } from './event-names.js';
import { makeEvent, type PublicEvent } from './public-event.js';

/** A transaction (or, for a single statement, the database itself). */
export type Executor = Kysely<Database>;

export interface RecordOptions {
  /** Deliver to this webhook only, whatever its patterns or enabled flag (the test endpoint). */
  onlyWebhookId?: string;
  /** Delay of the first automatic attempt; the test endpoint sends at once itself and leaves this as a fallback. */
  firstAttemptDelayMs?: number;
}

export class EventOutbox {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly feed: CommittedFeed,
  ) {}

  /**
   * Call INSIDE the transaction of the state change, with `object` as the API returns it now. Nothing is sent before
   * the transaction commits; a rollback takes the event and its deliveries with it.
   */
  async record<T>(trx: Executor, type: RecordableType, object: T, options: RecordOptions = {}): Promise<PublicEvent<T>> {
    const nowMs = this.clock.now();
    const event = makeEvent(type, object, nowMs);
    const eventSeq = await insertEvent(trx, {
      id: event.id,
      type,
      created_at: event.created_at,
      created_ms: nowMs,
      body: JSON.stringify(event),
    });
    const targets = options.onlyWebhookId
      ? [options.onlyWebhookId]
      : (await enabledWebhooks(trx)).filter((w) => anyPatternMatches(JSON.parse(w.events) as string[], type)).map((w) => w.id);
    for (const webhookId of targets) {
      await insertDelivery(trx, {
        id: newDeliveryId(),
        webhook_id: webhookId,
        event_seq: eventSeq,
        seq: await takeWebhookSeq(trx, webhookId),
        status: 'pending',
        attempts: 0,
        next_attempt_ms: nowMs + (options.firstAttemptDelayMs ?? 0),
        created_at: event.created_at,
        updated_at: event.created_at,
      });
    }
    // The read this schedules queues behind the open transaction, so it announces the event only once committed.
    this.feed.poke();
    return event;
  }

  /** For events without a state change of their own (printer.online from a session): one transaction of its own. */
  async recordNow<T>(type: RecordableType, object: T, options: RecordOptions = {}): Promise<PublicEvent<T>> {
    return this.db.transaction().execute((trx) => this.record(trx, type, object, options));
  }
}
