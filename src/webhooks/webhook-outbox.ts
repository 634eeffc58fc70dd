// The webhook side of the transactional outbox: for each recorded event, one pending delivery row per enabled webhook
// whose patterns match, written in the transaction that records the event (so a rollback takes them along).
import { anyPatternMatches, TEST_EVENT_TYPE } from '../events/event-names.js';
import type { Executor, RecordedEvent } from '../events/event-outbox.js';
import { newDeliveryId } from './delivery-record.js';
import { insertDelivery } from './deliveries.repository.js';
import { enabledWebhooks, takeWebhookSeq } from './webhooks.repository.js';

/** Queues one delivery of a recorded event to one webhook, due at `dueMs`. Returns the delivery's id. */
export async function queueDelivery(trx: Executor, webhookId: string, event: RecordedEvent, dueMs: number): Promise<string> {
  const id = newDeliveryId();
  await insertDelivery(trx, {
    id,
    webhook_id: webhookId,
    event_seq: event.seq,
    seq: await takeWebhookSeq(trx, webhookId),
    status: 'pending',
    attempts: 0,
    next_attempt_ms: dueMs,
    created_at: event.createdAt,
    updated_at: event.createdAt,
  });
  return id;
}

/** The outbox subscriber: fans an event out to the subscribed webhooks. A test event is addressed by its sender instead. */
export async function fanOutToWebhooks(trx: Executor, event: RecordedEvent): Promise<void> {
  if (event.type === TEST_EVENT_TYPE) return;
  for (const webhook of await enabledWebhooks(trx)) {
    if (anyPatternMatches(JSON.parse(webhook.events) as string[], event.type)) await queueDelivery(trx, webhook.id, event, event.createdMs);
  }
}
