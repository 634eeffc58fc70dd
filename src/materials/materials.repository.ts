// The materials and job_material_usage tables: spool rows, loading on a printer tool, and what each job drew per tool.
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Database, JobMaterialUsageTable, MaterialTable } from '../storage/schema.js';

export type MaterialRow = Selectable<MaterialTable>;
export type UsageRow = Selectable<JobMaterialUsageTable>;
type Q = Kysely<Database>;

export const selectMaterials = (db: Q) => db.selectFrom('materials').selectAll();

export async function insertMaterial(db: Q, row: Insertable<MaterialTable>): Promise<void> {
  await db.insertInto('materials').values(row).execute();
}

export async function findMaterial(db: Q, id: string): Promise<MaterialRow | undefined> {
  return db.selectFrom('materials').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateMaterial(db: Q, id: string, patch: Updateable<MaterialTable>): Promise<void> {
  await db.updateTable('materials').set(patch).where('id', '=', id).execute();
}

/** Takes whatever spool sits on this printer tool off it (except `keepId`): one spool per tool. */
export async function unloadTool(db: Q, printerId: string, tool: number, keepId: string, nowIso: string): Promise<void> {
  await db
    .updateTable('materials')
    .set({ printer_id: null, updated_at: nowIso })
    .where('printer_id', '=', printerId)
    .where('tool', '=', tool)
    .where('id', '!=', keepId)
    .execute();
}

/** Every spool loaded on a printer (all printers when none given), by printer and tool. */
export async function loadedMaterials(db: Q, printerId?: string): Promise<MaterialRow[]> {
  let q = db.selectFrom('materials').selectAll().where('printer_id', 'is not', null);
  if (printerId !== undefined) q = q.where('printer_id', '=', printerId);
  return q.orderBy('printer_id').orderBy('tool').execute();
}

export async function usageOfJob(db: Q, jobId: string): Promise<UsageRow[]> {
  return db.selectFrom('job_material_usage').selectAll().where('job_id', '=', jobId).orderBy('tool').execute();
}

/** Writes a tool's usage row of a job (grams so far, or final with cost). */
export async function upsertUsage(db: Q, row: Insertable<JobMaterialUsageTable>): Promise<void> {
  await db
    .insertInto('job_material_usage')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['job_id', 'tool']).doUpdateSet({ grams: row.grams, cost: row.cost ?? null, material_id: row.material_id ?? null, type: row.type ?? null, color: row.color ?? null }),
    )
    .execute();
}

/**
 * The usage lines of one spool joined with their jobs, as a plain select for runListQuery: `at` is when the job ended
 * (or started, while it still prints), `usage_key` the unique job/tool pair for ties.
 */
export function selectSpoolUsage(db: Q, materialId: string) {
  const lines = db
    .selectFrom('job_material_usage as u')
    .innerJoin('jobs as j', 'j.id', 'u.job_id')
    .where('u.material_id', '=', materialId)
    .select([
      'u.job_id',
      'j.name as job_name',
      'j.status as job_status',
      'j.printer_id',
      'u.tool',
      'u.grams',
      'u.cost',
      sql<string>`coalesce(j.completed_at, j.started_at, j.created_at)`.as('at'),
      sql<string>`u.job_id || '/' || u.tool`.as('usage_key'),
    ]);
  return db.selectFrom(lines.as('usage')).selectAll();
}
