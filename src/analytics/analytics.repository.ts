// SQL of the analytics: aggregates run in the database (portable SQL: no date functions, ISO text timestamps compare as text).
import { sql, type ExpressionBuilder, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../storage/schema.js';

type Q = Kysely<Database>;
export type JobsFrom = Database & { j: Database['jobs']; p: Database['printers'] };

/** Which jobs a report covers: the period as ISO instants [from, to), and optional equality filters. */
export interface AnalyticsFilter {
  from: string;
  to: string;
  group?: string;
  printerId?: string;
}

/** Grams a job used: its per-tool usage rows, else the job's own total (older rows, single-tool bookkeeping). */
export const gramsOf = sql<number>`COALESCE((SELECT SUM(u.grams) FROM job_material_usage u WHERE u.job_id = j.id), j.material_used_g, 0)`;
/** Filament cost of a job: its usage rows' cost, else the job's recorded cost. */
export const filamentCostOf = sql<number>`COALESCE((SELECT SUM(u.cost) FROM job_material_usage u WHERE u.job_id = j.id), j.cost, 0)`;

/** jobs j LEFT JOIN printers p, narrowed by group and printer. A job keeps counting after its printer was deleted (no group). */
export function jobsScope(db: Q, f: AnalyticsFilter): SelectQueryBuilder<JobsFrom, 'j' | 'p', {}> {
  let q = db.selectFrom('jobs as j').leftJoin('printers as p', 'p.id', 'j.printer_id') as unknown as SelectQueryBuilder<JobsFrom, 'j' | 'p', {}>;
  if (f.group !== undefined) q = q.where('p.group_name', '=', f.group);
  if (f.printerId !== undefined) q = q.where('j.printer_id', '=', f.printerId);
  return q;
}

/** Jobs that printed in the period and lie wholly inside it: their printing time is elapsed_time exactly. */
export const interior = (f: AnalyticsFilter) => (eb: ExpressionBuilder<JobsFrom, 'j' | 'p'>) =>
  eb.and([eb('j.started_at', '>=', f.from), eb('j.completed_at', 'is not', null), eb('j.completed_at', '<=', f.to)]);

export interface PrinterPower {
  id: string;
  power_watts: number | null;
}

export async function printersInScope(db: Q, f: Pick<AnalyticsFilter, 'group' | 'printerId'>): Promise<PrinterPower[]> {
  let q = db.selectFrom('printers').select(['id', 'power_watts']);
  if (f.group !== undefined) q = q.where('group_name', '=', f.group);
  if (f.printerId !== undefined) q = q.where('id', '=', f.printerId);
  return q.execute();
}

export interface InteriorTotals {
  jobs: number;
  seconds: number;
  /** Sum of elapsed seconds × printer watts: energy in watt-seconds. */
  watt_seconds: number;
  grams: number;
  filament_cost: number;
}

/** Sums over jobs wholly inside the period, in one pass of the database. */
export async function interiorTotals(db: Q, f: AnalyticsFilter): Promise<InteriorTotals> {
  const row = await jobsScope(db, f)
    .where(interior(f))
    .select([
      sql<number>`COUNT(*)`.as('jobs'),
      sql<number>`COALESCE(SUM(j.elapsed_time), 0)`.as('seconds'),
      sql<number>`COALESCE(SUM(j.elapsed_time * COALESCE(p.power_watts, 0)), 0)`.as('watt_seconds'),
      sql<number>`COALESCE(SUM(${gramsOf}), 0)`.as('grams'),
      sql<number>`COALESCE(SUM(${filamentCostOf}), 0)`.as('filament_cost'),
    ])
    .executeTakeFirstOrThrow();
  return {
    jobs: Number(row.jobs),
    seconds: Number(row.seconds),
    watt_seconds: Number(row.watt_seconds),
    grams: Number(row.grams),
    filament_cost: Number(row.filament_cost),
  };
}

export interface BoundaryJob {
  id: string;
  status: string;
  started_at: string;
  completed_at: string | null;
  elapsed_time: number;
  power_watts: number | null;
  grams: number;
  filament_cost: number;
}

// About .stream() here and in reports.repository: kysely holds the one SQLite connection for the whole iteration, and
// better-sqlite3 refuses other statements while a cursor is open. That is safe only because every consumer of these
// streams folds rows into sums without awaiting anything else (the iteration finishes within one macrotask, so no other
// request or raw deps.sqlite call runs in between). Anything that waits on a client while reading (the export) pages
// with short keyset queries instead (export.repository.ts). On PostgreSQL, .stream() needs the dialect's `cursor`.

/**
 * Jobs that overlap the period without lying wholly inside it: started before it, ended after it, or still running.
 * Few by nature (at most a handful per printer), so they are read and cut in TypeScript.
 */
export function boundaryJobs(db: Q, f: AnalyticsFilter): AsyncIterable<BoundaryJob> {
  return overlapping(db, f)
    .where((eb) => eb.not(interior(f)(eb)))
    .select(['j.id', 'j.status', 'j.started_at', 'j.completed_at', 'j.elapsed_time', 'p.power_watts', gramsOf.as('grams'), filamentCostOf.as('filament_cost')])
    .stream(200) as AsyncIterable<BoundaryJob>;
}

/**
 * Jobs whose printing overlaps the period (started before its end, not finished before its start), written as three
 * disjoint terms each bounded by an index so the database can answer it as a union of index ranges instead of scanning
 * every job that ever started before the period's end: started inside it (jobs_started), started before it and
 * finished after its start (jobs_completed), or started before it and still running (jobs_completed IS NULL).
 */
/** The overlap condition on `j` alone, so queries joining more tables (usage lines) can use it too. */
export const overlapsPeriod = (f: AnalyticsFilter) => (eb: ExpressionBuilder<any, any>) =>
  eb.or([
    eb.and([eb('j.started_at', '>=', f.from), eb('j.started_at', '<', f.to)]),
    eb.and([eb('j.completed_at', '>', f.from), eb('j.started_at', '<', f.from)]),
    eb.and([eb('j.completed_at', 'is', null), eb('j.started_at', '<', f.from)]),
  ]);

export const overlapping = (db: Q, f: AnalyticsFilter) => jobsScope(db, f).where(overlapsPeriod(f));

/** Every job overlapping the period with its timing and filament, streamed (time series cut it into buckets). */
export function overlappingJobs(db: Q, f: AnalyticsFilter): AsyncIterable<BoundaryJob> {
  return overlapping(db, f)
    .select(['j.id', 'j.status', 'j.started_at', 'j.completed_at', 'j.elapsed_time', 'p.power_watts', gramsOf.as('grams'), filamentCostOf.as('filament_cost')])
    .stream(500) as AsyncIterable<BoundaryJob>;
}

/** Printers that printed at some moment of the period. */
export async function activePrinterCount(db: Q, f: AnalyticsFilter): Promise<number> {
  const row = await overlapping(db, f)
    .where('j.printer_id', 'is not', null)
    .select(sql<number>`COUNT(DISTINCT j.printer_id)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface FinishedCounts {
  completed: number;
  failed: number;
  cancelled: number;
}

/** Jobs that reached a final state inside the period, by state. */
export async function finishedCounts(db: Q, f: AnalyticsFilter): Promise<FinishedCounts> {
  const rows = await jobsScope(db, f)
    .where('j.completed_at', '>=', f.from)
    .where('j.completed_at', '<', f.to)
    .where('j.status', 'in', ['completed', 'failed', 'cancelled'])
    .select(['j.status', sql<number>`COUNT(*)`.as('n')])
    .groupBy('j.status')
    .execute();
  const out: FinishedCounts = { completed: 0, failed: 0, cancelled: 0 };
  for (const r of rows) out[r.status as keyof FinishedCounts] = Number(r.n);
  return out;
}
