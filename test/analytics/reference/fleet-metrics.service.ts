// Reference (frozen copy of the direct computation before the roll-ups, for the equivalence test): Fleet metrics over a period: SQL sums for jobs wholly inside it, plus the cut parts of jobs that straddle its edges.
import type { Db } from '../../../src/storage/db.js';
import { jobOverlap } from '../../../src/analytics/job-overlap.js';
import { spanOf } from '../../../src/analytics/job-span.js';
import { boundaryJobs, finishedCounts, interiorTotals, printersInScope, printersStartingIn, type AnalyticsFilter } from './analytics.repository.js';

/** What a cost estimate needs from the organization's settings. */
export interface CostRates {
  hourly_rate: number;
  energy_cost_per_kwh: number;
}

export interface FleetMetrics {
  total_printers: number;
  active_printers: number;
  utilization_rate: number;
  jobs_completed: number;
  success_rate: number;
  total_print_time: number;
  material_consumed: number;
  estimated_cost: number;
}

/** Printing inside the period summed over jobs: seconds, energy, filament and filament cost (all cut to the period). */
export interface PrintingTotals {
  seconds: number;
  wattSeconds: number;
  grams: number;
  filamentCost: number;
}

export const round = (n: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

/**
 * Sums of the jobs wholly inside the period (SQL) plus the cut parts of those straddling its edges (TypeScript).
 * `printerIds`, when given, collects the printer of every straddling job (the fleet's active printers).
 */
export async function printingTotals(db: Db, f: AnalyticsFilter, nowMs: number, printerIds?: Set<string>): Promise<PrintingTotals> {
  const inner = await interiorTotals(db, f);
  const totals: PrintingTotals = {
    seconds: inner.seconds,
    wattSeconds: inner.watt_seconds,
    grams: inner.grams,
    filamentCost: inner.filament_cost,
  };
  const fromMs = Date.parse(f.from);
  const toMs = Date.parse(f.to);
  for await (const job of boundaryJobs(db, f)) {
    if (printerIds && job.printer_id !== null) printerIds.add(job.printer_id);
    const o = jobOverlap(spanOf(job), fromMs, toMs, nowMs);
    totals.seconds += o.seconds;
    totals.wattSeconds += o.seconds * Number(job.power_watts ?? 0);
    totals.grams += Number(job.grams) * o.share;
    totals.filamentCost += Number(job.filament_cost) * o.share;
  }
  return totals;
}

/** Filament + machine time at the hourly rate + energy (watts × hours / 1000 × price per kWh). */
export const costOf = (t: PrintingTotals, rates: CostRates): number =>
  t.filamentCost + (t.seconds / 3600) * rates.hourly_rate + (t.wattSeconds / 3_600_000) * rates.energy_cost_per_kwh;

/** success_rate: completed / (completed + failed); cancellations are left out; 0 when nothing finished. */
export const successRate = (c: { completed: number; failed: number }): number =>
  c.completed + c.failed === 0 ? 0 : round(c.completed / (c.completed + c.failed), 4);

/** Printers that printed at some moment of the period: one that started a job in it, or ran one across its edges. */
async function activePrinters(db: Db, f: AnalyticsFilter, straddling: Set<string>): Promise<number> {
  const active = new Set(straddling);
  for (const id of await printersStartingIn(db, f)) active.add(id);
  return active.size;
}

export async function fleetMetrics(db: Db, f: AnalyticsFilter, rates: CostRates, nowMs: number): Promise<FleetMetrics> {
  const straddling = new Set<string>();
  const [printers, counts, totals] = await Promise.all([printersInScope(db, f), finishedCounts(db, f), printingTotals(db, f, nowMs, straddling)]);
  const active = await activePrinters(db, f, straddling);
  const periodSeconds = (Date.parse(f.to) - Date.parse(f.from)) / 1000;
  return {
    total_printers: printers.length,
    active_printers: active,
    utilization_rate: printers.length === 0 ? 0 : round(totals.seconds / (printers.length * periodSeconds), 4),
    jobs_completed: counts.completed,
    success_rate: successRate(counts),
    total_print_time: Math.round(totals.seconds),
    material_consumed: round(totals.grams, 2),
    estimated_cost: round(costOf(totals, rates), 2),
  };
}
