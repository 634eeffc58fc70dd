// Table checksums of db copy: independent of column and row order, changed by any changed, missing or extra row, and
// the same for values each engine hands back in its own form (bytes, -0).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../../src/storage/db.js';
import { canonicalRow, compareSums, tableSum } from '../../src/storage/table-checksums.js';

const PROBE = { name: 'probe', key: ['id'] };

it('canonical rows: column order and the form of bytes do not matter; types and values do', () => {
  const cases: Array<[Record<string, unknown>, Record<string, unknown>, boolean]> = [
    [{ a: 1, b: 'x' }, { b: 'x', a: 1 }, true],
    [{ a: Buffer.from('hi') }, { a: new Uint8Array([104, 105]) }, true],
    [{ a: -0 }, { a: 0 }, true],
    [{ a: 1 }, { a: '1' }, false],
    [{ a: null }, { a: '' }, false],
    [{ a: 0.1 + 0.2 }, { a: 0.3 }, false],
  ];
  for (const [x, y, same] of cases) assert.equal(canonicalRow(x) === canonicalRow(y), same, `${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
});

it('a table checksum ignores row order and batch size, and changes with any row', async () => {
  const sums = async (rows: Array<[string, number | null, Buffer | null]>, batch = 2) => {
    const h = openDatabase(':memory:');
    const db = h.db as unknown as Kysely<any>;
    await sql`CREATE TABLE probe (id TEXT PRIMARY KEY, v REAL, b BLOB)`.execute(db);
    for (const [id, v, b] of rows) await sql`INSERT INTO probe VALUES (${id}, ${v}, ${b})`.execute(db);
    const s = await tableSum(db, PROBE, batch);
    await h.close();
    return s;
  };
  const rows: Array<[string, number | null, Buffer | null]> = [
    ['a', 1.5, null],
    ['b', null, Buffer.from([0, 1, 2])],
    ['c', 3, Buffer.alloc(0)],
    ['d', -2.25, null],
    ['e', 0, null],
  ];
  const base = await sums(rows);
  assert.equal(base.rows, 5);
  assert.deepEqual(await sums([...rows].reverse(), 3), base);
  const changed = await sums(rows.map((r) => (r[0] === 'c' ? ['c', 3.0000001, r[2]] : r)));
  const missing = await sums(rows.slice(1));
  const extra = await sums([...rows, ['f', null, null]]);
  for (const other of [changed, missing, extra]) assert.notEqual(other.checksum, base.checksum);
  const checks = compareSums([base, { ...base, table: 'same' }], [changed, { ...base, table: 'same' }]);
  assert.deepEqual(checks.map((c) => [c.table, c.ok]), [['probe', false], ['same', true]]);
});
