// The job, printer and material reports: day and hour roll-ups plus rows of the period's edges, cut into the period and into time buckets.
import { badRequest } from '../errors.js';
import type { Db } from '../storage/db.js';
import { backwardTerm, finishedCounts, runningTerm, type AnalyticsFilter } from './analytics.repository.js';
import { costOf, fleetMetrics, printingTotals, round, successRate, type CostRates } from './fleet-metrics.service.js';
import { jobOverlap } from './job-overlap.js';
import { spanOf } from './job-span.js';
import { HOUR_MS, hourKeyMs, splitPeriod } from './period-split.js';
import { completedIn, createdIn, daySums, failuresIn, finishedIn, waitsInPeriod } from './period-totals.service.js';
import {
  boundaryUsage,
  crossingUsagePages,
  currentCounts,
  finishedPerBucket,
  interiorUsage,
  lineTimingsOf,
  overlappingJobPages,
  timingsOf,
  touchingTerms,
  usagePerBucket,
  type UsageLine,
} from './reports.repository.js';
import { dayMaterials, hourMaterials, hourRows } from './rollups.repository.js';
import { bucketRange, type Interval } from './time-buckets.js';
import { TimeSeries } from './time-series.js';

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
 * The whole UTC hours of the period when every bucket edge inside it falls on a whole hour (hour, day, week and month
 * buckets of a zone whose offset is whole hours), so the hour roll-ups can fill the buckets; else null (the series is
 * then cut from the jobs themselves).
 */
function rollupHours(ctx: ReportContext, bounds: number[]) {
  if (bounds.slice(1, -1).some((ms) => ms % HOUR_MS !== 0)) return null;
  const split = splitPeriod(ctx.filter.from, ctx.filter.to, HOUR_MS);
  return split.whole ? { whole: split.whole, edges: split.edges } : null;
}

/** Index of the bucket holding instant `ms` (bounds ascending, clipped to the period). */
function bucketOf(bounds: number[], ms: number): number {
  let lo = 0;
  let hi = bounds.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (bounds[mid]! <= ms) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

type JobSeries = TimeSeries<'completed' | 'failed' | 'cancelled' | 'print_time'>;

/**
 * The job series from the hour roll-ups: whole hours summed into their buckets, the cut hours at the period's edges
 * read from the jobs (final states counted, printing cut to the edge), and the running jobs spread over the buckets.
 */
async function jobSeriesFromRollups(ctx: ReportContext, series: JobSeries, bounds: number[], hours: NonNullable<ReturnType<typeof rollupHours>>): Promise<void> {
  const { db, filter: f, nowMs } = ctx;
  for (const r of await hourRows(db, f, hours.whole)) {
    const i = bucketOf(bounds, hourKeyMs(r.hour));
    series.addAt(i, 'print_time', Number(r.print_seconds));
    series.addAt(i, 'completed', Number(r.completed_n));
    series.addAt(i, 'failed', Number(r.failed_n));
    series.addAt(i, 'cancelled', Number(r.cancelled_n));
  }
  for (const w of hours.edges) {
    const i = bucketOf(bounds, Date.parse(w.from));
    const counts = await finishedCounts(db, { ...f, ...w });
    for (const state of ['completed', 'failed', 'cancelled'] as const) series.addAt(i, state, counts[state]);
    for (const j of await timingsOf(db, f, touchingTerms(w))) series.addAt(i, 'print_time', jobOverlap(spanOf(j), Date.parse(w.from), Date.parse(w.to), nowMs).seconds);
  }
  // Running jobs and those stamped backwards are in no hour roll-up: spread over the buckets as the jobs say.
  for (const j of await timingsOf(db, f, [runningTerm(f), backwardTerm(f)])) series.addSpan(spanOf(j), nowMs, 'print_time');
}

/** The job series cut from the jobs overlapping the period (page by page), for buckets the hour roll-ups do not fit. */
async function jobSeriesFromJobs(ctx: ReportContext, series: JobSeries): Promise<void> {
  const bounds = series.bounds().map((ms) => new Date(ms).toISOString());
  (await finishedPerBucket(ctx.db, ctx.filter, bounds)).forEach((counts, i) => {
    for (const state of ['completed', 'failed', 'cancelled'] as const) series.addAt(i, state, counts[state]);
  });
  for await (const page of overlappingJobPages(ctx.db, ctx.filter)) for (const j of page) series.addSpan(spanOf(j), ctx.nowMs, 'print_time');
}

/** The job series: final states and printing time per bucket. */
async function jobSeries(ctx: ReportContext, starts: number[]) {
  const series = newSeries(ctx, starts, ['completed', 'failed', 'cancelled', 'print_time'] as const);
  const bounds = series.bounds();
  const hours = rollupHours(ctx, bounds);
  if (hours) await jobSeriesFromRollups(ctx, series, bounds, hours);
  else await jobSeriesFromJobs(ctx, series);
  return series.points(0);
}

/** Counts by status, durations, queue wait, failure reasons and a time series of the jobs in scope. */
export async function jobReport(ctx: ReportContext) {
  const { db, filter: f } = ctx;
  const starts = buckets(ctx); // first, so a too-fine interval is a 400 before any query runs
  const days = await daySums(db, f);
  const [finished, created, current, completed, totals, reasons, waits, series] = await Promise.all([
    finishedIn(db, f, days),
    createdIn(db, f, days),
    currentCounts(db, f),
    completedIn(db, f, days),
    printingTotals(db, f, ctx.nowMs, undefined, days),
    failuresIn(db, f, days),
    waitsInPeriod(db, f, days),
    jobSeries(ctx, starts),
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
    queue_wait: {
      jobs: waits.n,
      average: waits.n === 0 ? null : round(waits.sum / waits.n, 1),
      max: waits.n === 0 || waits.max === null ? null : round(waits.max, 1),
    },
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

/** Sums lines into groups keyed by `keyOf`, rounding at the end; most grams first (equal grams in key order). */
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
  return [...groups]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, g]) => ({ ...g, grams: round(g.grams, 2), cost: round(g.cost, 2) }))
    .sort((a, b) => b.grams - a.grams);
}

type MaterialSeries = TimeSeries<'grams' | 'cost'>;

/** The material series from the hour roll-ups, the lines of the jobs at the period's cut edge hours, and the running jobs. */
async function materialSeriesFromRollups(ctx: ReportContext & { type?: string }, series: MaterialSeries, bounds: number[], hours: NonNullable<ReturnType<typeof rollupHours>>) {
  const f = { ...ctx.filter, type: ctx.type };
  for (const r of await hourMaterials(ctx.db, f, hours.whole)) {
    const i = bucketOf(bounds, hourKeyMs(r.hour));
    series.addAt(i, 'grams', Number(r.grams));
    series.addAt(i, 'cost', Number(r.cost));
  }
  for (const w of hours.edges) {
    const i = bucketOf(bounds, Date.parse(w.from));
    for (const l of await lineTimingsOf(ctx.db, f, touchingTerms(w))) {
      const share = jobOverlap(spanOf(l), Date.parse(w.from), Date.parse(w.to), ctx.nowMs).share;
      series.addAt(i, 'grams', Number(l.grams) * share);
      series.addAt(i, 'cost', Number(l.cost) * share);
    }
  }
  for (const l of await lineTimingsOf(ctx.db, f, [runningTerm(f), backwardTerm(f)])) {
    series.addSpan(spanOf(l), ctx.nowMs, null, 'grams', Number(l.grams));
    series.addSpan(spanOf(l), ctx.nowMs, null, 'cost', Number(l.cost));
  }
}

/** The material series cut from the jobs overlapping the period, for buckets the hour roll-ups do not fit. */
async function materialSeriesFromJobs(ctx: ReportContext & { type?: string }, series: MaterialSeries) {
  const f = { ...ctx.filter, type: ctx.type };
  const bounds = series.bounds().map((ms) => new Date(ms).toISOString());
  // Jobs lying inside one bucket summed in SQL, the others cut here.
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
}

/**
 * The filament lines of the period: those of ended jobs that started in its whole days (day roll-ups) or its edge
 * days (from the jobs), and the lines of the jobs straddling its edges, cut (share), less the whole lines of those
 * among them that the roll-ups count as inside (started in a whole day, ending after the period).
 */
async function periodLines(ctx: ReportContext & { type?: string }): Promise<(UsageLine & { share: number })[]> {
  const f = { ...ctx.filter, type: ctx.type };
  const split = splitPeriod(f.from, f.to, 86_400_000);
  const lines: (UsageLine & { share: number })[] = split.whole ? (await dayMaterials(ctx.db, f, split.whole)).map((l) => ({ ...l, share: 1 })) : [];
  for (const w of split.edges) for (const l of await interiorUsage(ctx.db, f, w)) lines.push({ ...l, share: 1 });
  const whole = split.whole;
  const fromMs = Date.parse(f.from);
  const toMs = Date.parse(f.to);
  for (const l of await boundaryUsage(ctx.db, f)) {
    const line = { ...l, grams: Number(l.grams), cost: Number(l.cost) };
    if (whole && l.completed_at !== null && l.completed_at > f.to && l.started_at >= whole.from && l.started_at < whole.to) lines.push({ ...line, share: -1 });
    lines.push({ ...line, share: jobOverlap(spanOf(l), fromMs, toMs, ctx.nowMs).share });
  }
  return lines;
}

/** Filament by type, colour and spool (jobs cut to the period), cost per completed part, and grams per bucket. */
export async function materialReport(ctx: ReportContext & { type?: string }, rates: CostRates, currency: string) {
  const f = ctx.filter;
  const series = newSeries(ctx, buckets(ctx), ['grams', 'cost'] as const);
  const bounds = series.bounds();
  const hours = rollupHours(ctx, bounds);
  if (hours) await materialSeriesFromRollups(ctx, series, bounds, hours);
  else await materialSeriesFromJobs(ctx, series);
  const lines = await periodLines(ctx);
  const completed = await completedIn(ctx.db, f, await daySums(ctx.db, f));
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
