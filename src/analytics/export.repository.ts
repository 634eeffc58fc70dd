// Rows of the analytics export, read in keyset pages: each page is a short query, so a slow client never holds the
// database connection (a streaming cursor would: the shared better-sqlite3 connection is busy while one is open).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { filamentCostOf, gramsOf, jobsScope, type AnalyticsFilter } from './analytics.repository.js';

type Q = Kysely<Database>;

export const EXPORT_PAGE = 500;

/** Keyset cursor: the ordering column's value and id of the last row of the previous page. */
export interface Cursor {
  key: string;
  id: string;
}

export async function jobsPage(db: Q, f: AnalyticsFilter, after: Cursor | null, limit = EXPORT_PAGE) {
  let q = jobsScope(db, f).where('j.created_at', '>=', f.from).where('j.created_at', '<', f.to);
  if (after) q = q.where((eb) => eb.or([eb('j.created_at', '>', after.key), eb.and([eb('j.created_at', '=', after.key), eb('j.id', '>', after.id)])]));
  return q
    .select([
      'j.id',
      'j.name',
      'j.status',
      'j.priority',
      'j.printer_id',
      sql<string | null>`p.name`.as('printer_name'),
      sql<string | null>`p.group_name`.as('printer_group'),
      'j.file_name',
      'j.created_at',
      'j.started_at',
      'j.completed_at',
      'j.elapsed_time',
      'j.material_type',
      'j.material_color',
      'j.material_estimated_usage',
      gramsOf.as('material_used_g'),
      filamentCostOf.as('filament_cost'),
      'p.power_watts',
      'j.error_code',
      'j.error_message',
    ])
    .orderBy('j.created_at')
    .orderBy('j.id')
    .limit(limit)
    .execute();
}

/** Per-tool usage rows of jobs that ended inside the period, ordered by completion then job and tool. */
export async function usagePage(db: Q, f: AnalyticsFilter, after: (Cursor & { tool: number }) | null, limit = EXPORT_PAGE) {
  let q = jobsScope(db, f)
    .innerJoin('job_material_usage as u', 'u.job_id', 'j.id')
    .leftJoin('materials as m', 'm.id', 'u.material_id')
    .where('j.completed_at', '>=', f.from)
    .where('j.completed_at', '<', f.to);
  if (after) {
    q = q.where((eb) =>
      eb.or([
        eb('j.completed_at', '>', after.key),
        eb.and([eb('j.completed_at', '=', after.key), eb('j.id', '>', after.id)]),
        eb.and([eb('j.completed_at', '=', after.key), eb('j.id', '=', after.id), eb('u.tool', '>', after.tool)]),
      ]),
    );
  }
  return q
    .select([
      sql<string>`j.completed_at`.as('completed_at'),
      sql<string>`j.id`.as('job_id'),
      sql<string>`j.name`.as('job_name'),
      'j.status',
      'j.printer_id',
      'u.tool',
      'u.material_id',
      'm.brand',
      'u.type',
      'u.color',
      'u.grams',
      'u.cost',
    ])
    .orderBy('j.completed_at')
    .orderBy('j.id')
    .orderBy('u.tool')
    .limit(limit)
    .execute();
}

export async function printersPage(db: Q, group: string | undefined, after: Cursor | null, limit = EXPORT_PAGE) {
  let q = db.selectFrom('printers').select(['id', 'name', 'group_name', 'model', 'power_watts', 'created_at']);
  if (group !== undefined) q = q.where('group_name', '=', group);
  if (after) q = q.where((eb) => eb.or([eb('created_at', '>', after.key), eb.and([eb('created_at', '=', after.key), eb('id', '>', after.id)])]));
  return q.orderBy('created_at').orderBy('id').limit(limit).execute();
}
