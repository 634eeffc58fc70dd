// The analytics answers' shapes and the per-bucket figures the charts draw: utilization, success rate, cost and filament.
import type { FleetMetrics } from '../../../src/analytics/fleet-metrics.service.js';
import { percent } from '../lib/format.js';

/** A share 0..1 as a percentage; a tiny non-zero share reads "< 0.1 %" rather than a misleading 0. */
export function rate(v: number | null): string {
  if (v === null) return '–';
  if (v > 0 && v < 0.001) return '< 0.1 %';
  return percent(v * 100, v > 0 && v < 0.1 ? 1 : 0);
}

export interface Period {
  from: string;
  to: string;
}

export interface FleetReport {
  period: Period;
  metrics: FleetMetrics;
  currency?: string;
}

export interface JobsReport {
  period: Period;
  counts: Record<'created' | 'completed' | 'failed' | 'cancelled' | 'queued' | 'printing' | 'paused', number>;
  success_rate: number;
  failure_reasons: { code: string; count: number }[];
  interval: string;
  timezone: string;
  series: { start: string; label: string; completed: number; failed: number; cancelled: number; print_time: number }[];
}

export interface MaterialsReport {
  period: Period;
  currency?: string;
  totals: { grams: number; filament_cost: number };
  by_type: { type: string; grams: number; cost: number }[];
  series: { start: string; label: string; grams: number; cost: number }[];
}

/** A row of the printers export (format=json): one printer's metrics over the period (the export drops the counts). */
export type PrinterRow = { id: string; name: string; group: string | null; model: string | null; power_watts: number | null } & Omit<
  FleetMetrics,
  'total_printers' | 'active_printers'
>;

/** One bucket with everything the charts and their tables show; null where there is nothing to say (no job ended). */
export interface Point {
  /** Unix seconds of the bucket start (uPlot's x). */
  x: number;
  label: string;
  utilization: number | null;
  success: number | null;
  completed: number;
  failed: number;
  grams: number;
  filamentCost: number;
  totalCost: number;
}

const ms = (iso: string) => Date.parse(iso);

/**
 * Joins the jobs and materials series by bucket start. Utilization of a bucket = printing seconds / (printers × the
 * bucket's seconds inside the period). Cost of a bucket = its measured filament cost + the rest of the fleet's
 * estimated cost (machine time and energy, both per printing hour) spread by the bucket's share of printing time.
 */
export function toPoints(fleet: FleetReport, jobs: JobsReport, materials: MaterialsReport): Point[] {
  const from = ms(fleet.period.from);
  const to = ms(fleet.period.to);
  const printers = fleet.metrics.total_printers;
  const totalPrint = jobs.series.reduce((s, b) => s + b.print_time, 0);
  const rest = Math.max(0, fleet.metrics.estimated_cost - materials.totals.filament_cost);
  const byStart = new Map(materials.series.map((b) => [b.start, b]));
  return jobs.series.map((b, i) => {
    const start = Math.max(ms(b.start), from);
    const next = jobs.series[i + 1];
    const end = Math.min(next ? ms(next.start) : to, to);
    const seconds = Math.max(1, (end - start) / 1000);
    const m = byStart.get(b.start);
    const filamentCost = m?.cost ?? 0;
    const ended = b.completed + b.failed;
    return {
      x: Math.floor(ms(b.start) / 1000),
      label: b.label,
      utilization: printers > 0 ? Math.min(1, b.print_time / (printers * seconds)) : null,
      success: ended > 0 ? b.completed / ended : null,
      completed: b.completed,
      failed: b.failed,
      grams: m?.grams ?? 0,
      filamentCost,
      totalCost: filamentCost + (totalPrint > 0 ? (rest * b.print_time) / totalPrint : 0),
    };
  });
}
