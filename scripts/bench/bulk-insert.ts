// The bulk-insert cost per job: one INSERT of 2,000 finished jobs (an import), roll-up triggers included, on a migrated database of either engine.
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/storage/schema.js';

export const BULK_JOBS = 2000;
const PRINTERS = 8;
const HOUR = 3_600_000;
const FROM = Date.parse('2026-01-01T00:00:00.000Z');

/** Finished jobs over two months on 8 printers: every final state, some with their own filament totals. */
function jobRows(count: number, prefix: string) {
  const iso = (ms: number): string => new Date(ms).toISOString();
  return Array.from({ length: count }, (_, i) => {
    const start = FROM + Math.floor((i * 60 * 24 * HOUR) / count) + (i % 7) * 60_000;
    const end = start + HOUR + (i % 5) * 1_234_567;
    const status = i % 25 === 0 ? ('cancelled' as const) : i % 10 === 0 ? ('failed' as const) : ('completed' as const);
    return {
      id: `${prefix}${String(i).padStart(5, '0')}`,
      name: `import ${i}`,
      status,
      // Constants as literals: SQLite takes at most 32,766 parameters in one statement.
      priority: sql.lit<'normal'>('normal'),
      priority_rank: sql.lit(1),
      printer_id: `prt_bulk${i % PRINTERS}`,
      file_id: sql.lit('file_bulk'),
      pinned: sql.lit(0),
      tags: sql.lit('[]'),
      progress: sql.lit(1),
      created_at: iso(start - 1_800_000),
      started_at: iso(start),
      completed_at: iso(end),
      updated_at: iso(end),
      elapsed_time: (end - start) / 1000 - 30,
      material_type: i % 3 ? 'PLA' : 'PETG',
      material_color: ['black', 'white', 'red'][i % 3]!,
      material_used_g: i % 2 ? 10 + (i % 40) : null,
      cost: i % 2 ? 0.5 + (i % 9) / 10 : null,
      error_code: status === 'failed' ? 'thermal_runaway' : null,
    };
  });
}

/** The farm the timed insert lands on: 8 printers and `prior` jobs inserted the same way (covering the same days and hours). */
export async function seedBulkFarm(db: Kysely<Database>, prior = BULK_JOBS): Promise<void> {
  const at = new Date(FROM).toISOString();
  await db
    .insertInto('printers')
    .values(Array.from({ length: PRINTERS }, (_, p) => ({ id: `prt_bulk${p}`, name: `Bulk ${p}`, connection_url: `sim://bulk${p}`, tags: '[]', ready: 1, power_watts: 120 + p, created_at: at, updated_at: at })))
    .execute();
  if (prior > 0) await db.insertInto('jobs').values(jobRows(prior, 'job_prior')).execute();
}

/** Milliseconds per job of one INSERT of BULK_JOBS finished jobs, the roll-up triggers running inside it. */
export async function timeBulkInsert(db: Kysely<Database>): Promise<number> {
  const rows = jobRows(BULK_JOBS, 'job_bulk');
  const t0 = performance.now();
  await db.insertInto('jobs').values(rows).execute();
  return (performance.now() - t0) / BULK_JOBS;
}

/** The bulk-insert cost per job (ms) on a farm that already holds `prior` jobs over the same period. Leaves the jobs in the database. */
export async function bulkInsertMsPerJob(db: Kysely<Database>, prior = BULK_JOBS): Promise<number> {
  await seedBulkFarm(db, prior);
  return timeBulkInsert(db);
}
