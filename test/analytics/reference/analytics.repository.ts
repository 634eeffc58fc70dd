// Reference (frozen copy of the direct computation before the roll-ups, for the equivalence test): SQL of the analytics: aggregates run in the database (portable SQL: no date functions, ISO text timestamps compare as text).
import { sql, type Expression, type ExpressionBuilder, type Kysely, type QueryCreator, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../../src/storage/schema.js';

type Q = Kysely<Database>;
export type JobsFrom = Database & { j: Database['jobs']; p: Database['printers'] };
type JobsOnly = Database & { j: Database['jobs'] };

/** Which jobs a report covers: the period as ISO instants [from, to), and optional equality filters. */
export interface AnalyticsFilter {
  from: string;
  to: string;
  group?: string;
  printerId?: string;
}

/** A condition on `j` (written for any query that has jobs as j). */
export type Term = (eb: ExpressionBuilder<any, any>) => Expression<SqlBool>;

// jobs.usage_grams / usage_cost are SUM(grams) / SUM(cost) of the job's job_material_usage rows, kept by triggers
// (migration 009; no application code writes them, so they are not in the kysely JobTable type). Reading them gives
// the figures a subquery into job_material_usage per job gave, without a lookup per job.
/** Grams a job used: its per-tool usage rows, else the job's own total (older rows, single-tool bookkeeping). */
export const gramsOf = sql<number>`COALESCE(j.usage_grams, j.material_used_g, 0)`;
/** Filament cost of a job: its usage rows' cost, else the job's recorded cost. */
export const filamentCostOf = sql<number>`COALESCE(j.usage_cost, j.cost, 0)`;

/** The group / printer filters on `j` alone: a group is "the job's printer is one of the group's printers". */
function narrowed<DB extends JobsOnly, TB extends keyof DB & 'j', O>(db: Q, q: SelectQueryBuilder<DB, TB, O>, f: Pick<AnalyticsFilter, 'group' | 'printerId'>) {
  let out = q as unknown as SelectQueryBuilder<JobsOnly, 'j', O>;
  if (f.group !== undefined) out = out.where('j.printer_id', 'in', db.selectFrom('printers').select('id').where('group_name', '=', f.group));
  if (f.printerId !== undefined) out = out.where('j.printer_id', '=', f.printerId);
  return out as unknown as SelectQueryBuilder<DB, TB, O>;
}

/** jobs j narrowed by group and printer, without the printers table (no printer lookup per job). */
export function jobsOf(db: Q, f: AnalyticsFilter): SelectQueryBuilder<JobsOnly, 'j', {}> {
  return narrowed(db, db.selectFrom('jobs as j'), f);
}

/** jobs j LEFT JOIN printers p (for printer columns), narrowed by group and printer. A job keeps counting after its printer was deleted (no group). */
export function jobsScope(db: Q, f: AnalyticsFilter): SelectQueryBuilder<JobsFrom, 'j' | 'p', {}> {
  const q = db.selectFrom('jobs as j').leftJoin('printers as p', 'p.id', 'j.printer_id') as unknown as SelectQueryBuilder<JobsFrom, 'j' | 'p', {}>;
  return narrowed(db, q, f);
}

/**
 * The printer ids a report covers, as a CTE `ids(id)` for queries the printers drive: the group's printers, the one
 * printer asked for (if any job names it, so a deleted one still counts), or else every distinct printer id of the
 * jobs, deleted printers included. That last one walks the index one seek per printer (WITH RECURSIVE taking the next
 * larger id), instead of reading every job. Jobs without a printer are not in it: callers add them where they count.
 */
export function withScopeIds(db: Q, f: AnalyticsFilter): QueryCreator<Database & { ids: { id: string | null } }> {
  if (f.group !== undefined) {
    return db.with('ids', (qb) => {
      let q = qb.selectFrom('printers').select(sql<string | null>`id`.as('id')).where('group_name', '=', f.group!);
      if (f.printerId !== undefined) q = q.where('id', '=', f.printerId);
      return q;
    });
  }
  if (f.printerId !== undefined) {
    return db.with('ids', (qb) => qb.selectFrom('jobs').select(sql<string | null>`printer_id`.as('id')).where('printer_id', '=', f.printerId!).limit(1));
  }
  return db.withRecursive('ids(id)', (qb) =>
    qb
      .selectNoFrom(sql<string | null>`(SELECT MIN(printer_id) FROM jobs)`.as('id'))
      .unionAll((u) =>
        u
          .selectFrom('ids')
          .select(sql<string | null>`(SELECT MIN(j.printer_id) FROM jobs j WHERE j.printer_id > ids.id)`.as('id'))
          .where('ids.id', 'is not', null),
      ),
  );
}

/** Jobs that printed in the period and lie wholly inside it: their printing time is elapsed_time exactly. */
export const interior =
  (f: AnalyticsFilter): Term =>
  (eb) =>
    eb.and([eb('j.started_at', '>=', f.from), eb('j.completed_at', 'is not', null), eb('j.completed_at', '<=', f.to)]);

/**
 * The same jobs for a query that reads jobs by time: `|| ''` keeps the planner on started_at. A period usually ends
 * now, so "completed_at <= to" is most of the history while "started_at >= from" is the period; an expression is
 * not an index range, and for text it is the same value (same rows, same result).
 */
export const interiorByStart =
  (f: AnalyticsFilter): Term =>
  (eb) =>
    eb.and([eb('j.started_at', '>=', f.from), eb('j.completed_at', 'is not', null), eb(sql`j.completed_at || ''`, '<=', f.to)]);

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

/**
 * Sums over jobs wholly inside the period, in one pass the printers drive: for each printer id its watts once, then
 * its jobs as one range of jobs_printer_started (covering: no row lookups, no printer lookup per job). Jobs without a
 * printer are summed beside it when no filter excludes them; a deleted or unrated printer adds no energy.
 */
export async function interiorTotals(db: Q, f: AnalyticsFilter): Promise<InteriorTotals> {
  const sums = [
    sql<number>`COUNT(*)`.as('jobs'),
    sql<number>`COALESCE(SUM(j.elapsed_time), 0)`.as('seconds'),
    sql<number>`COALESCE(SUM(${gramsOf}), 0)`.as('grams'),
    sql<number>`COALESCE(SUM(${filamentCostOf}), 0)`.as('filament_cost'),
  ] as const;
  const byPrinter = withScopeIds(db, f)
    .selectFrom('ids')
    // printers before jobs: SQLite joins in this order, so each printer row is read once, not once per job
    .leftJoin('printers as p', 'p.id', 'ids.id')
    .innerJoin('jobs as j', 'j.printer_id', 'ids.id')
    .where(interior(f))
    .select([...sums, sql<number>`COALESCE(SUM(j.elapsed_time * p.power_watts), 0)`.as('watt_seconds')]);
  const q =
    f.group === undefined && f.printerId === undefined
      ? byPrinter.unionAll(jobsOf(db, f).where('j.printer_id', 'is', null).where(interior(f)).select([...sums, sql<number>`0`.as('watt_seconds')]))
      : byPrinter;
  const out: InteriorTotals = { jobs: 0, seconds: 0, watt_seconds: 0, grams: 0, filament_cost: 0 };
  for (const r of await q.execute()) {
    out.jobs += Number(r.jobs);
    out.seconds += Number(r.seconds);
    out.watt_seconds += Number(r.watt_seconds);
    out.grams += Number(r.grams);
    out.filament_cost += Number(r.filament_cost);
  }
  return out;
}

/**
 * The period's overlap with a job (started before its end, not finished before its start) as three disjoint terms,
 * each one index range: started inside it (jobs_started_cover), started before it and finished after its start, or
 * started before it and still running (both jobs_completed_started). Queries run one select per term, joined by UNION
 * ALL (or page the first, period-pages.ts), so each term reads its own range: an OR would collect row ids and look
 * every row up.
 */
export const overlapTerms = (f: AnalyticsFilter): [Term, Term, Term] => [
  (eb) => eb.and([eb('j.started_at', '>=', f.from), eb('j.started_at', '<', f.to)]),
  (eb) => eb.and([eb('j.completed_at', '>', f.from), eb('j.started_at', '<', f.from)]),
  (eb) => eb.and([eb('j.completed_at', 'is', null), eb('j.started_at', '<', f.from)]),
];

/**
 * Overlapping jobs that do not lie wholly inside the period, as three disjoint terms: still running (started before
 * the period's end), started before it and finished after its start, or started in it and finished after its end.
 * Few by nature (at most a handful per printer), so they are read and cut in TypeScript.
 */
export const boundaryTerms = (f: AnalyticsFilter): [Term, Term, Term] => [
  (eb) => eb.and([eb('j.completed_at', 'is', null), eb('j.started_at', '<', f.to)]),
  overlapTerms(f)[1],
  (eb) => eb.and([eb('j.completed_at', '>', f.to), eb('j.started_at', '>=', f.from), eb('j.started_at', '<', f.to)]),
];

/** One select per term, joined by UNION ALL (the terms are disjoint, so no row comes twice). */
export function unionOfTerms<T, S extends { unionAll(other: S): S }>(terms: readonly T[], select: (term: T) => S): S {
  return terms.map(select).reduce((acc, q) => acc.unionAll(q));
}

export interface BoundaryJob {
  printer_id: string | null;
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
// Streams are kept for the few rows at the period's edges: kysely's stream costs about a microsecond a row, so the
// many rows of a whole period are read in pages (period-pages.ts).

/** The jobs straddling the period's edges or still running, with their printer, timing, power and filament. */
export function boundaryJobs(db: Q, f: AnalyticsFilter): AsyncIterable<BoundaryJob> {
  const q = unionOfTerms(boundaryTerms(f), (term) =>
    jobsScope(db, f)
      .where(term)
      .select(['j.printer_id', 'j.status', 'j.started_at', 'j.completed_at', 'j.elapsed_time', 'p.power_watts', gramsOf.as('grams'), filamentCostOf.as('filament_cost')]),
  );
  // One execute (no cursor: PostgreSQL has none without pg-cursor), handed out row by row as before.
  return (async function* () {
    yield* (await q.execute()) as BoundaryJob[];
  })();
}

/** Printer ids (deleted printers included unless a group narrows) with a job that started inside the period: one probe each. */
export async function printersStartingIn(db: Q, f: AnalyticsFilter): Promise<string[]> {
  const rows = await withScopeIds(db, f)
    .selectFrom('ids')
    .select('ids.id')
    .where('ids.id', 'is not', null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('jobs as j')
          .select(sql`1`.as('one'))
          .whereRef('j.printer_id', '=', 'ids.id')
          .where('j.started_at', '>=', f.from)
          .where('j.started_at', '<', f.to),
      ),
    )
    .execute();
  return rows.map((r) => r.id as string);
}

export interface FinishedCounts {
  completed: number;
  failed: number;
  cancelled: number;
}

export const FINAL_STATES = ['completed', 'failed', 'cancelled'] as const;

/** Jobs that reached a final state inside the period, by state (index jobs_finished: one range per state, no sort). */
export async function finishedCounts(db: Q, f: AnalyticsFilter): Promise<FinishedCounts> {
  const rows = await jobsOf(db, f)
    .where('j.status', 'in', FINAL_STATES)
    .where('j.completed_at', '>=', f.from)
    .where('j.completed_at', '<', f.to)
    .select(['j.status', sql<number>`COUNT(*)`.as('n')])
    .groupBy('j.status')
    .execute();
  const out: FinishedCounts = { completed: 0, failed: 0, cancelled: 0 };
  for (const r of rows) out[r.status as keyof FinishedCounts] = Number(r.n);
  return out;
}
