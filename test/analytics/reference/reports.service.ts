// Reference (frozen copy of the direct computation before the roll-ups, for the equivalence test): The job, printer and material reports: SQL aggregates plus rows (read in pages) cut into the period and into time buckets.
import { badRequest } from '../../../src/errors.js';
import type { Db } from '../../../src/storage/db.js';
import { finishedCounts, type AnalyticsFilter } from './analytics.repository.js';
import { costOf, fleetMetrics, printingTotals, round, successRate, type CostRates } from './fleet-metrics.service.js';
import { jobOverlap } from '../../../src/analytics/job-overlap.js';
import { spanOf } from '../../../src/analytics/job-span.js';
import {
  boundaryUsage,
  completedTotals,
  createdCount,
  crossingUsagePages,
  currentCounts,
  failureReasons,
  finishedPerBucket,
  interiorUsage,
  overlappingJobPages,
  usagePerBucket,
  type UsageLine,
} from './reports.repository.js';
import { bucketRange, type Interval } from '../../../src/analytics/time-buckets.js';
import { TimeSeries } from '../../../src/analytics/time-series.js';

/** More buckets than this is a 400: a wider interval or a shorter period is asked for. */
export const MAX_BUCKETS = 1000;

export interface SeriesSpec {
  interval: Interval;
  tz: string;
}

export interface ReportContext {
  db: Db;
  filter: AnalyticsFilter;
  nowMs: number;
  series: SeriesSpec;
}

function buckets(ctx: ReportContext): number[] {
  const { filter: f, series: s } = ctx;
  const starts = bucketRange(Date.parse(f.from), Date.parse(f.to), s.interval, s.tz, MAX_BUCKETS);
  if (!starts) throw badRequest(`query parameter interval: the period holds more than ${MAX_BUCKETS} ${s.interval} buckets; use a wider interval or a shorter period`);
  return starts;
}

const newSeries = <K extends string>(ctx: ReportContext, starts: number[], keys: readonly K[]) =>
  new TimeSeries(starts, Date.parse(ctx.filter.from), Date.parse(ctx.filter.to), ctx.series.interval, ctx.series.tz, keys);

/**
 * The job series (final states per bucket, counted in SQL; printing time per bucket, jobs cut in TypeScript) and the
 * queue wait of the jobs that started in the period, both from one pass over the jobs overlapping it: those that
 * started inside it are the overlap's first term.
 */
async function jobSeriesAndWait(ctx: ReportContext, starts: number[]) {
  const series = newSeries(ctx, starts, ['completed', 'failed', 'cancelled', 'print_time'] as const);
  const bounds = series.bounds().map((ms) => new Date(ms).toISOString());
  (await finishedPerBucket(ctx.db, ctx.filter, bounds)).forEach((counts, i) => {
    for (const state of ['completed', 'failed', 'cancelled'] as const) series.addAt(i, state, counts[state]);
  });
  let n = 0;
  let sum = 0;
  let max = 0;
  for await (const page of overlappingJobPages(ctx.db, ctx.filter)) {
    for (const j of page) {
      const span = spanOf(j);
      series.addSpan(span, ctx.nowMs, 'print_time');
      if (j.term !== 0) continue;
      const wait = Math.max(0, (span.startedMs - Date.parse(j.created_at)) / 1000);
      n++;
      sum += wait;
      max = Math.max(max, wait);
    }
  }
  const wait = { jobs: n, average: n === 0 ? null : round(sum / n, 1), max: n === 0 ? null : round(max, 1) };
  return { series: series.points(0), wait };
}

/** Counts by status, durations, queue wait, failure reasons and a time series of the jobs in scope. */
export async function jobReport(ctx: ReportContext) {
  const { db, filter: f } = ctx;
  const starts = buckets(ctx); // first, so a too-fine interval is a 400 before any query runs
  const [finished, created, current, completed, totals, reasons, { series, wait }] = await Promise.all([
    finishedCounts(db, f),
    createdCount(db, f),
    currentCounts(db, f),
    completedTotals(db, f),
    printingTotals(db, f, ctx.nowMs),
    failureReasons(db, f),
    jobSeriesAndWait(ctx, starts),
  ]);
  return {
    period: { from: f.from, to: f.to },
    counts: { created, ...finished, ...current },
    success_rate: successRate(finished),
    durations: {
      completed_jobs: completed.count,
      average: completed.count === 0 ? null : round(completed.seconds / completed.count, 1),
      min: completed.min_seconds,
      max: completed.max_seconds,
      total_print_time: Math.round(totals.seconds),
    },
    queue_wait: wait,
    failure_reasons: reasons,
    interval: ctx.series.interval,
    timezone: ctx.series.tz,
    series,
  };
}

/** The fleet metrics of one printer beside its job report. */
export async function printerReport(ctx: ReportContext, rates: CostRates, printer: { id: string; name: string; group_name: string | null }) {
  const [metrics, jobs] = await Promise.all([fleetMetrics(ctx.db, ctx.filter, rates, ctx.nowMs), jobReport(ctx)]);
  const { total_printers: _t, active_printers: _a, ...own } = metrics;
  return { printer: { id: printer.id, name: printer.name, group: printer.group_name }, ...jobs, metrics: own };
}

interface Breakdown {
  grams: number;
  cost: number;
}

/** Sums lines into groups keyed by `keyOf`, rounding at the end. */
function groupLines<T extends object>(lines: (UsageLine & { share: number })[], keyOf: (l: UsageLine) => T): (T & Breakdown)[] {
  const groups = new Map<string, T & Breakdown>();
  for (const l of lines) {
    const key = keyOf(l);
    const id = JSON.stringify(key);
    const g = groups.get(id) ?? { ...key, grams: 0, cost: 0 };
    g.grams += l.grams * l.share;
    g.cost += l.cost * l.share;
    groups.set(id, g);
  }
  return [...groups.values()]
    .map((g) => ({ ...g, grams: round(g.grams, 2), cost: round(g.cost, 2) }))
    .sort((a, b) => b.grams - a.grams);
}

/** Filament by type, colour and spool (jobs cut to the period), cost per completed part, and grams per bucket. */
export async function materialReport(ctx: ReportContext & { type?: string }, rates: CostRates, currency: string) {
  const f = { ...ctx.filter, type: ctx.type };
  const fromMs = Date.parse(f.from);
  const toMs = Date.parse(f.to);
  const series = newSeries(ctx, buckets(ctx), ['grams', 'cost'] as const);
  const bounds = series.bounds().map((ms) => new Date(ms).toISOString());
  // Interior groups come summed from SQL (share 1); the straddling lines are cut here. Both sets are small.
  const lines: (UsageLine & { share: number })[] = (await interiorUsage(ctx.db, f)).map((l) => ({ ...l, share: 1 }));
  for await (const l of boundaryUsage(ctx.db, f)) {
    lines.push({ ...l, grams: Number(l.grams), cost: Number(l.cost), share: jobOverlap(spanOf(l), fromMs, toMs, ctx.nowMs).share });
  }
  // Grams per bucket: jobs lying inside one bucket summed in SQL, the others cut here.
  (await usagePerBucket(ctx.db, f, bounds)).forEach((sums, i) => {
    series.addAt(i, 'grams', sums.grams);
    series.addAt(i, 'cost', sums.cost);
  });
  for await (const page of crossingUsagePages(ctx.db, f, bounds)) {
    for (const l of page) {
      const span = spanOf(l);
      series.addSpan(span, ctx.nowMs, null, 'grams', Number(l.grams));
      series.addSpan(span, ctx.nowMs, null, 'cost', Number(l.cost));
    }
  }
  const completed = await completedTotals(ctx.db, ctx.filter);
  const partCost = costOf({ seconds: completed.seconds, wattSeconds: completed.watt_seconds, grams: 0, filamentCost: completed.filament_cost }, rates);
  const total = lines.reduce((acc, l) => ({ grams: acc.grams + l.grams * l.share, cost: acc.cost + l.cost * l.share }), { grams: 0, cost: 0 });
  return {
    period: { from: f.from, to: f.to },
    currency,
    totals: { grams: round(total.grams, 2), filament_cost: round(total.cost, 2) },
    by_type: groupLines(lines, (l) => ({ type: l.type })),
    by_color: groupLines(lines, (l) => ({ type: l.type, color: l.color })),
    by_spool: groupLines(lines, (l) => ({ material_id: l.material_id, brand: l.brand, type: l.type, color: l.color })),
    cost_per_part: {
      completed_jobs: completed.count,
      total_cost: round(partCost, 2),
      average: completed.count === 0 ? null : round(partCost / completed.count, 2),
    },
    interval: ctx.series.interval,
    timezone: ctx.series.tz,
    series: series.points(2),
  };
}
