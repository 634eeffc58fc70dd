// The roll-up triggers of migrations 009 and 013 keep the same rows on PostgreSQL as on SQLite: one seeded history
// (inserts, late usage rows, rewrites, requeues, deletes, printer changes) written to both, every roll-up table
// compared row by row; and `analytics rebuild` on PostgreSQL gives back those rows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { rebuildAnalyticsRollups } from '../../src/analytics/rollups-rebuild.js';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';
import { ANALYTICS_ROLLUP_TABLES } from '../../src/storage/migrations/013-rollup-sql.js';
import { openPostgres } from '../../src/storage/open-postgres.js';
import { pgForTests, pgSkipReason, type PgForTests } from '../helpers/pg-for-tests.js';
import { seedHistory } from './random-history.js';

const NOW = Date.parse('2026-02-10T12:00:00.000Z');
const HISTORY = { jobs: 3000, seed: 20261126, nowMs: NOW };

/** The key columns of each roll-up table (its primary key), so rows line up whatever order an engine returns. */
const KEYS: Record<(typeof ANALYTICS_ROLLUP_TABLES)[number], string[]> = {
  analytics_day: ['printer_id', 'day'],
  analytics_day_failure: ['printer_id', 'day', 'code'],
  analytics_day_material: ['printer_id', 'day', 'type', 'color', 'material_id'],
  analytics_hour: ['printer_id', 'hour'],
  analytics_hour_material: ['printer_id', 'hour', 'type'],
  analytics_long_jobs: ['job_id'],
  analytics_backward_jobs: ['job_id'],
};

type Row = Record<string, unknown>;

async function rowsOf(h: DbHandle, table: keyof typeof KEYS): Promise<Map<string, Row>> {
  const r = await sql<Row>`SELECT * FROM ${sql.table(table)}`.execute(h.db);
  return new Map(r.rows.map((row) => [JSON.stringify(KEYS[table].map((k) => row[k])), row]));
}

/** Equal texts and integers; sums of doubles equal to 1e-9 relative (the engines add in different orders). */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  return a === b;
}

async function assertSameRollups(sqlite: DbHandle, pg: DbHandle): Promise<void> {
  for (const table of ANALYTICS_ROLLUP_TABLES) {
    const [a, b] = [await rowsOf(sqlite, table), await rowsOf(pg, table)];
    assert.ok(a.size > 0, `${table} holds rows on SQLite`);
    assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort(), `${table}: the same keys`);
    for (const [key, row] of a) {
      const other = b.get(key)!;
      for (const column of Object.keys(row)) {
        assert.ok(sameValue(row[column], other[column]), `${table} ${key} ${column}: SQLite ${row[column]}, PostgreSQL ${other[column]}`);
      }
    }
  }
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
