// Reference (frozen copy of the direct computation before the roll-ups, for the equivalence test): SQL of the job, printer and material reports: counts, durations, failure reasons and filament breakdowns per period.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../src/storage/schema.js';
import {
  boundaryTerms,
  filamentCostOf,
  FINAL_STATES,
  interiorByStart,
  jobsOf,
  jobsScope,
  unionOfTerms,
  type AnalyticsFilter,
  type FinishedCounts,
} from './analytics.repository.js';
import { overlapPages, type Window } from './period-pages.js';

type Q = Kysely<Database>;

/** Jobs that reached a final state inside the period [from, to). */
const finished = (db: Q, f: AnalyticsFilter) =>
  jobsOf(db, f).where('j.completed_at', '>=', f.from).where('j.completed_at', '<', f.to).where('j.status', 'in', FINAL_STATES);

export interface FailureReason {
  code: string;
  count: number;
}

export async function failureReasons(db: Q, f: AnalyticsFilter): Promise<FailureReason[]> {
  const rows = await finished(db, f)
    .where('j.status', '=', 'failed')
    .select([sql<string>`COALESCE(j.error_code, 'unknown')`.as('code'), sql<number>`COUNT(*)`.as('n')])
    .groupBy(sql`COALESCE(j.error_code, 'unknown')`)
    .orderBy(sql`COUNT(*)`, 'desc')
    .orderBy(sql`COALESCE(j.error_code, 'unknown')`)
    .execute();
  return rows.map((r) => ({ code: r.code, count: Number(r.n) }));
}

export interface CompletedTotals {
  count: number;
  seconds: number;
  min_seconds: number | null;
  max_seconds: number | null;
  watt_seconds: number;
  filament_cost: number;
}

/** Completed jobs that ended inside the period: how long they printed, and what their filament cost. */
export async function completedTotals(db: Q, f: AnalyticsFilter): Promise<CompletedTotals> {
  const r = await jobsScope(db, f)
    .where('j.completed_at', '>=', f.from)
    .where('j.completed_at', '<', f.to)
    .where('j.status', '=', 'completed')
    .select([
      sql<number>`COUNT(*)`.as('count'),
      sql<number>`COALESCE(SUM(j.elapsed_time), 0)`.as('seconds'),
      sql<number | null>`MIN(j.elapsed_time)`.as('min_seconds'),
      sql<number | null>`MAX(j.elapsed_time)`.as('max_seconds'),
      sql<number>`COALESCE(SUM(j.elapsed_time * COALESCE(p.power_watts, 0)), 0)`.as('watt_seconds'),
      sql<number>`COALESCE(SUM(${filamentCostOf}), 0)`.as('filament_cost'),
    ])
    .executeTakeFirstOrThrow();
  const n = (v: number | null): number | null => (v === null ? null : Number(v));
  return {
    count: Number(r.count),
    seconds: Number(r.seconds),
    min_seconds: n(r.min_seconds),
    max_seconds: n(r.max_seconds),
    watt_seconds: Number(r.watt_seconds),
    filament_cost: Number(r.filament_cost),
  };
}

/** Jobs created inside the period, and jobs waiting or running now (a snapshot, not bound to the period). */
export async function createdCount(db: Q, f: AnalyticsFilter): Promise<number> {
  const r = await jobsOf(db, f)
    .where('j.created_at', '>=', f.from)
    .where('j.created_at', '<', f.to)
    .select(sql<number>`COUNT(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function currentCounts(db: Q, f: AnalyticsFilter): Promise<Record<'queued' | 'printing' | 'paused', number>> {
  const rows = await jobsOf(db, f)
    .where('j.status', 'in', ['queued', 'printing', 'paused'])
    .select(['j.status', sql<number>`COUNT(*)`.as('n')])
    .groupBy('j.status')
    .execute();
  const out = { queued: 0, printing: 0, paused: 0 };
  for (const r of rows) out[r.status as keyof typeof out] = Number(r.n);
  return out;
}

export interface OverlapRow {
  /** Which overlap term found the job: 0 = it started inside the period (its queue wait counts), 1 and 2 = before it. */
  term: number;
  status: string;
  created_at: string;
  started_at: string;
  completed_at: string | null;
  elapsed_time: number;
}

/** Every job overlapping the period with its timing, page by page (time series cut them into buckets). */
export function overlappingJobPages(db: Q, f: AnalyticsFilter): AsyncGenerator<OverlapRow[]> {
  return overlapPages(db, f, (term, i) =>
    jobsOf(db, f)
      .where(term)
      .select([sql<number>`${sql.lit(i)}`.as('term'), 'j.status', 'j.created_at', sql<string>`j.started_at`.as('started_at'), 'j.completed_at', 'j.elapsed_time']),
  );
}

/**
 * Buckets as a table b(column1 = index, column2 = start, column3 = end, column4 = the bucket's own end): a VALUES
 * list (portable; SQLite and PostgreSQL both name its columns column1..4), so bucket bounds computed in TypeScript
 * meet the rows in SQL. `window` clips start and end to a page of started_at (column4 stays the bucket's end).
 */
function bucketTable(bounds: readonly string[], window?: Window) {
  const rows = bounds.slice(0, -1).flatMap((start, i) => {
    const end = bounds[i + 1]!;
    const lo = window && window.from > start ? window.from : start;
    const hi = window && window.to < end ? window.to : end;
    return lo < hi ? [sql`(${sql.lit(i)}, ${lo}, ${hi}, ${end})`] : [];
  });
  return sql<{ column1: number; column2: string; column3: string; column4: string }>`(VALUES ${sql.join(rows)})`.as('b');
}

/**
 * Jobs that reached a final state in each bucket [bounds[i], bounds[i + 1]), by state. The buckets are a VALUES list
 * (ISO instants computed in TypeScript, compared as text like every period bound), each count one range of jobs_finished.
 */
export async function finishedPerBucket(db: Q, f: AnalyticsFilter, bounds: readonly string[]): Promise<FinishedCounts[]> {
  if (bounds.length < 2) return [];
  const count = (status: keyof FinishedCounts) =>
    jobsOf(db, f)
      .where('j.status', '=', status)
      .where(sql<boolean>`(j.completed_at >= b.column2 AND j.completed_at < b.column3)`)
      .select(sql<number>`COUNT(*)`.as('n'))
      .as(status);
  const rows = await db
    .selectFrom(bucketTable(bounds))
    .select([sql<number>`b.column1`.as('i'), count('completed'), count('failed'), count('cancelled')])
    .execute();
  const out = bounds.slice(0, -1).map(() => ({ completed: 0, failed: 0, cancelled: 0 }));
  for (const r of rows) out[Number(r.i)] = { completed: Number(r.completed), failed: Number(r.failed), cancelled: Number(r.cancelled) };
  return out;
}

export interface UsageLine {
  type: string | null;
  color: string | null;
  material_id: string | null;
  brand: string | null;
  grams: number;
  cost: number;
}

export interface BoundaryUsageLine extends UsageLine {
  status: string;
  started_at: string;
  completed_at: string | null;
  elapsed_time: number;
}

/**
 * Filament lines of jobs: a job's per-tool usage rows, or for a job without any, one line from its own totals
 * (material_type/color, material_used_g, cost). LEFT JOIN keeps it one indexed pass over the jobs of the period.
 */
function lines(db: Q, f: AnalyticsFilter & { type?: string }) {
  let q = jobsOf(db, f)
    .leftJoin('job_material_usage as u', 'u.job_id', 'j.id')
    .where((eb) => eb.or([eb('u.job_id', 'is not', null), eb('j.material_used_g', 'is not', null)]));
  if (f.type !== undefined) q = q.where(sql`COALESCE(u.type, j.material_type)`, '=', f.type);
  return q;
}

/** The lines with their spool (for the brand): only where lines are grouped by spool, a lookup per line otherwise. */
const usageLines = (db: Q, f: AnalyticsFilter & { type?: string }) => lines(db, f).leftJoin('materials as m', 'm.id', 'u.material_id');

const lineType = sql<string | null>`COALESCE(u.type, j.material_type)`;
const lineColor = sql<string | null>`CASE WHEN u.job_id IS NULL THEN j.material_color ELSE u.color END`;
const lineGrams = sql<number>`CASE WHEN u.job_id IS NULL THEN j.material_used_g ELSE u.grams END`;
const lineCost = sql<number>`COALESCE(CASE WHEN u.job_id IS NULL THEN j.cost ELSE u.cost END, 0)`;

/** Grams and cost by type, colour and spool over jobs wholly inside the period (aggregated in SQL). */
export async function interiorUsage(db: Q, f: AnalyticsFilter & { type?: string }): Promise<UsageLine[]> {
  const rows = await usageLines(db, f)
    .where(interiorByStart(f))
    .select([
      lineType.as('type'),
      lineColor.as('color'),
      'u.material_id',
      'm.brand',
      sql<number>`SUM(${lineGrams})`.as('grams'),
      sql<number>`SUM(${lineCost})`.as('cost'),
    ])
    .groupBy([lineType, lineColor, 'u.material_id', 'm.brand'])
    .execute();
  return rows.map((r) => ({ ...r, grams: Number(r.grams), cost: Number(r.cost) }));
}

/** Filament lines of the jobs straddling the period's edges (few), with their timing so the caller can cut them. */
export function boundaryUsage(db: Q, f: AnalyticsFilter & { type?: string }): AsyncIterable<BoundaryUsageLine> {
  const q = unionOfTerms(boundaryTerms(f), (term) =>
    usageLines(db, f)
      .where(term)
      .select([
        lineType.as('type'),
        lineColor.as('color'),
        'u.material_id',
        'm.brand',
        lineGrams.as('grams'),
        lineCost.as('cost'),
        'j.status',
        sql<string>`j.started_at`.as('started_at'),
        'j.completed_at',
        'j.elapsed_time',
      ]),
  );
  // One execute (no cursor: PostgreSQL has none without pg-cursor), handed out row by row as before.
  return (async function* () {
    yield* (await q.execute()) as BoundaryUsageLine[];
  })();
}

export interface SeriesLine {
  grams: number;
  cost: number;
  status: string;
  started_at: string;
  completed_at: string | null;
  elapsed_time: number;
}

// A job that starts and ends inside one bucket [start, end) of a series puts its whole filament into that bucket
// (share 1, nothing elsewhere: jobOverlap), so those lines are summed per bucket in SQL; only the lines of jobs
// crossing a bucket edge, still running, or stamped oddly (completed before started) go to TypeScript to be cut.
// "Inside" is text comparison only: started in [start, end), completed at or after started and at or before end.
const insideBucket = sql<boolean>`(j.completed_at >= j.started_at AND j.completed_at <= b.column4)`;
const startedInBucket = sql<boolean>`(j.started_at >= b.column2 AND j.started_at < b.column3)`;

/** Grams and cost per bucket of the filament lines of jobs lying inside one bucket (bounds as in finishedPerBucket). */
export async function usagePerBucket(db: Q, f: AnalyticsFilter & { type?: string }, bounds: readonly string[]): Promise<{ grams: number; cost: number }[]> {
  const out = bounds.slice(0, -1).map(() => ({ grams: 0, cost: 0 }));
  if (bounds.length < 2) return out;
  const rows = await lines(db, f)
    .innerJoin(bucketTable(bounds), (join) => join.on(startedInBucket))
    .where(insideBucket)
    .select([sql<number>`b.column1`.as('i'), sql<number>`SUM(${lineGrams})`.as('grams'), sql<number>`SUM(${lineCost})`.as('cost')])
    .groupBy(sql`b.column1`)
    .execute();
  for (const r of rows) out[Number(r.i)] = { grams: Number(r.grams), cost: Number(r.cost) };
  return out;
}

/**
 * The other filament lines of the jobs overlapping the period (see usagePerBucket), with their timing, page by page:
 * those of jobs that started in the period but not inside one bucket, and all of those that started before it. The
 * buckets of the page drive the join (no range on jobs but theirs), so each bucket reads its own jobs once.
 */
export function crossingUsagePages(db: Q, f: AnalyticsFilter & { type?: string }, bounds: readonly string[]): AsyncGenerator<SeriesLine[]> {
  const columns = [lineGrams.as('grams'), lineCost.as('cost'), 'j.status', sql<string>`j.started_at`.as('started_at'), 'j.completed_at', 'j.elapsed_time'] as const;
  return overlapPages(db, f, (term, i, window) =>
    window
      ? lines(db, f)
          .innerJoin(bucketTable(bounds, window), (join) => join.on(startedInBucket))
          .where((eb) => eb.or([eb('j.completed_at', 'is', null), eb.not(insideBucket)]))
          .select(columns)
      : lines(db, f).where(term).select(columns),
  );
}
