// Fleet metrics over a period: sums of the jobs wholly inside it (day roll-ups plus its edge days), plus the cut parts of jobs that straddle its edges.
import type { Db } from '../storage/db.js';
import { jobOverlap } from './job-overlap.js';
import { spanOf } from './job-span.js';
import { boundaryJobs, interiorTotals, printersInScope, printersStartingIn, type AnalyticsFilter } from './analytics.repository.js';
import { daySums, finishedIn, type DaySums } from './period-totals.service.js';

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
 * Sums of the jobs wholly inside the period plus the cut parts of those straddling its edges (TypeScript). The jobs
 * inside are those that started in its whole days (day roll-ups) or in its cut edge days (read from the jobs), less
 * the few that started in the whole days but run past its end (they straddle it: cut instead). `printerIds`, when
 * given, collects the printer of every straddling job (the fleet's active printers).
 */
export async function printingTotals(db: Db, f: AnalyticsFilter, nowMs: number, printerIds?: Set<string>, days?: DaySums): Promise<PrintingTotals> {
  const sums = days ?? (await daySums(db, f));
  const totals: PrintingTotals = { ...sums.ended };
  for (const w of sums.split.edges) {
    const inner = await interiorTotals(db, f, w);
    totals.seconds += inner.seconds;
    totals.wattSeconds += inner.watt_seconds;
    totals.grams += inner.grams;
    totals.filamentCost += inner.filament_cost;
  }
  const whole = sums.split.whole;
  const fromMs = Date.parse(f.from);
  const toMs = Date.parse(f.to);
  for (const job of await boundaryJobs(db, f)) {
    if (printerIds && job.printer_id !== null) printerIds.add(job.printer_id);
    if (whole && job.completed_at !== null && job.completed_at > f.to && job.started_at >= whole.from && job.started_at < whole.to) {
      // In the roll-up of its start day as a job wholly inside: taken out whole, then added cut.
      totals.seconds -= Number(job.elapsed_time);
      totals.wattSeconds -= Number(job.elapsed_time) * Number(job.power_watts ?? 0);
      totals.grams -= Number(job.grams);
      totals.filamentCost -= Number(job.filament_cost);
    }
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
  const days = await daySums(db, f);
  const [printers, counts, totals] = await Promise.all([printersInScope(db, f), finishedIn(db, f, days), printingTotals(db, f, nowMs, straddling, days)]);
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
