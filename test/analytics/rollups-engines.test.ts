// The roll-up triggers of migrations 009 and 013 keep the same rows on PostgreSQL as on SQLite: one seeded history
// (inserts, late usage rows, rewrites, requeues, deletes, printer changes) written to both, every roll-up table
// compared row by row; and `analytics rebuild` on PostgreSQL gives back those rows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { rebuildAnalyticsRollups } from '../../src/analytics/rollups-rebuild.js';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';
import { openPostgres } from '../../src/storage/open-postgres.js';
import { pgForTests, pgSkipReason, type PgForTests } from '../helpers/pg-for-tests.js';
import { seedHistory } from './random-history.js';
import { assertSameRollupRows, rollupRows, sameValue } from './rollup-rows.js';

const NOW = Date.parse('2026-02-10T12:00:00.000Z');
const HISTORY = { jobs: 3000, seed: 20261126, nowMs: NOW };

async function assertSameRollups(sqlite: DbHandle, pg: DbHandle): Promise<void> {
  assertSameRollupRows(await rollupRows(sqlite), await rollupRows(pg), ['SQLite', 'PostgreSQL']);
}

describe('roll-ups on PostgreSQL against SQLite', { skip: pgSkipReason() }, () => {
  let cluster: PgForTests;
  let database: { url: string; drop(): Promise<void> };
  let sqlite: DbHandle;
  let pg: DbHandle;

  before(async () => {
    cluster = await pgForTests();
    database = await cluster.createDatabase();
    const nowIso = new Date(NOW).toISOString();
    sqlite = openDatabase(':memory:', nowIso);
    pg = await openPostgres(database.url, nowIso);
    await seedHistory(sqlite.db, HISTORY);
    await seedHistory(pg.db, HISTORY);
  });
  after(async () => {
    await sqlite?.close();
    await pg?.close();
    await database?.drop();
    await cluster?.stop();
  });

  it('the triggers keep every roll-up row the same as on SQLite (and the jobs\' usage totals too)', async () => {
    await assertSameRollups(sqlite, pg);
    const totals = async (h: DbHandle) =>
      (await sql<{ id: string; usage_grams: number | null; usage_cost: number | null }>`SELECT id, usage_grams, usage_cost FROM jobs ORDER BY id`.execute(h.db)).rows;
    const [a, b] = [await totals(sqlite), await totals(pg)];
    assert.equal(b.length, a.length);
    a.forEach((row, i) => {
      assert.equal(b[i]!.id, row.id);
      assert.ok(sameValue(row.usage_grams, b[i]!.usage_grams) && sameValue(row.usage_cost, b[i]!.usage_cost), `usage totals of ${row.id}`);
    });
  });

  it('a rebuild on PostgreSQL fills the same rows as one on SQLite', async () => {
    // Rows the triggers emptied (all zero) stay until a rebuild: so both engines are rebuilt, the broken one included.
    await sql`DELETE FROM analytics_day WHERE printer_id = '*'`.execute(pg.db);
    await sql`UPDATE analytics_hour SET print_seconds = 0`.execute(pg.db);
    const [a, b] = [await rebuildAnalyticsRollups(sqlite.db), await rebuildAnalyticsRollups(pg.db)];
    assert.deepEqual(b, a);
    assert.ok(a.dayRows > 0 && a.hourRows > 0);
    await assertSameRollups(sqlite, pg);
  });
});
