// The few cheap reads a scrape makes: each an index lookup or a scan of a small table (printers, spools).
import type { Db } from '../storage/db.js';

export const printerRows = (db: Db) => db.selectFrom('printers').select(['id', 'name', 'connection_url']).orderBy('id').execute();

/** Jobs per status (the jobs_finished index starts with status, so this never reads the table). */
export async function jobCountsByStatus(db: Db): Promise<Map<string, number>> {
  const rows = await db.selectFrom('jobs').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('status').execute();
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

/** Queued jobs and the creation time of the one waiting longest (jobs_queue index: status first). */
export async function queueState(db: Db): Promise<{ length: number; oldestCreatedAt: string | null }> {
  const row = await db
    .selectFrom('jobs')
    .select([(eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.min('created_at').as('oldest')])
    .where('status', '=', 'queued')
    .executeTakeFirstOrThrow();
  return { length: Number(row.n), oldestCreatedAt: row.oldest ?? null };
}

/** Spools in use or on the shelf (archived ones are history, not stock). */
export const stockedSpools = (db: Db) =>
  db
    .selectFrom('materials')
    .select(['id', 'type', 'color', 'remaining_weight'])
    .where('status', '!=', 'archived')
    .orderBy('id')
    .execute();

/** Deliveries waiting to be sent or retried (webhook_deliveries_due index: status first). */
export async function pendingDeliveryCount(db: Db): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
