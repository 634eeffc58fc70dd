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
