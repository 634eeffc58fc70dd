// Rows of the job_snapshots table: pictures of jobs with their JPEG, and the sums the size budgets are checked against.
import type { Insertable, Kysely } from 'kysely';
import type { Database, JobSnapshotTable } from '../storage/schema.js';

type Q = Kysely<Database>;

export type JobSnapshotMeta = Omit<JobSnapshotTable, 'data'>;

export async function insertJobSnapshot(db: Q, row: Insertable<JobSnapshotTable>): Promise<void> {
  await db.insertInto('job_snapshots').values(row).execute();
}

/** A job's pictures without their bytes, oldest first. */
export async function jobSnapshots(db: Q, jobId: string): Promise<JobSnapshotMeta[]> {
  return db
    .selectFrom('job_snapshots')
    .select(['id', 'job_id', 'camera_id', 'moment', 'progress', 'size', 'taken_at'])
    .where('job_id', '=', jobId)
    .orderBy('taken_at')
    .orderBy('id')
    .execute();
}

export async function jobSnapshotData(db: Q, jobId: string, id: string): Promise<Buffer | undefined> {
  const row = await db.selectFrom('job_snapshots').select('data').where('job_id', '=', jobId).where('id', '=', id).executeTakeFirst();
  return row ? Buffer.from(row.data) : undefined;
}

export async function bytesOfJob(db: Q, jobId: string): Promise<number> {
  const row = await db.selectFrom('job_snapshots').select((eb) => eb.fn.sum<number>('size').as('n')).where('job_id', '=', jobId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function bytesOfAll(db: Q): Promise<number> {
  const row = await db.selectFrom('job_snapshots').select((eb) => eb.fn.sum<number>('size').as('n')).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The oldest pictures (all jobs, or one job's progress pictures), for pruning down to a budget. */
export async function oldestSnapshots(db: Q, limit: number, only?: { jobId: string; moment: JobSnapshotTable['moment'] }): Promise<Array<{ id: string; size: number }>> {
  let q = db.selectFrom('job_snapshots').select(['id', 'size']);
  if (only) q = q.where('job_id', '=', only.jobId).where('moment', '=', only.moment);
  return q.orderBy('taken_at').orderBy('id').limit(limit).execute();
}

export async function deleteSnapshots(db: Q, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await db.deleteFrom('job_snapshots').where('id', 'in', ids).execute();
}

/** The pictures of every job that printed `fileId`: they go with the file when retention prunes it. */
export async function deleteSnapshotsOfFile(db: Q, fileId: string): Promise<void> {
  await db.deleteFrom('job_snapshots').where('job_id', 'in', db.selectFrom('jobs').select('id').where('file_id', '=', fileId)).execute();
}
