// The engine-specific statements (storage/engines/): one table of cases run on SQLite and on PostgreSQL, with the same
// answers; and on PostgreSQL, event-writing transactions commit in seq order.
import assert from 'node:assert/strict';
import { before, after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';
import { engineSqlOf } from '../../src/storage/engines/engine-sql.js';
import { describeOnPostgres } from '../helpers/pg-suite.js';

const NOW = '2026-11-26T12:00:00.000Z';

const ROUND_CASES: Array<[number, number, number]> = [
  [1.23456, 2, 1.23],
  [2.5, 0, 3],
  [-2.5, 0, -3],
  [999.995, 1, 1000],
  [0.125, 2, 0.13],
];

async function seedSpools(h: DbHandle): Promise<void> {
  await sql`CREATE TEMPORARY TABLE spools (id TEXT, tool INTEGER, weight REAL)`.execute(h.db);
  await sql`INSERT INTO spools VALUES ('b', 2, 10.456), ('a', 0, 999.999), ('c', 1, NULL)`.execute(h.db);
}

function engineCases(name: string, open: () => Promise<{ handle: DbHandle; done(): Promise<void> }>): void {
  describe(`engine SQL on ${name}`, () => {
    let handle: DbHandle;
    let done: () => Promise<void>;
    before(async () => {
      ({ handle, done } = await open());
      await seedSpools(handle);
    });
    after(() => done?.());

    it('roundTo rounds half away from zero to the given decimals', async () => {
      const s = engineSqlOf(handle.db);
      for (const [value, digits, expected] of ROUND_CASES) {
        const r = await sql<{ v: number }>`SELECT ${s.roundTo(sql`${value}`, digits)} AS v`.execute(handle.db);
        assert.equal(r.rows[0]?.v, expected, `round(${value}, ${digits})`);
      }
    });

    it('jsonArrayOfObjects: one object per row in the given order, [] when none', async () => {
      const s = engineSqlOf(handle.db);
      const array = (where: string) =>
        s.jsonArrayOfObjects(
          [
            ['id', sql.ref('x.id')],
            ['tool', sql.ref('x.tool')],
            ['weight', s.roundTo(sql.ref('x.weight'), 1)],
          ],
          sql`select * from spools where ${sql.raw(where)}`,
          'x',
          sql.ref('x.tool'),
        );
      const all = await sql<{ v: string }>`SELECT ${array('1 = 1')} AS v`.execute(handle.db);
      assert.deepEqual(JSON.parse(all.rows[0]!.v), [
        { id: 'a', tool: 0, weight: 1000 },
        { id: 'c', tool: 1, weight: null },
        { id: 'b', tool: 2, weight: 10.5 },
      ]);
      const none = await sql<{ v: string }>`SELECT ${array('1 = 0')} AS v`.execute(handle.db);
      assert.equal(none.rows[0]!.v, '[]');
    });

    it('epochMs is Date.parse of an ISO text, greatest the larger value', async () => {
      const s = engineSqlOf(handle.db);
      for (const iso of ['2026-11-26T12:00:00.000Z', '1999-12-31T23:59:59.999Z', '2026-03-29T01:30:00.001Z', '1970-01-01T00:00:00.000Z']) {
        const r = await sql<{ v: number }>`SELECT ${s.epochMs(sql`${iso}`)} AS v`.execute(handle.db);
        assert.equal(Number(r.rows[0]?.v), Date.parse(iso), iso);
      }
      // Typed numbers (PostgreSQL would compare untyped parameters as text).
      const real = (x: number) => sql`CAST(${x} AS REAL)`;
      for (const [a, b, expected] of [[1, 2, 2], [-3.5, -4, -3.5], [0, 0, 0]] as const) {
        const r = await sql<{ v: number }>`SELECT ${s.greatest(real(a), real(b))} AS v`.execute(handle.db);
        assert.equal(Number(r.rows[0]?.v), expected, `greatest(${a}, ${b})`);
      }
    });

    it('jsonArrayHas matches a whole element, ASCII letters in either case (quotes and wildcards are plain text)', async () => {
      const s = engineSqlOf(handle.db);
      const cases: Array<[string[], string, boolean]> = [
        [['red', 'blue'], 'red', true],
        [['red', 'blue'], 'Red', true],
        [['Fast-PLA', 'blue'], 'fast-pla', true],
        [['BLUE'], 'blue', true],
        // Only ASCII letters fold: 'É' and 'é' stay apart, on both engines.
        [['éclair'], 'Éclair', false],
        [['Éclair'], 'Éclair', true],
        [['ß'], 'SS', false],
        [['red', 'blue'], 're', false],
        [['x"a'], 'a', false],
        [['50%_off'], '50%_off', true],
        [['50%_off'], '50%', false],
        [[], 'red', false],
      ];
      for (const [array, value, expected] of cases) {
        const r = await sql<{ v: number | boolean }>`SELECT CASE WHEN ${s.jsonArrayHas(sql`${JSON.stringify(array)}`, value)} THEN 1 ELSE 0 END AS v`.execute(handle.db);
        assert.equal(Number(r.rows[0]?.v), expected ? 1 : 0, `${JSON.stringify(array)} has ${value}`);
      }
    });

    it('equalsIgnoringCase finds a user whatever the case of the address', async () => {
      const s = engineSqlOf(handle.db);
      await handle.db
        .insertInto('users')
        .values({ id: `usr_${name}`, email: 'Ada@Example.org', name: 'Ada', role: 'admin', status: 'active', created_at: NOW, updated_at: NOW })
        .execute();
      for (const [email, found] of [['ada@example.org', true], ['ADA@EXAMPLE.ORG', true], ['ada@example.com', false]] as const) {
        const r = await handle.db.selectFrom('users').select('id').where(s.equalsIgnoringCase(sql.ref('email'), email)).execute();
        assert.equal(r.length, found ? 1 : 0, email);
      }
    });

    it('lockEventOrder can be taken in a transaction that records events', async () => {
      const s = engineSqlOf(handle.db);
      assert.equal(s.engine, handle.engine);
      const seq = await handle.db.transaction().execute(async (trx) => {
        await s.lockEventOrder(trx);
        return (await trx.insertInto('events').values({ id: `evt_${name}`, type: 'x', created_at: NOW, created_ms: 1, body: '{}' }).returning('seq').executeTakeFirstOrThrow()).seq;
      });
      assert.equal(typeof seq, 'number');
    });
  });
}

engineCases('SQLite', async () => {
  const handle = openDatabase(':memory:', NOW);
  return { handle, done: () => handle.close() };
});

describeOnPostgres('on PostgreSQL', NOW, (open) => {
  engineCases('PostgreSQL', async () => {
    // Temporary tables live in one connection: a pool of one keeps the seeded table visible to every statement.
    const handle = await open({ poolSize: 1 });
    return { handle, done: () => handle.close() };
  });

  it('event-writing transactions commit in seq order: a later seq waits for an earlier one to commit', async () => {
    const handle = await open({ poolSize: 4 });
    try {
      const s = engineSqlOf(handle.db);
      const order: string[] = [];
      let firstHasSeq!: () => void;
      const firstInserted = new Promise<void>((resolve) => (firstHasSeq = resolve));
      const insert = (trx: typeof handle.db, id: string) =>
        trx.insertInto('events').values({ id, type: 'x', created_at: NOW, created_ms: 1, body: '{}' }).returning('seq').executeTakeFirstOrThrow();
      const first = handle.db.transaction().execute(async (trx) => {
        await s.lockEventOrder(trx);
        const r = await insert(trx, 'evt_first');
        firstHasSeq();
        // Holds its seq, uncommitted, while the second transaction tries to record.
        await new Promise((resolve) => setTimeout(resolve, 300));
        order.push('first committed');
        return r.seq;
      });
      await firstInserted;
      const second = handle.db.transaction().execute(async (trx) => {
        await s.lockEventOrder(trx);
        const r = await insert(trx, 'evt_second');
        order.push('second committed');
        return r.seq;
      });
      const [a, b] = await Promise.all([first, second]);
      assert.ok(a < b, `seq ${a} before ${b}`);
      assert.deepEqual(order, ['first committed', 'second committed']);
    } finally {
      await handle.close();
    }
  });
});
