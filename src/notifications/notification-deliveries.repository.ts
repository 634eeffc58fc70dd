// The notification_deliveries outbox: messages written with their events (grouped while open), claimed with a lease
// (PostgreSQL: one node at a time per channel, like webhook deliveries), and their attempt outcomes.
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import { engineSqlOf } from '../storage/engines/engine-sql.js';
import { lockAndCountLeases, releaseLease, releaseLeasesOfGoneNodes, takeLeases } from '../storage/outbox-leases.js';
import type { Database, NotificationDeliveryTable } from '../storage/schema.js';

export type NotificationDeliveryRow = Selectable<NotificationDeliveryTable>;
type Q = Kysely<Database>;

export const insertNotificationDelivery = async (db: Q, row: Insertable<NotificationDeliveryTable>): Promise<void> => {
  await db.insertInto('notification_deliveries').values(row).execute();
};
export const updateNotificationDelivery = async (db: Q, id: string, patch: Updateable<NotificationDeliveryTable>): Promise<void> => {
  await db.updateTable('notification_deliveries').set(patch).where('id', '=', id).execute();
};
export const findNotificationDelivery = (db: Q, id: string): Promise<NotificationDeliveryRow | undefined> =>
  db.selectFrom('notification_deliveries').selectAll().where('id', '=', id).executeTakeFirst();

/**
 * The channel's message still gathering events of this mode: never tried, not leased, not due before `nowMs`. Events
 * join it instead of making a message each (a flood, a digest). Runs in the event's transaction, which holds the event
 * order lock, so two events never both miss it or both extend it.
 */
export const openMessageOf = (db: Q, channelId: string, mode: 'now' | 'digest', nowMs: number): Promise<NotificationDeliveryRow | undefined> =>
  db
    .selectFrom('notification_deliveries')
    .selectAll()
    .where('channel_id', '=', channelId)
    .where('mode', '=', mode)
    .where('status', '=', 'pending')
    .where('attempts', '=', 0)
    .where('leased_by', 'is', null)
    .where('next_attempt_ms', '>', nowMs)
    .orderBy('next_attempt_ms')
    .limit(1)
    .executeTakeFirst();

/** Any fixed number: with a channel's id, the transaction lock under which nodes claim its messages one at a time. */
const CLAIM_LOCK_CLASS = 7_270_026;

/**
 * Takes the channel's due messages for this node, oldest first, skipping those in flight here. On PostgreSQL each is
 * leased (next attempt moved to `leaseUntilMs`, leased_by this node) in the claiming transaction, farm-wide at most
 * `perChannel` in flight, so no other node sends it meanwhile; the outcome replaces the lease. On SQLite (one node) the
 * worker's in-flight list is the claim, and an attempt cut off by a crash is due again at once on restart.
 */
export async function claimDueMessages(
  db: Q,
  channelId: string,
  c: { nowMs: number; exclude: readonly string[]; limit: number; perChannel: number; leaseUntilMs: number; nodeId: string },
): Promise<NotificationDeliveryRow[]> {
  const shared = engineSqlOf(db).engine === 'postgres';
  return db.transaction().execute(async (trx) => {
    let limit = c.limit;
    if (shared) {
      const live = await lockAndCountLeases(trx, 'notification_deliveries', CLAIM_LOCK_CLASS, { column: 'channel_id', id: channelId }, c.nowMs);
      limit = Math.min(limit, c.perChannel - live);
      if (limit <= 0) return [];
    }
    let q = trx
      .selectFrom('notification_deliveries')
      .selectAll()
      .where('channel_id', '=', channelId)
      .where('status', '=', 'pending')
      .where('next_attempt_ms', '<=', c.nowMs);
    if (c.exclude.length > 0) q = q.where('id', 'not in', c.exclude);
    q = q.orderBy('created_at').orderBy('id').limit(limit);
    if (!shared) return q.execute();
    const rows = await q.forUpdate().skipLocked().execute();
    await takeLeases(trx, 'notification_deliveries', rows.map((r) => r.id), c.leaseUntilMs, c.nodeId);
    return rows;
  });
}

/** An attempt cut off by shutdown: due again when it was before the claim, for any node. */
export async function releaseMessage(db: Q, row: NotificationDeliveryRow): Promise<void> {
  await releaseLease(db, 'notification_deliveries', row.id, row.next_attempt_ms);
}

/** Leases held by nodes no longer running (and, given `selfId`, by this node's earlier run): due now, for any node. */
export const releaseGoneMessageLeases = (db: Q, nowMs: number, selfId?: string): Promise<number> =>
  releaseLeasesOfGoneNodes(db, 'notification_deliveries', nowMs, selfId);

/** The earliest pending message of a sending channel, so the worker sleeps until then. */
export async function nextMessageDueMs(db: Q): Promise<number | null> {
  const row = await db
    .selectFrom('notification_deliveries')
    .innerJoin('notification_channels', 'notification_channels.id', 'notification_deliveries.channel_id')
    .select(sql<number | null>`min(notification_deliveries.next_attempt_ms)`.as('due'))
    .where('notification_deliveries.status', '=', 'pending')
    .where('notification_channels.enabled', '=', 1)
    .where('notification_channels.paused_reason', 'is', null)
    .executeTakeFirst();
  return row?.due === null || row?.due === undefined ? null : Number(row.due);
}

/** The delivery log of one channel, newest first. */
export const channelLog = (db: Q, channelId: string, limit: number): Promise<NotificationDeliveryRow[]> =>
  db.selectFrom('notification_deliveries').selectAll().where('channel_id', '=', channelId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();

/** Event bodies by seq, for composing a message. */
export const eventsBySeq = (db: Q, seqs: readonly number[]) =>
  seqs.length === 0 ? Promise.resolve([]) : db.selectFrom('events').select(['seq', 'type', 'created_ms', 'body']).where('seq', 'in', seqs).orderBy('seq').execute();
