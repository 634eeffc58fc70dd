// Leases on outbox rows shared by the outboxes that send from several nodes (webhook deliveries, notifications): a
// pending row being sent carries the node in leased_by and the lease's end in next_attempt_ms.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export type LeasedOutbox = 'webhook_deliveries' | 'notification_deliveries';
type Q = Kysely<Database>;
// Both tables have the same lease columns (status, leased_by, next_attempt_ms, id): the queries are written against one
// of them and run on the one named.
const on = (table: LeasedOutbox) => table as 'webhook_deliveries';

/**
 * Inside a claiming transaction (PostgreSQL): the per-owner transaction lock that makes nodes claim one owner's rows
 * one at a time (`lockClass` and the owner's id; no other write takes it, so recording events is never held up), then
 * how many of that owner's rows are leased now, on every node.
 */
export async function lockAndCountLeases(trx: Q, table: LeasedOutbox, lockClass: number, owner: { column: 'webhook_id' | 'channel_id'; id: string }, nowMs: number): Promise<number> {
  await sql`SELECT pg_advisory_xact_lock(${lockClass}, hashtext(${owner.id}))`.execute(trx);
  const live = await trx
    .selectFrom(on(table))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(sql.ref(owner.column), '=', owner.id)
    .where('status', '=', 'pending')
    .where('leased_by', 'is not', null)
    .where('next_attempt_ms', '>', nowMs)
    .executeTakeFirstOrThrow();
  return Number(live.n);
}

/** Leases the claimed rows to `nodeId` until `untilMs`, in the claiming transaction. */
export async function takeLeases(trx: Q, table: LeasedOutbox, ids: readonly string[], untilMs: number, nodeId: string): Promise<void> {
  if (ids.length === 0) return;
  await trx.updateTable(on(table)).set({ next_attempt_ms: untilMs, leased_by: nodeId }).where('id', 'in', ids).execute();
}

/** An attempt cut off by this node's shutdown: the row is due when it was before the claim, for any node. */
export async function releaseLease(db: Q, table: LeasedOutbox, id: string, dueMs: number | null): Promise<void> {
  await db.updateTable(on(table)).set({ next_attempt_ms: dueMs, leased_by: null }).where('id', '=', id).where('status', '=', 'pending').execute();
}

/**
 * Hands back the leases of nodes that are no longer running (declared lost, or stopped) and, given `selfId`, this
 * node's own from an earlier run (it has nothing in flight yet): due now, for any node. Returns how many.
 */
export async function releaseLeasesOfGoneNodes(db: Q, table: LeasedOutbox, nowMs: number, selfId?: string): Promise<number> {
  const res = await db
    .updateTable(on(table))
    .set({ next_attempt_ms: nowMs, leased_by: null })
    .where('status', '=', 'pending')
    .where((eb) => {
      const gone = eb('leased_by', 'in', eb.selectFrom('nodes').select('id').where('state', 'in', ['lost', 'stopped']));
      return selfId === undefined ? gone : eb.or([gone, eb('leased_by', '=', selfId)]);
    })
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}
