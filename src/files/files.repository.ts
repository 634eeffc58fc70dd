// Rows of the files table: function-style queries taking `db`.
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../storage/db.js';
import type { FileTable } from '../storage/schema.js';

export type FileRow = Selectable<FileTable>;

export async function insertFile(db: Db, row: Insertable<FileTable>): Promise<void> {
  await db.insertInto('files').values(row).execute();
}

export async function findFileById(db: Db, id: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A files row as GET /v1/files reads it: with the jobs queued from it and the last_used_at the record shows. */
export type FileListRow = FileRow & { jobs_count: number | string | null; last_job_at: string | null; used_at: string };

/**
 * The base select of the files list (the list-query helper adds filters, order and paging). The jobs figures are
 * subqueries, not a join, so the filters keep naming the files table's columns alone and the count stays one scan.
 */
export const selectFiles = (db: Db) =>
  db
    .selectFrom('files')
    .selectAll()
    .select((eb) => [
      eb.selectFrom('jobs').select((j) => j.fn.countAll<number>().as('n')).whereRef('jobs.file_id', '=', 'files.id').as('jobs_count'),
      eb.selectFrom('jobs').select((j) => j.fn.max('jobs.created_at').as('t')).whereRef('jobs.file_id', '=', 'files.id').as('last_job_at'),
      sql<string>`coalesce(files.last_used_at, files.created_at)`.as('used_at'),
    ]);

export async function findFileBySha256(db: Db, sha256: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('sha256', '=', sha256).executeTakeFirst();
}

/** The organization's file_url_hosts (empty: any host). */
export async function fileUrlHostsOf(db: Db): Promise<string[]> {
  const row = await db.selectFrom('organization').select('file_url_hosts').orderBy('created_at').limit(1).executeTakeFirst();
  return row ? (JSON.parse(row.file_url_hosts) as string[]) : [];
}

export async function countFiles(db: Db): Promise<number> {
  const row = await db.selectFrom('files').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Job statuses that still need their file: it is never removed while one of its jobs is in them. */
export const FILE_HOLDING_STATUSES = ['queued', 'printing', 'paused'] as const;

/** A stored (not pruned) file with what pruning weighs: its jobs still holding it and when its last job ended. */
export interface PruneRow {
  id: string;
  sha256: string;
  original_name: string;
  size: number;
  thumbnail_type: FileRow['thumbnail_type'];
  thumbnail_size: number | null;
  created_at: string;
  last_used_at: string | null;
  active_jobs: number;
  last_job_at: string | null;
}

export async function pruneRows(db: Db): Promise<PruneRow[]> {
  const rows = await db
    .selectFrom('files')
    .select(['id', 'sha256', 'original_name', 'size', 'thumbnail_type', 'thumbnail_size', 'created_at', 'last_used_at'])
    .select((eb) => [
      eb
        .selectFrom('jobs')
        .select((j) => j.fn.countAll<number>().as('n'))
        .whereRef('jobs.file_id', '=', 'files.id')
        .where('jobs.status', 'in', FILE_HOLDING_STATUSES)
        .as('active_jobs'),
      eb
        .selectFrom('jobs')
        .select((j) => j.fn.max(j.fn.coalesce('jobs.completed_at', 'jobs.updated_at')).as('t'))
        .whereRef('jobs.file_id', '=', 'files.id')
        .as('last_job_at'),
    ])
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map((r) => ({ ...r, active_jobs: Number(r.active_jobs ?? 0), last_job_at: (r.last_job_at as string | null) ?? null }));
}

/**
 * Marks a file pruned, only if it is still as the pass saw it: not pruned, not used again since (`seenLastUsedAt`), and
 * no queued, printing or paused job names it. Returns whether it was marked.
 */
export async function markFilePruned(db: Db, id: string, seenLastUsedAt: string | null, nowIso: string): Promise<boolean> {
  const res = await db
    .updateTable('files')
    .set({ deleted_at: nowIso })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .where('last_used_at', seenLastUsedAt === null ? 'is' : '=', seenLastUsedAt)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom('jobs').select('jobs.id').whereRef('jobs.file_id', '=', 'files.id').where('jobs.status', 'in', FILE_HOLDING_STATUSES),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * An upload of this content again: it counts as a use, and a pruned file is stored again. With `onlyIfStored`, only
 * while the file is not marked pruned (false when a pruning pass got there first).
 */
export async function markFileUsed(db: Db, id: string, nowIso: string, onlyIfStored = false): Promise<boolean> {
  let update = db.updateTable('files').set({ last_used_at: nowIso, deleted_at: null }).where('id', '=', id);
  if (onlyIfStored) update = update.where('deleted_at', 'is', null);
  return Number((await update.executeTakeFirst()).numUpdatedRows) === 1;
}

/** The organization's pruning policy; before there is an organization nothing is pruned. */
export async function prunePolicyOf(db: Db): Promise<{ file_retention_days: number | null; file_store_max_gb: number | null }> {
  const row = await db.selectFrom('organization').select(['file_retention_days', 'file_store_max_gb']).orderBy('created_at').limit(1).executeTakeFirst();
  return row ?? { file_retention_days: null, file_store_max_gb: null };
}
