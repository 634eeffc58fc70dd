// The farm's job counts for Home Assistant: jobs waiting in the queue, and jobs that failed since a moment.
import type { Db } from '../storage/db.js';

export async function countQueuedJobs(db: Db): Promise<number> {
  const row = await db.selectFrom('jobs').select((eb) => eb.fn.countAll<number | string>().as('n')).where('status', '=', 'queued').executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Jobs that ended failed at or after `sinceIso` (completed_at is set on every final status). */
export async function countFailedSince(db: Db, sinceIso: string): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('status', '=', 'failed')
    .where('completed_at', '>=', sinceIso)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
