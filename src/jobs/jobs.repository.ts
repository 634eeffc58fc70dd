// Rows of the jobs table: function-style queries taking a kysely handle (the database or a transaction). Portable SQL only.
import { isUniqueViolation } from '../storage/engines/unique-violation.js';
import type { Kysely, Selectable, SqlBool, Updateable } from 'kysely';
import type { Database, JobTable } from '../storage/schema.js';
import type { PrintOptions } from '../printers/printer-link.js';
import type { JobStatus } from './job-state.js';

export type JobRow = Selectable<JobTable>;
/**
 * A job row as the API reads it: with whether its stored file has a thumbnail still in the store (the record links it
 * only then), and whether pruning removed the file.
 */
export type JobReadRow = JobRow & { file_has_thumbnail: SqlBool; file_deleted: SqlBool; last_snapshot_id?: string | null };
type Q = Kysely<Database>;

export const PRIORITY_RANK = { low: 0, normal: 1, high: 2, urgent: 3 } as const;

export async function insertJobs(db: Q, rows: JobRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('jobs').values(rows).execute();
}

export async function findJob(db: Q, id: string): Promise<JobReadRow | undefined> {
  return selectJobs(db).where('id', '=', id).executeTakeFirst();
}

/**
 * The base select of a job listing: the list-query helper adds filters, order and paging. The file's thumbnail is a
 * subquery rather than a join, so the filters and the order keep naming the jobs table's columns alone.
 */
export const selectJobs = (db: Q) =>
  db
    .selectFrom('jobs')
    .selectAll()
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('files')
            .select('files.id')
            .whereRef('files.id', '=', 'jobs.file_id')
            .where('files.thumbnail_type', 'is not', null)
            .where('files.deleted_at', 'is', null),
        )
        .as('file_has_thumbnail'),
    )
    .select((eb) =>
      eb.exists(eb.selectFrom('files').select('files.id').whereRef('files.id', '=', 'jobs.file_id').where('files.deleted_at', 'is not', null)).as('file_deleted'),
    )
    // The newest camera picture of the job (the cameras feature writes them; the record links it).
    .select((eb) =>
      eb
        .selectFrom('job_snapshots')
        .select('job_snapshots.id')
        .whereRef('job_snapshots.job_id', '=', 'jobs.id')
        .orderBy('job_snapshots.taken_at', 'desc')
        .orderBy('job_snapshots.id', 'desc')
        .limit(1)
        .as('last_snapshot_id'),
    );

/**
 * Writes `patch` only while the job is still in `from`: the status is the row's lock, so two writers (the scheduler,
 * an API call, a session event) can never both move one job. Returns whether this call won.
 */
export async function updateJobIf(db: Q, id: string, from: JobStatus, patch: Updateable<JobTable>): Promise<boolean> {
  const res = await db.updateTable('jobs').set(patch).where('id', '=', id).where('status', '=', from).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * The scheduler's claim: queued, and either unpinned or pinned to this printer → printing on it. One conditional update,
 * so two loops (or two hosts on one PostgreSQL) can never start one job twice; the partial unique index on active jobs
 * per printer refuses a second running job on one printer.
 */
export async function claimJob(db: Q, id: string, printerId: string, startedAt: string): Promise<boolean> {
  try {
    const res = await db
      .updateTable('jobs')
      .set({ status: 'printing', printer_id: printerId, started_at: startedAt, updated_at: startedAt, waiting_reason: null, waiting_detail: null })
      .where('id', '=', id)
      .where('status', '=', 'queued')
      .where((eb) => eb.or([eb('pinned', '=', 0), eb('printer_id', '=', printerId)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  } catch (err) {
    if (isUniqueViolation(err, 'jobs')) return false;
    throw err;
  }
}

/**
 * A queued job with its stored file's format (the scheduler matches bgcode and 3mf files to printers that print them)
 * and, for a sliced 3MF, the printer model it was sliced for.
 */
export type QueuedJobRow = JobRow & { file_format: 'gcode' | 'bgcode' | '3mf'; file_printer_model_id: string | null };

/** Every queued job in scheduling order (urgent first, then oldest). */
export async function queuedJobs(db: Q): Promise<QueuedJobRow[]> {
  const rows = await db
    .selectFrom('jobs')
    .selectAll()
    .select((eb) => eb.selectFrom('files').select('files.format').whereRef('files.id', '=', 'jobs.file_id').as('file_format'))
    .select((eb) => eb.selectFrom('files').select('files.printer_model_id').whereRef('files.id', '=', 'jobs.file_id').as('file_printer_model_id'))
    .where('status', '=', 'queued')
    .orderBy('priority_rank', 'desc')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
  return rows.map((r) => ({ ...r, file_format: r.file_format ?? 'gcode', file_printer_model_id: r.file_printer_model_id ?? null }));
}

/** Jobs running or paused on a printer. */
export async function activeJobs(db: Q): Promise<JobRow[]> {
  return db.selectFrom('jobs').selectAll().where('status', 'in', ['printing', 'paused']).execute();
}

/**
 * Records the scheduler's reason for each queued job that changed (one statement per change; few change per pass), with
 * its words where the code alone does not say enough (printer_refused: which printer, and its message).
 */
export async function setWaitingReason(db: Q, id: string, reason: string | null, detail: string | null = null): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ waiting_reason: reason, waiting_detail: detail })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .execute();
}

export async function updateJobProgress(db: Q, id: string, progress: number, elapsed: number, at: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ progress, elapsed_time: elapsed, updated_at: at })
    .where('id', '=', id)
    .where('status', 'in', ['printing', 'paused'])
    .execute();
}

/** The status of each of these jobs (a node checks the jobs it runs against what other nodes wrote). */
export async function jobStatuses(db: Q, ids: readonly string[]): Promise<Array<{ id: string; status: JobStatus; printer_id: string | null }>> {
  if (ids.length === 0) return [];
  return db.selectFrom('jobs').select(['id', 'status', 'printer_id']).where('id', 'in', [...ids]).execute();
}

/** The print options a job was created with (sent with its start), or null. */
export async function jobPrintOptions(db: Q, id: string): Promise<PrintOptions | null> {
  const row = await db.selectFrom('jobs').select('print_options').where('id', '=', id).executeTakeFirst();
  return row?.print_options ? (JSON.parse(row.print_options) as PrintOptions) : null;
}
