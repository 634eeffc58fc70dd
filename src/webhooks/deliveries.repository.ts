// The webhook_deliveries outbox: rows written with their event, the due ones the worker sends, and attempt outcomes.
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import { engineSqlOf } from '../storage/engines/engine-sql.js';
import { lockAndCountLeases, releaseLease, releaseLeasesOfGoneNodes as releaseGoneLeases, takeLeases } from '../storage/outbox-leases.js';
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

/** Any fixed number: with a webhook's id, the transaction lock that makes the nodes claim its deliveries one at a time. */
export const CLAIM_LOCK_CLASS = 7_270_021;

export interface Claim {
  nowMs: number;
  /** This node's attempts in flight (not due again until they end). */
  exclude: readonly string[];
  /** At most this many for this node (its own free slots). */
  limit: number;
  /** Attempts in flight per webhook for the whole farm (several nodes), this node's included. */
  perWebhook: number;
  leaseUntilMs: number;
  /** The node taking the lease: its deliveries are handed back when it is lost. */
  nodeId: string;
}

/**
 * Takes the next due deliveries of one webhook for this node, lowest sequence first, skipping those in flight here.
 * Several nodes (PostgreSQL): the nodes claim one webhook's deliveries one at a time (a transaction-level advisory lock on
 * its id, which no other write takes, so recording events is never held up), counting the leases in force on every
 * node, so `perWebhook` bounds the attempts in flight for the whole farm. Each row taken is leased (its next attempt
 * moved to `leaseUntilMs`, `leased_by` this node) in the same transaction: no other node sends it meanwhile; recording
 * the attempt replaces the lease, which must outlast an attempt's timeout, and a lost node's leases are handed back by
 * releaseLeasesOfGoneNodes. One node (SQLite): the worker's own in-flight list is the whole claim, and a crashed run's
 * deliveries are due again at once on restart.
 */
export async function claimDueDeliveriesOf(db: Q, webhookId: string, c: Claim): Promise<DueDelivery[]> {
  const shared = engineSqlOf(db).engine === 'postgres';
  return db.transaction().execute(async (trx) => {
    let limit = c.limit;
    if (shared) {
      const live = await lockAndCountLeases(trx, 'webhook_deliveries', CLAIM_LOCK_CLASS, { column: 'webhook_id', id: webhookId }, c.nowMs);
      limit = Math.min(limit, c.perWebhook - live);
      if (limit <= 0) return [];
    }
    let q = dueSelect(trx, webhookId).where('webhook_deliveries.next_attempt_ms', '<=', c.nowMs);
    if (c.exclude.length > 0) q = q.where('webhook_deliveries.id', 'not in', c.exclude);
    // Documented order: a webhook's deliveries go out by sequence (a retry due again goes before later events).
    q = q.orderBy('webhook_deliveries.seq').limit(limit);
    if (!shared) return q.execute();
    const rows = await q.forUpdate('webhook_deliveries').skipLocked().execute();
    await takeLeases(trx, 'webhook_deliveries', rows.map((r) => r.id), c.leaseUntilMs, c.nodeId);
    return rows;
  });
}

/** An attempt cut off by this node's shutdown: the delivery is due again when it was before the claim, for any node. */
export async function releaseDelivery(db: Q, row: DueDelivery): Promise<void> {
  await releaseLease(db, 'webhook_deliveries', row.id, row.next_attempt_ms);
}

/** See outbox-leases.ts: lost or stopped nodes' leases (and, given `selfId`, this node's from an earlier run) are due now. */
export const releaseLeasesOfGoneNodes = (db: Q, nowMs: number, selfId?: string): Promise<number> =>
  releaseGoneLeases(db, 'webhook_deliveries', nowMs, selfId);

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
    .set({ status: 'failed', next_attempt_ms: null, leased_by: null, last_error: reason, updated_at: nowIso })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .execute();
}
