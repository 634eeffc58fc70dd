// SQL of the job, printer and material reports: counts, durations, failure reasons and filament breakdowns per period.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { filamentCostOf, interior, jobsScope, overlapsPeriod, type AnalyticsFilter } from './analytics.repository.js';

type Q = Kysely<Database>;

/** Jobs that reached a final state inside the period [from, to). */
const finished = (db: Q, f: AnalyticsFilter) =>
  jobsScope(db, f).where('j.completed_at', '>=', f.from).where('j.completed_at', '<', f.to).where('j.status', 'in', ['completed', 'failed', 'cancelled']);

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
  const r = await finished(db, f)
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
  const r = await jobsScope(db, f)
    .where('j.created_at', '>=', f.from)
    .where('j.created_at', '<', f.to)
    .select(sql<number>`COUNT(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function currentCounts(db: Q, f: AnalyticsFilter): Promise<Record<'queued' | 'printing' | 'paused', number>> {
  const rows = await jobsScope(db, f)
    .where('j.status', 'in', ['queued', 'printing', 'paused'])
    .select(['j.status', sql<number>`COUNT(*)`.as('n')])
    .groupBy('j.status')
    .execute();
  const out = { queued: 0, printing: 0, paused: 0 };
  for (const r of rows) out[r.status as keyof typeof out] = Number(r.n);
  return out;
}

/** created_at and started_at of jobs that started inside the period, streamed: queue wait is their difference. */
export function startedJobs(db: Q, f: AnalyticsFilter): AsyncIterable<{ created_at: string; started_at: string }> {
  return jobsScope(db, f)
    .where('j.started_at', '>=', f.from)
    .where('j.started_at', '<', f.to)
    .select(['j.created_at', sql<string>`j.started_at`.as('started_at')])
    .stream(500);
}

/** Final state and time of jobs that ended inside the period, streamed into time-series buckets. */
export function finishedJobs(db: Q, f: AnalyticsFilter): AsyncIterable<{ status: string; completed_at: string }> {
  return finished(db, f).select(['j.status', sql<string>`j.completed_at`.as('completed_at')]).stream(500);
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
function usageLines(db: Q, f: AnalyticsFilter & { type?: string }) {
  let q = jobsScope(db, f)
    .leftJoin('job_material_usage as u', 'u.job_id', 'j.id')
    .leftJoin('materials as m', 'm.id', 'u.material_id')
    .where((eb) => eb.or([eb('u.job_id', 'is not', null), eb('j.material_used_g', 'is not', null)]));
  if (f.type !== undefined) q = q.where(sql`COALESCE(u.type, j.material_type)`, '=', f.type);
  return q;
}

const lineType = sql<string | null>`COALESCE(u.type, j.material_type)`;
const lineColor = sql<string | null>`CASE WHEN u.job_id IS NULL THEN j.material_color ELSE u.color END`;
const lineGrams = sql<number>`CASE WHEN u.job_id IS NULL THEN j.material_used_g ELSE u.grams END`;
const lineCost = sql<number>`COALESCE(CASE WHEN u.job_id IS NULL THEN j.cost ELSE u.cost END, 0)`;

/** Grams and cost by type, colour and spool over jobs wholly inside the period (aggregated in SQL). */
export async function interiorUsage(db: Q, f: AnalyticsFilter & { type?: string }): Promise<UsageLine[]> {
  const rows = await usageLines(db, f)
    .where(interior(f))
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

/**
 * Filament lines of jobs overlapping the period with their timing so the caller can cut them: only those straddling
 * its edges (`boundaryOnly`, few: the rest is summed by interiorUsage) or all of them (time series).
 */
export function overlappingUsage(db: Q, f: AnalyticsFilter & { type?: string }, boundaryOnly: boolean): AsyncIterable<BoundaryUsageLine> {
  let q = usageLines(db, f).where(overlapsPeriod(f));
  if (boundaryOnly) q = q.where((eb) => eb.not(interior(f)(eb)));
  return q
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
    ])
    .stream(200) as AsyncIterable<BoundaryUsageLine>;
}

