// A period's sums from the day roll-ups of its whole UTC days plus the same sums read from the jobs of its cut edge days.
import type { Db } from '../storage/db.js';
import { finishedCounts, type AnalyticsFilter, type FinishedCounts } from './analytics.repository.js';
import { DAY_MS, splitPeriod, type PeriodSplit } from './period-split.js';
import { completedTotals, createdCount, failureReasons, waitsIn, type CompletedTotals, type FailureReason, type WaitSums } from './reports.repository.js';
import { dayFailures, dayRows } from './rollups.repository.js';

/** What the day roll-ups say about the whole days of a period (all zero when it holds none). */
export interface DaySums {
  split: PeriodSplit;
  /** Ended jobs that started in the whole days: printing seconds, energy (watt-seconds), grams, filament cost. */
  ended: { seconds: number; wattSeconds: number; grams: number; filamentCost: number };
  wait: WaitSums;
  created: number;
  finished: FinishedCounts;
  completed: CompletedTotals;
}

const minOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b));
const maxOf = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));

/** Reads the day roll-ups of the period's whole days once; the functions below add their edges. */
export async function daySums(db: Db, f: AnalyticsFilter): Promise<DaySums> {
  const split = splitPeriod(f.from, f.to, DAY_MS);
  const out: DaySums = {
    split,
    ended: { seconds: 0, wattSeconds: 0, grams: 0, filamentCost: 0 },
    wait: { n: 0, sum: 0, max: null },
    created: 0,
    finished: { completed: 0, failed: 0, cancelled: 0 },
    completed: { count: 0, seconds: 0, min_seconds: null, max_seconds: null, watt_seconds: 0, filament_cost: 0 },
  };
  if (!split.whole) return out;
  for (const r of await dayRows(db, f, split.whole)) {
    out.ended.seconds += Number(r.ended_seconds);
    out.ended.wattSeconds += Number(r.ended_watt_seconds);
    out.ended.grams += Number(r.ended_grams);
    out.ended.filamentCost += Number(r.ended_cost);
    out.wait = { n: out.wait.n + Number(r.started_n), sum: out.wait.sum + Number(r.wait_sum), max: maxOf(out.wait.max, r.wait_max) };
    out.created += Number(r.created_n);
    out.finished.completed += Number(r.completed_n);
    out.finished.failed += Number(r.failed_n);
    out.finished.cancelled += Number(r.cancelled_n);
    const c = out.completed;
    c.count += Number(r.completed_n);
    c.seconds += Number(r.completed_seconds);
    c.min_seconds = minOf(c.min_seconds, r.completed_min);
    c.max_seconds = maxOf(c.max_seconds, r.completed_max);
    c.watt_seconds += Number(r.completed_watt_seconds);
    c.filament_cost += Number(r.completed_cost);
  }
  return out;
}

/** The edges of the period as filters of their own (sums over them come from the jobs). */
const edgeFilters = (f: AnalyticsFilter, days: DaySums): AnalyticsFilter[] => days.split.edges.map((w) => ({ ...f, from: w.from, to: w.to }));

/** Jobs that reached a final state in the period, by state. */
export async function finishedIn(db: Db, f: AnalyticsFilter, days: DaySums): Promise<FinishedCounts> {
  const out = { ...days.finished };
  for (const e of edgeFilters(f, days)) {
    const c = await finishedCounts(db, e);
    out.completed += c.completed;
    out.failed += c.failed;
    out.cancelled += c.cancelled;
  }
  return out;
}

/** Completed jobs that ended in the period: count, printing (sum, min, max), energy and filament cost. */
export async function completedIn(db: Db, f: AnalyticsFilter, days: DaySums): Promise<CompletedTotals> {
  const out = { ...days.completed };
  for (const e of edgeFilters(f, days)) {
    const c = await completedTotals(db, e);
    out.count += c.count;
    out.seconds += c.seconds;
    out.min_seconds = minOf(out.min_seconds, c.min_seconds);
    out.max_seconds = maxOf(out.max_seconds, c.max_seconds);
    out.watt_seconds += c.watt_seconds;
    out.filament_cost += c.filament_cost;
  }
  return out;
}

/** Jobs created in the period. */
export async function createdIn(db: Db, f: AnalyticsFilter, days: DaySums): Promise<number> {
  let n = days.created;
  for (const e of edgeFilters(f, days)) n += await createdCount(db, e);
  return n;
}

/** Queue waits of the jobs that started in the period. */
export async function waitsInPeriod(db: Db, f: AnalyticsFilter, days: DaySums): Promise<WaitSums> {
  let out = days.wait;
  for (const w of days.split.edges) {
    const e = await waitsIn(db, f, w);
    out = { n: out.n + e.n, sum: out.sum + e.sum, max: maxOf(out.max, e.max) };
  }
  return out;
}

/** Failed jobs of the period by error code, most frequent first (ties by code). */
export async function failuresIn(db: Db, f: AnalyticsFilter, days: DaySums): Promise<FailureReason[]> {
  const counts = new Map<string, number>();
  const add = (code: string, n: number): void => void counts.set(code, (counts.get(code) ?? 0) + n);
  if (days.split.whole) for (const r of await dayFailures(db, f, days.split.whole)) add(r.code, r.n);
  for (const e of edgeFilters(f, days)) for (const r of await failureReasons(db, e)) add(r.code, r.count);
  return [...counts]
    .filter(([, n]) => n > 0)
    .map(([code, count]) => ({ code, count }))
    .sort((a, b) => b.count - a.count || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}
