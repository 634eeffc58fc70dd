// A bulk insert (2,000 jobs in one INSERT, PostgreSQL's statement trigger over its transition table) keeps the same
// roll-ups a rebuild gives, on both engines; and migration 022 makes PostgreSQL's roll-up triggers cheap for it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { rebuildAnalyticsRollups } from '../../src/analytics/rollups-rebuild.js';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';
import { migration022RollupBulkInsert } from '../../src/storage/migrations/022-rollup-bulk-insert.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { openPostgres } from '../../src/storage/open-postgres.js';
import { BULK_JOBS, seedBulkFarm, timeBulkInsert } from '../../scripts/bench/bulk-insert.js';
import { pgForTests, pgSkipReason, type PgForTests } from '../helpers/pg-for-tests.js';
import { assertSameRollupRows, rollupRows } from './rollup-rows.js';

const NOW = '2026-03-10T12:00:00.000Z';

/** Usage rows written before their jobs arrive (an import writing the meter's rows first), for every 7th bulk job. */
async function earlyUsage(h: DbHandle): Promise<void> {
  const rows = Array.from({ length: Math.floor(BULK_JOBS / 7) }, (_, k) => ({
    job_id: `job_bulk${String(k * 7).padStart(5, '0')}`,
    tool: k % 2,
    material_id: k % 3 ? `mat_${k % 3}` : null,
    type: k % 4 ? 'PLA' : null,
    color: k % 5 ? 'grey' : null,
    grams: 3.25 + (k % 11),
    cost: k % 6 ? 0.125 * (k % 6) : null,
  }));
  await h.db.insertInto('job_material_usage').values(rows).execute();
}

/** The rows the triggers kept, then the rows a rebuild gives: they must be the same. */
async function assertRebuildAgrees(h: DbHandle): Promise<void> {
  const kept = await rollupRows(h);
  const rebuilt = await rebuildAnalyticsRollups(h.db);
  assert.equal(rebuilt.jobs, 2 * BULK_JOBS);
  // No job here runs for a day or ends before it started: those two lists stay empty.
  assertSameRollupRows(await rollupRows(h), kept, ['rebuild', 'triggers'], ['analytics_day', 'analytics_day_failure', 'analytics_day_material', 'analytics_hour', 'analytics_hour_material']);
}

/** The bulk insert (after the farm's first 2,000 jobs unless `seeded`) and the check; closes `h`. */
async function bulkInsertAgrees(h: DbHandle, seeded = false): Promise<void> {
  try {
    if (!seeded) await seedBulkFarm(h.db);
    await earlyUsage(h);
    await timeBulkInsert(h.db);
    await assertRebuildAgrees(h);
  } finally {
    await h.close();
  }
}

describe('a bulk insert keeps the roll-ups a rebuild gives', () => {
  it('on SQLite: 2,000 jobs in one INSERT on a farm holding 2,000 over the same days', async () => {
    await bulkInsertAgrees(openDatabase(':memory:', NOW));
  });

  describe('on PostgreSQL', { skip: pgSkipReason() }, () => {
    let cluster: PgForTests;
    const dropped: Array<() => Promise<void>> = [];
    const newDatabase = async (): Promise<string> => {
      const db = await cluster.createDatabase();
      dropped.push(db.drop);
      return db.url;
    };
    before(async () => {
      cluster = await pgForTests();
    });
    after(async () => {
      for (const drop of dropped) await drop();
      await cluster?.stop();
    });

    it('2,000 jobs in one INSERT on a farm holding 2,000 over the same days', async () => {
      await bulkInsertAgrees(await openPostgres(await newDatabase(), NOW));
    });

    it('a database whose roll-ups were kept before migration 022 goes on keeping them through it', async () => {
      const url = await newDatabase();
      const before022 = await openPostgres(url, NOW, { migrations: migrations.slice(0, migration022RollupBulkInsert.version - 1) });
      try {
        await seedBulkFarm(before022.db);
      } finally {
        await before022.close();
      }
      await bulkInsertAgrees(await openPostgres(url, NOW), true);
    });

    it('migration 022: every roll-up trigger function runs without JIT, and the roll-up tables leave room to update in place', async () => {
      const h = await openPostgres(await newDatabase(), NOW);
      try {
        const functions = await sql<{ name: string; config: string[] | null }>`
          SELECT proname AS name, proconfig AS config FROM pg_proc WHERE proname LIKE 'analytics\_%'`.execute(h.db);
        // The eleven triggers of migration 013, one function each.
        assert.equal(functions.rows.length, 11);
        for (const f of functions.rows) assert.deepEqual(f.config, ['jit=off'], f.name);
        const tables = await sql<{ name: string; options: string[] | null }>`
          SELECT relname AS name, reloptions AS options FROM pg_class WHERE relkind = 'r' AND relname IN ('analytics_day', 'analytics_day_failure', 'analytics_day_material', 'analytics_hour', 'analytics_hour_material')`.execute(h.db);
        assert.equal(tables.rows.length, 5);
        for (const t of tables.rows) assert.deepEqual(t.options, ['fillfactor=50'], t.name);
      } finally {
        await h.close();
      }
    });
  });
});
