// The webhook_deliveries outbox: rows written with their event, the due ones the worker sends, and attempt outcomes.
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import { engineSqlOf } from '../storage/engines/engine-sql.js';
import type { Database, WebhookDeliveryTable } from '../storage/schema.js';

export type DeliveryRow = Selectable<WebhookDeliveryTable>;
type Q = Kysely<Database>;

export async function insertDelivery(db: Q, row: Insertable<WebhookDeliveryTable>): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute();
}

export async function findDelivery(db: Q, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).where('webhook_id', '=', webhookId).executeTakeFirst();
}

export async function updateDelivery(db: Q, id: string, patch: Updateable<WebhookDeliveryTable>): Promise<void> {
  await db.updateTable('webhook_deliveries').set(patch).where('id', '=', id).execute();
}

/** A page of one webhook's deliveries joined with their event's type and id, for the list endpoint. */
export const selectDeliveries = (db: Q, webhookId: string) =>
  db
    .selectFrom('webhook_deliveries')
    .innerJoin('events', 'events.seq', 'webhook_deliveries.event_seq')
    .selectAll('webhook_deliveries')
    .select(['events.id as event_id', 'events.type as event_type'])
    .where('webhook_deliveries.webhook_id', '=', webhookId);

export interface DueDelivery {
  id: string;
  webhook_id: string;
  seq: number;
  attempts: number;
  /** When it was due before this node claimed it (restored if the attempt is cut off). */
  next_attempt_ms: number | null;
  event_id: string;
  event_type: string;
  body: string;
}

const dueSelect = (db: Q, webhookId: string) =>
  db
    .selectFrom('webhook_deliveries')
    .innerJoin('events', 'events.seq', 'webhook_deliveries.event_seq')
    .select([
      'webhook_deliveries.id',
      'webhook_deliveries.webhook_id',
      'webhook_deliveries.seq',
      'webhook_deliveries.attempts',
      'webhook_deliveries.next_attempt_ms',
      'events.id as event_id',
      'events.type as event_type',
      'events.body',
    ])
    .where('webhook_deliveries.webhook_id', '=', webhookId)
    .where('webhook_deliveries.status', '=', 'pending');

/**
 * Takes the next due deliveries of one webhook for this node, in event order, skipping those in flight here.
 * Several nodes (PostgreSQL): the rows are locked with SKIP LOCKED, so nodes claiming at once take different rows, and
 * each is leased (its next attempt moved to `leaseUntilMs`) in the same transaction, so no other node sends it
 * meanwhile and a node killed mid-send only delays it until the lease ends; recording the attempt replaces the lease,
 * which must outlast an attempt's timeout. One node (SQLite): the worker's own in-flight list is the whole claim, and a
 * crashed run's deliveries are due again at once on restart.
 */
export async function claimDueDeliveriesOf(db: Q, webhookId: string, nowMs: number, exclude: readonly string[], limit: number, leaseUntilMs: number): Promise<DueDelivery[]> {
  const shared = engineSqlOf(db).engine === 'postgres';
  return db.transaction().execute(async (trx) => {
    let q = dueSelect(trx, webhookId).where('webhook_deliveries.next_attempt_ms', '<=', nowMs);
    if (exclude.length > 0) q = q.where('webhook_deliveries.id', 'not in', exclude);
    q = q.orderBy('webhook_deliveries.next_attempt_ms').orderBy('webhook_deliveries.seq').limit(limit);
    if (!shared) return q.execute();
    const rows = await q.forUpdate('webhook_deliveries').skipLocked().execute();
    if (rows.length > 0) {
      await trx
        .updateTable('webhook_deliveries')
        .set({ next_attempt_ms: leaseUntilMs })
        .where('id', 'in', rows.map((r) => r.id))
        .execute();
    }
    return rows;
  });
}

/** An attempt cut off by this node's shutdown: the delivery is due again when it was before the claim, for any node. */
export async function releaseDelivery(db: Q, row: DueDelivery): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ next_attempt_ms: row.next_attempt_ms }).where('id', '=', row.id).where('status', '=', 'pending').execute();
}

/** One pending delivery whatever its due time (the test endpoint sends it at once). */
export async function pendingDelivery(db: Q, webhookId: string, id: string): Promise<DueDelivery | undefined> {
  return dueSelect(db, webhookId).where('webhook_deliveries.id', '=', id).executeTakeFirst();
}

/** The earliest future attempt of an enabled webhook, so the worker can sleep until then. */
export async function nextDueMs(db: Q): Promise<number | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhooks', 'webhooks.id', 'webhook_deliveries.webhook_id')
    .select(sql<number | null>`min(webhook_deliveries.next_attempt_ms)`.as('due'))
    .where('webhook_deliveries.status', '=', 'pending')
    .where('webhooks.enabled', '=', 1)
    .executeTakeFirst();
  return row?.due ?? null;
}

/** After a 410: the webhook's other waiting deliveries end too, with the reason. */
export async function failPendingOf(db: Q, webhookId: string, reason: string, nowIso: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_ms: null, last_error: reason, updated_at: nowIso })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .execute();
}
