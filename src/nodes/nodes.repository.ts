// Rows of the nodes table (and the printers' node_id): registration, heartbeats, the conditional moves liveness makes.
import type { Kysely, Selectable } from 'kysely';
import type { Database, NodeTable } from '../storage/schema.js';

type Q = Kysely<Database>;
export type NodeRow = Selectable<NodeTable>;
export type NodeState = NodeRow['state'];

/** A node starting (or starting again): its row is written fresh and it is online. */
export async function upsertNode(db: Q, row: { id: string; name: string; address: string | null; version: string; now: string }): Promise<void> {
  const values = { name: row.name, address: row.address, version: row.version, started_at: row.now, last_seen_at: row.now, state: 'online' as const, updated_at: row.now };
  await db
    .insertInto('nodes')
    .values({ id: row.id, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
}

/** One heartbeat: `beats` moves (others watch it change) and the node is online again. Returns the state it had. */
export async function beat(db: Q, id: string, now: string): Promise<NodeState | null> {
  return db.transaction().execute(async (trx) => {
    const before = await trx.selectFrom('nodes').select('state').where('id', '=', id).executeTakeFirst();
    if (!before) return null;
    await trx
      .updateTable('nodes')
      .set((eb) => ({ beats: eb('beats', '+', 1), last_seen_at: now, state: 'online', updated_at: now }))
      .where('id', '=', id)
      .execute();
    return before.state;
  });
}

export async function setNodeState(db: Q, id: string, state: NodeState, now: string): Promise<void> {
  await db.updateTable('nodes').set({ state, updated_at: now }).where('id', '=', id).execute();
}

/**
 * Marks a node lost only while it is still online with the beats the caller saw unchanged: of several nodes seeing the
 * same silence, exactly one wins (and handles its jobs); a node that beat meanwhile is not lost.
 */
export async function markLostIf(db: Q, id: string, beats: number, now: string): Promise<boolean> {
  const res = await db
    .updateTable('nodes')
    .set({ state: 'lost', updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'online')
    .where('beats', '=', beats)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function listNodes(db: Q): Promise<NodeRow[]> {
  return db.selectFrom('nodes').selectAll().orderBy('started_at').orderBy('id').execute();
}

export async function findNode(db: Q, id: string): Promise<NodeRow | undefined> {
  return db.selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Printers of a farm upgraded from one box (no node yet) go to the first node that starts. Returns how many. */
export async function adoptUnownedPrinters(db: Q, nodeId: string): Promise<number> {
  const res = await db.updateTable('printers').set({ node_id: nodeId }).where('node_id', 'is', null).executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Moves a printer from a lost node to `to`, only if it still belongs to `from` (one taker wins). */
export async function movePrinterIf(db: Q, printerId: string, from: string, to: string): Promise<boolean> {
  const res = await db.updateTable('printers').set({ node_id: to }).where('id', '=', printerId).where('node_id', '=', from).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function printersOfNode(db: Q, nodeId: string): Promise<Array<{ id: string; connection_url: string }>> {
  return db.selectFrom('printers').select(['id', 'connection_url']).where('node_id', '=', nodeId).orderBy('created_at').orderBy('id').execute();
}

/** Printer ids with their node (for the node list and for the scheduler's "whose printer is this"). */
export async function printerNodes(db: Q): Promise<Array<{ id: string; name: string; node_id: string | null }>> {
  return db.selectFrom('printers').select(['id', 'name', 'node_id']).orderBy('created_at').orderBy('id').execute();
}

/** Queued jobs pinned to a printer of `nodeId` get (or lose) the waiting reason node_lost. */
export async function setPinnedWaitingReason(db: Q, nodeId: string, reason: 'node_lost' | null): Promise<number> {
  let q = db
    .updateTable('jobs')
    .set({ waiting_reason: reason, waiting_detail: null })
    .where('status', '=', 'queued')
    .where('pinned', '=', 1)
    .where('printer_id', 'in', db.selectFrom('printers').select('id').where('node_id', '=', nodeId));
  // Clearing touches only the reason this module wrote; the scheduler of the node writes its own next.
  if (reason === null) q = q.where('waiting_reason', '=', 'node_lost');
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows);
}
