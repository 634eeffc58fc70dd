// The analytics export as an async iterator of text chunks (CSV or JSON), one database page at a time: constant memory.
import type { Db } from '../storage/db.js';
import type { AnalyticsFilter } from './analytics.repository.js';
import { csvRow, type CsvValue } from './csv-writer.js';
import { jobsPage, printersPage, usagePage, type Cursor } from './export.repository.js';
import { fleetMetrics, round, type CostRates } from './fleet-metrics.service.js';

export type ExportDataset = 'jobs' | 'materials' | 'printers';
export type ExportFormat = 'csv' | 'json';

type Row = Record<string, CsvValue>;

export interface ExportContext {
  db: Db;
  filter: AnalyticsFilter;
  rates: CostRates;
  nowMs: number;
}

export const EXPORT_COLUMNS: Record<ExportDataset, readonly string[]> = {
  jobs: [
    'id', 'name', 'status', 'priority', 'printer_id', 'printer_name', 'printer_group', 'file_name', 'created_at', 'started_at',
    'completed_at', 'elapsed_time', 'material_type', 'material_color', 'material_estimated_usage', 'material_used_g',
    'filament_cost', 'estimated_cost', 'error_code', 'error_message',
  ],
  materials: ['completed_at', 'job_id', 'job_name', 'status', 'printer_id', 'tool', 'material_id', 'brand', 'type', 'color', 'grams', 'cost'],
  printers: [
    'id', 'name', 'group', 'model', 'power_watts', 'utilization_rate', 'jobs_completed', 'success_rate', 'total_print_time',
    'material_consumed', 'estimated_cost',
  ],
};

/** Pages of rows until a short page; `cursorOf` gives the keyset position after a row. */
async function* paged<T, C>(page: (after: C | null) => Promise<T[]>, cursorOf: (row: T) => C, size: number): AsyncGenerator<T> {
  let after: C | null = null;
  for (;;) {
    const rows = await page(after);
    yield* rows;
    if (rows.length < size) return;
    after = cursorOf(rows[rows.length - 1]!);
  }
}

async function* jobRows(ctx: ExportContext, size: number): AsyncGenerator<Row> {
  const pages = paged((after: Cursor | null) => jobsPage(ctx.db, ctx.filter, after, size), (r) => ({ key: r.created_at, id: r.id }), size);
  for await (const { power_watts, ...r } of pages) {
    const hours = Number(r.elapsed_time) / 3600;
    const cost = Number(r.filament_cost) + hours * ctx.rates.hourly_rate + ((hours * Number(power_watts ?? 0)) / 1000) * ctx.rates.energy_cost_per_kwh;
    yield { ...r, material_used_g: Number(r.material_used_g), filament_cost: Number(r.filament_cost), estimated_cost: round(cost, 2) };
  }
}

async function* usageRows(ctx: ExportContext, size: number): AsyncGenerator<Row> {
  yield* paged(
    (after: (Cursor & { tool: number }) | null) => usagePage(ctx.db, ctx.filter, after, size),
    (r) => ({ key: r.completed_at, id: r.job_id, tool: r.tool }),
    size,
  );
}

/** One row per printer with its metrics over the period (a few queries per printer; farms have tens, not thousands). */
async function* printerRows(ctx: ExportContext, size: number): AsyncGenerator<Row> {
  for await (const p of paged((after: Cursor | null) => printersPage(ctx.db, ctx.filter.group, after, size), (r) => ({ key: r.created_at, id: r.id }), size)) {
    const m = await fleetMetrics(ctx.db, { ...ctx.filter, printerId: p.id }, ctx.rates, ctx.nowMs);
    const { total_printers: _t, active_printers: _a, ...metrics } = m;
    yield { id: p.id, name: p.name, group: p.group_name, model: p.model, power_watts: p.power_watts, ...metrics };
  }
}

export function exportRows(dataset: ExportDataset, ctx: ExportContext, pageSize?: number): AsyncGenerator<Row> {
  const size = pageSize ?? 500;
  if (dataset === 'jobs') return jobRows(ctx, size);
  if (dataset === 'materials') return usageRows(ctx, size);
  return printerRows(ctx, size);
}

/** CSV with a header row, or a JSON array, as text chunks (one per row). */
export async function* encodeExport(dataset: ExportDataset, format: ExportFormat, rows: AsyncIterable<Row>): AsyncGenerator<string> {
  const columns = EXPORT_COLUMNS[dataset];
  if (format === 'csv') {
    yield csvRow(columns);
    for await (const row of rows) yield csvRow(columns.map((c) => row[c]));
    return;
  }
  let first = true;
  yield '[';
  for await (const row of rows) {
    yield `${first ? '' : ','}\n${JSON.stringify(Object.fromEntries(columns.map((c) => [c, row[c] ?? null])))}`;
    first = false;
  }
  yield '\n]\n';
}
