// Migration 009: jobs.usage_grams / usage_cost follow the job's usage rows (triggers), and a database from before it reports the same figures.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { ManualClock } from '../../src/clock.js';
import { fleetMetrics } from '../../src/analytics/fleet-metrics.service.js';
import { jobReport, materialReport } from '../../src/analytics/reports.service.js';
import { upsertUsage } from '../../src/materials/materials.repository.js';
import { openDatabase, type Db } from '../../src/storage/db.js';
import { migrate } from '../../src/storage/migrate.js';
import { migrations } from '../../src/storage/migrations/index.js';
import type { Database } from '../../src/storage/schema.js';
import { seedFarm, seedJob, usage } from './analytics-fixtures.js';

const NOW = Date.parse('2026-03-10T12:00:00.000Z');

async function totals(db: Db, id: string): Promise<{ usage_grams: number | null; usage_cost: number | null }> {
  const r = await sql<{ usage_grams: number | null; usage_cost: number | null }>`SELECT usage_grams, usage_cost FROM jobs WHERE id = ${id}`.execute(db);
  return r.rows[0]!;
}

/** Every report of a few periods and filters, as the services return them. */
async function everyReport(db: Db): Promise<unknown[]> {
  const rates = { hourly_rate: 2, energy_cost_per_kwh: 0.3 };
  const out: unknown[] = [];
  for (const period of [
    { from: '2026-03-01T00:00:00.000Z', to: '2026-03-03T00:00:00.000Z' },
    { from: '2026-02-01T00:00:00.000Z', to: '2026-03-10T12:00:00.000Z' },
  ]) {
    for (const scope of [{}, { group: 'east' }, { printerId: 'prt_B' }]) {
      const filter = { ...period, ...scope };
      const ctx = { db, filter, nowMs: NOW, series: { interval: 'day' as const, tz: 'Europe/Berlin' } };
      out.push(await fleetMetrics(db, filter, rates, NOW), await jobReport(ctx), await materialReport(ctx, rates, 'EUR'));
    }
  }
  return out;
}

describe('job usage totals (migration 009)', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ clock: new ManualClock(NOW) });
  });
  after(() => t.close());

  it('follow the usage rows as they are written, rewritten and deleted', async () => {
    const db = t.deps.db;
    await seedJob(db, { id: 'job_t', status: 'printing', started_at: '2026-03-10T10:00:00.000Z' });
    assert.deepEqual(await totals(db, 'job_t'), { usage_grams: null, usage_cost: null });
    // The meter's own writer: insert, then the same tool again (upsert), then a second tool without a price.
    await upsertUsage(db, { job_id: 'job_t', tool: 0, material_id: null, type: 'PLA', color: 'black', grams: 10, cost: 0.25 });
    assert.deepEqual(await totals(db, 'job_t'), { usage_grams: 10, usage_cost: 0.25 });
    await upsertUsage(db, { job_id: 'job_t', tool: 0, material_id: null, type: 'PLA', color: 'black', grams: 12.5, cost: 0.3 });
    await upsertUsage(db, { job_id: 'job_t', tool: 1, material_id: null, type: 'PETG', color: 'red', grams: 4, cost: null });
    assert.deepEqual(await totals(db, 'job_t'), { usage_grams: 16.5, usage_cost: 0.3 });
    await db.deleteFrom('job_material_usage').where('job_id', '=', 'job_t').where('tool', '=', 0).execute();
    // Only the unpriced tool is left: grams 4, cost unknown (the job's own cost stands in, as before).
    assert.deepEqual(await totals(db, 'job_t'), { usage_grams: 4, usage_cost: null });
    await db.deleteFrom('job_material_usage').where('job_id', '=', 'job_t').execute();
    assert.deepEqual(await totals(db, 'job_t'), { usage_grams: null, usage_cost: null });
  });

  it('count usage rows written before their job row', async () => {
    const db = t.deps.db;
    await db.insertInto('job_material_usage').values({ job_id: 'job_early', ...usage(0, 7, 0.5) }).execute();
    await seedJob(db, { id: 'job_early', status: 'completed', started_at: '2026-03-09T10:00:00.000Z', completed_at: '2026-03-09T11:00:00.000Z' });
    assert.deepEqual(await totals(db, 'job_early'), { usage_grams: 7, usage_cost: 0.5 });
  });

  it('a database from before the migration is filled in and reports what a new one reports', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'printfarm-analytics-upgrade-'));
    try {
      // The farm written by the previous schema (migrations 1-8), then opened by this program.
      const file = path.join(dir, 'old.sqlite');
      const raw = new BetterSqlite3(file);
      migrate(raw, migrations.slice(0, 8), new Date(NOW).toISOString());
      const oldDb = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
      await seedFarm({ deps: { db: oldDb } });
      await oldDb.destroy();
      const upgraded = openDatabase(file, new Date(NOW).toISOString());
      const fresh = await startTestApp({ clock: new ManualClock(NOW) });
      try {
        assert.deepEqual(upgraded.migrated, [9, 10]);
        assert.deepEqual(await totals(upgraded.db, 'job_1'), { usage_grams: 120, usage_cost: 3 });
        assert.deepEqual(await totals(upgraded.db, 'job_2'), { usage_grams: null, usage_cost: null });
        await seedFarm(fresh);
        assert.deepEqual(await everyReport(upgraded.db), await everyReport(fresh.deps.db));
      } finally {
        await fresh.close();
        await upgraded.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
