// Reads of the analytics roll-ups (migration 013): sums over whole UTC days or hours of a period, per printer in scope.
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { AnalyticsDayTable, Database } from '../storage/schema.js';
import type { AnalyticsFilter } from './analytics.repository.js';
import type { Window } from './period-pages.js';
import { DAY_MS, HOUR_MS, unitKey } from './period-split.js';

type Q = Kysely<Database>;

/**
 * The printers of the filter on a roll-up table r: the group's printers, the one printer, or with no filter the
 * farm's own rows ('*', which hold jobs without a printer and of deleted printers too, as the jobs do).
 */
function scoped<DB, TB extends keyof DB, O>(db: Q, q: SelectQueryBuilder<DB, TB, O>, f: AnalyticsFilter): SelectQueryBuilder<DB, TB, O> {
  const out = q as unknown as SelectQueryBuilder<{ r: { printer_id: string } }, 'r', O>;
  let narrowed = out;
  if (f.group !== undefined) {
    let printers = db.selectFrom('printers').select('id').where('group_name', '=', f.group);
    if (f.printerId !== undefined) printers = printers.where('id', '=', f.printerId);
    narrowed = out.where('r.printer_id', 'in', printers);
  } else if (f.printerId !== undefined) narrowed = out.where('r.printer_id', '=', f.printerId);
  else narrowed = out.where('r.printer_id', '=', '*');
  return narrowed as unknown as SelectQueryBuilder<DB, TB, O>;
}

const inDays = (w: Window) => [unitKey(w.from, DAY_MS), unitKey(w.to, DAY_MS)] as const;
const inHours = (w: Window) => [unitKey(w.from, HOUR_MS), unitKey(w.to, HOUR_MS)] as const;

/** The sums of one day's row (the table's columns without its keys). */
export type DayRow = Omit<AnalyticsDayTable, 'day' | 'printer_id'>;

/** The day roll-ups of the whole days `days`, summed over the printers in scope (one row; all zero without days). */
export async function dayRows(db: Q, f: AnalyticsFilter, days: Window): Promise<DayRow[]> {
  const [from, to] = inDays(days);
  const sum = (c: string) => sql<number>`COALESCE(SUM(${sql.ref(`r.${c}`)}), 0)`.as(c);
  const q = db
    .selectFrom('analytics_day as r')
    .where('r.day', '>=', from)
    .where('r.day', '<', to)
    .select([
      ...(['ended_seconds', 'ended_watt_seconds', 'ended_grams', 'ended_cost', 'started_n', 'wait_sum', 'created_n', 'completed_n', 'failed_n', 'cancelled_n', 'completed_seconds', 'completed_watt_seconds', 'completed_cost'] as const).map(sum),
      sql<number | null>`MAX(r.wait_max)`.as('wait_max'),
      sql<number | null>`MIN(r.completed_min)`.as('completed_min'),
      sql<number | null>`MAX(r.completed_max)`.as('completed_max'),
    ]);
  return (await scoped(db, q, f).execute()) as unknown as DayRow[];
}

/** Failed jobs by error code over whole days. */
export async function dayFailures(db: Q, f: AnalyticsFilter, days: Window): Promise<{ code: string; n: number }[]> {
  const [from, to] = inDays(days);
  const q = db
    .selectFrom('analytics_day_failure as r')
    .where('r.day', '>=', from)
    .where('r.day', '<', to)
    .select(['r.code', sql<number>`SUM(r.n)`.as('n')])
    .groupBy('r.code');
  return (await scoped(db, q, f).execute()).map((r) => ({ code: r.code, n: Number(r.n) }));
}

export interface MaterialDayLine {
  type: string | null;
  color: string | null;
  material_id: string | null;
  brand: string | null;
  grams: number;
  cost: number;
}

/** Filament of the jobs that started in whole days and ended, by type, colour and spool (with the spool's brand now). */
export async function dayMaterials(db: Q, f: AnalyticsFilter & { type?: string }, days: Window): Promise<MaterialDayLine[]> {
  const [from, to] = inDays(days);
  let q = db
    .selectFrom('analytics_day_material as r')
    .where('r.day', '>=', from)
    .where('r.day', '<', to)
    .select(['r.type', 'r.color', 'r.material_id', sql<number>`SUM(r.grams)`.as('grams'), sql<number>`SUM(r.cost)`.as('cost')])
    .groupBy(['r.type', 'r.color', 'r.material_id'])
    .having(sql`SUM(r.lines)`, '>', 0);
  // The key as the triggers wrote it: a JSON string (JSON.stringify quotes as json_quote and to_json do).
  if (f.type !== undefined) q = q.where('r.type', '=', JSON.stringify(f.type));
  const rows = await scoped(db, q, f).execute();
  const decoded = rows.map((r) => ({
    type: JSON.parse(r.type) as string | null,
    color: JSON.parse(r.color) as string | null,
    material_id: JSON.parse(r.material_id) as string | null,
    grams: Number(r.grams),
    cost: Number(r.cost),
  }));
  const ids = [...new Set(decoded.flatMap((l) => (l.material_id === null ? [] : [l.material_id])))];
  const brands = new Map<string, string | null>();
  if (ids.length > 0) for (const m of await db.selectFrom('materials').select(['id', 'brand']).where('id', 'in', ids).execute()) brands.set(m.id, m.brand);
  return decoded.map((l) => ({ ...l, brand: l.material_id === null ? null : (brands.get(l.material_id) ?? null) }));
}

export interface HourRow {
  hour: string;
  print_seconds: number;
  completed_n: number;
  failed_n: number;
  cancelled_n: number;
}

/** Printing seconds (cut to the hour) and final states per hour of whole hours. */
export async function hourRows(db: Q, f: AnalyticsFilter, hours: Window): Promise<HourRow[]> {
  const [from, to] = inHours(hours);
  const sum = (c: 'print_seconds' | 'completed_n' | 'failed_n' | 'cancelled_n') => sql<number>`SUM(${sql.ref(`r.${c}`)})`.as(c);
  const q = db
    .selectFrom('analytics_hour as r')
    .where('r.hour', '>=', from)
    .where('r.hour', '<', to)
    .select(['r.hour', sum('print_seconds'), sum('completed_n'), sum('failed_n'), sum('cancelled_n')])
    .groupBy('r.hour');
  return (await scoped(db, q, f).execute()) as unknown as HourRow[];
}

/** Filament grams and cost (cut to the hour) per hour of whole hours. */
export async function hourMaterials(db: Q, f: AnalyticsFilter & { type?: string }, hours: Window): Promise<{ hour: string; grams: number; cost: number }[]> {
  const [from, to] = inHours(hours);
  let q = db
    .selectFrom('analytics_hour_material as r')
    .where('r.hour', '>=', from)
    .where('r.hour', '<', to)
    .select(['r.hour', sql<number>`SUM(r.grams)`.as('grams'), sql<number>`SUM(r.cost)`.as('cost')])
    .groupBy('r.hour');
  if (f.type !== undefined) q = q.where('r.type', '=', JSON.stringify(f.type));
  return scoped(db, q, f).execute();
}
