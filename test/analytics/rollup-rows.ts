// Roll-up rows read from either engine and compared key by key, double sums to 1e-9 relative (engines and triggers add in different orders).
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { DbHandle } from '../../src/storage/db.js';
import { ANALYTICS_ROLLUP_TABLES } from '../../src/storage/migrations/013-rollup-sql.js';

type Table = (typeof ANALYTICS_ROLLUP_TABLES)[number];

/** The key columns of each roll-up table (its primary key), so rows line up whatever order an engine returns. */
const KEYS: Record<Table, string[]> = {
  analytics_day: ['printer_id', 'day'],
  analytics_day_failure: ['printer_id', 'day', 'code'],
  analytics_day_material: ['printer_id', 'day', 'type', 'color', 'material_id'],
  analytics_hour: ['printer_id', 'hour'],
  analytics_hour_material: ['printer_id', 'hour', 'type'],
  analytics_long_jobs: ['job_id'],
  analytics_backward_jobs: ['job_id'],
};

type Row = Record<string, unknown>;
export type RollupRows = Record<Table, Map<string, Row>>;

async function rowsOf(h: DbHandle, table: Table): Promise<Map<string, Row>> {
  const r = await sql<Row>`SELECT * FROM ${sql.table(table)}`.execute(h.db);
  return new Map(r.rows.map((row) => [JSON.stringify(KEYS[table].map((k) => row[k])), row]));
}

/** Every roll-up table's rows by key. */
export async function rollupRows(h: DbHandle): Promise<RollupRows> {
  const out = {} as RollupRows;
  for (const table of ANALYTICS_ROLLUP_TABLES) out[table] = await rowsOf(h, table);
  return out;
}

/** Equal texts and integers; sums of doubles equal to 1e-9 relative. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  return a === b;
}

/** The same keys in every table and the same values in every row; `nonEmpty` tables must hold rows. */
export function assertSameRollupRows(expected: RollupRows, actual: RollupRows, labels: [string, string], nonEmpty: readonly Table[] = ANALYTICS_ROLLUP_TABLES): void {
  for (const table of ANALYTICS_ROLLUP_TABLES) {
    const [a, b] = [expected[table], actual[table]];
    if (nonEmpty.includes(table)) assert.ok(a.size > 0, `${table} holds rows (${labels[0]})`);
    assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort(), `${table}: the same keys`);
    for (const [key, row] of a) {
      const other = b.get(key)!;
      for (const column of Object.keys(row)) {
        assert.ok(sameValue(row[column], other[column]), `${table} ${key} ${column}: ${labels[0]} ${row[column]}, ${labels[1]} ${other[column]}`);
      }
    }
  }
}
