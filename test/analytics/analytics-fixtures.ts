// Seeds real rows (printers, jobs, material usage, organization rates) into a test app's SQLite for the analytics tests.
import type { Insertable } from 'kysely';
import type { Db } from '../../src/storage/db.js';
import type { JobTable, JobMaterialUsageTable } from '../../src/storage/schema.js';

const T0 = '2026-01-01T00:00:00.000Z';

export async function seedPrinter(db: Db, id: string, group: string | null, powerWatts: number | null): Promise<void> {
  await db
    .insertInto('printers')
    .values({
      id,
      name: `Printer ${id}`,
      connection_url: `sim://${id}`,
      api_key_sealed: null,
      model: null,
      group_name: group,
      tags: '[]',
      ready: 1,
      firmware: null,
      material_type: null,
      material_color: null,
      nozzle_diameter: null,
      heatup_watts: null,
      power_watts: powerWatts,
      clear_bed_gcode: null,
      clear_bed_temperature: null,
      created_at: T0,
      updated_at: T0,
    })
    .execute();
}

export type SeedJob = Pick<JobTable, 'id' | 'status'> & Partial<Insertable<JobTable>>;

export async function seedJob(db: Db, job: SeedJob, usage: Omit<JobMaterialUsageTable, 'job_id'>[] = []): Promise<void> {
  await db
    .insertInto('jobs')
    .values({
      name: job.id,
      priority: 'normal',
      priority_rank: 1,
      printer_id: null,
      file_id: 'file_x',
      created_at: job.started_at ?? T0,
      updated_at: job.completed_at ?? T0,
      elapsed_time: 0,
      ...job,
    } as Insertable<JobTable>)
    .execute();
  for (const u of usage) await db.insertInto('job_material_usage').values({ job_id: job.id, ...u }).execute();
}

export const usage = (tool: number, grams: number, cost: number | null, extra: Partial<JobMaterialUsageTable> = {}) => ({
  tool,
  grams,
  cost,
  material_id: null,
  type: 'PLA',
  color: 'black',
  ...extra,
});

export async function setRates(db: Db, rates: { hourly_rate: number; energy_cost_per_kwh: number; currency: string; timezone?: string }): Promise<void> {
  await db.updateTable('organization').set(rates).execute();
}

// Farm: A (east, 200 W), B (east, 100 W), C (west, no power rating). Now: 2026-03-10 12:00 UTC.
// Period from=2026-03-01&to=2026-03-02 is [03-01T00:00Z, 03-03T00:00Z): 172800 s.
export async function seedFarm(t: { deps: { db: Db } }): Promise<void> {
  const db = t.deps.db;
  await setRates(db, { hourly_rate: 2, energy_cost_per_kwh: 0.3, currency: 'EUR' });
  await seedPrinter(db, 'prt_A', 'east', 200);
  await seedPrinter(db, 'prt_B', 'east', 100);
  await seedPrinter(db, 'prt_C', 'west', null);
  await db
    .insertInto('materials')
    .values({ id: 'mat_1', type: 'PLA', brand: 'Acme', color: 'black', spool_weight: 1000, remaining_weight: 900, empty_spool_weight: null, cost_per_kg: 25, diameter: 1.75, density: 1.24, printer_id: 'prt_A', tool: 0, reorder_threshold: null, status: 'active', low_notified: 0, lot: null, notes: null, created_at: T0, updated_at: T0 })
    .execute();
  // J1 inside: 7200 s, 120 g over two tools, filament 3.00.
  await seedJob(db, { id: 'job_1', status: 'completed', printer_id: 'prt_A', started_at: '2026-03-01T10:00:00.000Z', completed_at: '2026-03-01T12:00:00.000Z', elapsed_time: 7200 }, [usage(0, 100, 2.5, { material_id: 'mat_1' }), usage(1, 20, 0.5, { color: 'white' })]);
  // J2 straddles the start: wall 2 h, half inside; 5400 s printed (30 min paused) -> 2700 s inside; 40 g / 1.00 -> 20 g / 0.50.
  await seedJob(db, { id: 'job_2', status: 'completed', printer_id: 'prt_A', started_at: '2026-02-28T23:00:00.000Z', completed_at: '2026-03-01T01:00:00.000Z', elapsed_time: 5400, material_used_g: 40, cost: 1, material_type: 'PETG', material_color: 'red' });
  // J3 inside, failed: 3600 s, 10 g / 0.20; waited an hour in the queue.
  await seedJob(db, { id: 'job_3', status: 'failed', printer_id: 'prt_B', started_at: '2026-03-02T10:00:00.000Z', completed_at: '2026-03-02T11:00:00.000Z', elapsed_time: 3600, error_code: 'thermal_runaway', created_at: '2026-03-02T09:00:00.000Z' }, [usage(0, 10, 0.2)]);
  // J4 inside, cancelled: 1800 s printed, no filament; not in success_rate.
  await seedJob(db, { id: 'job_4', status: 'cancelled', printer_id: 'prt_B', started_at: '2026-03-02T20:00:00.000Z', completed_at: '2026-03-02T20:30:00.000Z', elapsed_time: 1800 });
  // J5 inside on the west printer: 18000 s, 50 g / 1.00.
  await seedJob(db, { id: 'job_5', status: 'completed', printer_id: 'prt_C', started_at: '2026-03-01T00:00:00.000Z', completed_at: '2026-03-01T05:00:00.000Z', elapsed_time: 18000 }, [usage(0, 50, 1, { type: 'PETG', color: 'red' })]);
  // J6 long before the period: never counted.
  await seedJob(db, { id: 'job_6', status: 'completed', printer_id: 'prt_A', started_at: '2026-02-20T00:00:00.000Z', completed_at: '2026-02-20T05:00:00.000Z', elapsed_time: 18000 }, [usage(0, 999, 99)]);
  // J7 straddles the end: half inside -> 3600 s, 15 g / 0.30; completes after the period, so not in jobs_completed.
  await seedJob(db, { id: 'job_7', status: 'completed', printer_id: 'prt_B', started_at: '2026-03-02T23:00:00.000Z', completed_at: '2026-03-03T01:00:00.000Z', elapsed_time: 7200 }, [usage(0, 30, 0.6)]);
  // J8 cancelled while queued (never printed).
  await seedJob(db, { id: 'job_8', status: 'cancelled', started_at: null, completed_at: '2026-03-01T08:00:00.000Z', created_at: '2026-03-01T07:00:00.000Z' });
  // J9 printing now on C since 10:00 (2 h wall, 7200 s live elapsed).
  await seedJob(db, { id: 'job_9', status: 'printing', printer_id: 'prt_C', started_at: '2026-03-10T10:00:00.000Z', completed_at: null, elapsed_time: 7200 });
}
