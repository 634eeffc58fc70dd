// The engine-specific statements printfarm db copy uses (storage/engines/): triggers suspended inside a transaction
// and back at its end (a rollback keeps them), identity high-water marks read and raised, never lowered; the same
// cases on SQLite and on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';
import { engineSql } from '../../src/storage/engines/engine-sql.js';
import { openPostgres } from '../../src/storage/open-postgres.js';
import { pgDatabaseForSuite, pgSkipReason } from '../helpers/pg-for-tests.js';

const NOW = '2026-11-26T12:00:00.000Z';

/** A table whose insert trigger logs each row into probe_log: the same behaviour written in each engine's dialect. */
const PROBE: Record<DbHandle['engine'], string[]> = {
  sqlite: [
    'CREATE TABLE probe (n INTEGER)',
    'CREATE TABLE probe_log (n INTEGER)',
    'CREATE TRIGGER probe_logged AFTER INSERT ON probe BEGIN INSERT INTO probe_log VALUES (NEW.n); END',
  ],
  postgres: [
    'CREATE TABLE probe (n BIGINT)',
    'CREATE TABLE probe_log (n BIGINT)',
    'CREATE FUNCTION probe_log_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO probe_log VALUES (NEW.n); RETURN NEW; END $$',
    'CREATE TRIGGER probe_logged AFTER INSERT ON probe FOR EACH ROW EXECUTE FUNCTION probe_log_row()',
  ],
};

function copyCases(name: string, open: () => Promise<DbHandle>): void {
  describe(`db copy engine SQL on ${name}`, () => {
    let handle: DbHandle;
    const logged = async () => (await sql<{ n: number }>`SELECT n FROM probe_log ORDER BY n`.execute(handle.db)).rows.map((r) => Number(r.n));
    const insert = (db: DbHandle['db'], n: number) => sql`INSERT INTO probe (n) VALUES (${n})`.execute(db);
    before(async () => {
      handle = await open();
      for (const statement of PROBE[handle.engine]) await sql.raw(statement).execute(handle.db);
    });
    after(() => handle?.close());

    it('suspendTriggers: rows written meanwhile derive nothing; resumed in the same transaction; a rollback keeps the triggers', async () => {
      const s = engineSql(handle.engine);
      await insert(handle.db, 1);
      await handle.db.transaction().execute(async (trx) => {
        const resume = await s.suspendTriggers(trx);
        await insert(trx, 2);
        await resume();
        await insert(trx, 3);
      });
      assert.deepEqual(await logged(), [1, 3]);
      await handle.db
        .transaction()
        .execute(async (trx) => {
          await s.suspendTriggers(trx);
          throw new Error('copy failed');
        })
        .catch(() => undefined);
      await insert(handle.db, 4);
      assert.deepEqual(await logged(), [1, 3, 4]);
    });

    it('identity high-water: raised to a copied value, never lowered, new rows follow it', async () => {
      const s = engineSql(handle.engine);
      const event = async (id: string) =>
        (await handle.db.insertInto('events').values({ id, type: 'x', created_at: NOW, created_ms: 1, body: '{}' }).returning('seq').executeTakeFirstOrThrow()).seq;
      await handle.db.transaction().execute((trx) => s.raiseIdentity(trx, 'events', 'seq', 40));
      assert.equal(await event('evt_a'), 41);
      await handle.db.transaction().execute((trx) => s.raiseIdentity(trx, 'events', 'seq', 10));
      assert.equal(await event('evt_b'), 42);
      assert.equal(await s.identityHighWater(handle.db, 'events', 'seq'), 42);
    });
  });
}

copyCases('SQLite', async () => openDatabase(':memory:', NOW));

describe('on PostgreSQL', { skip: pgSkipReason() }, () => {
  const url = pgDatabaseForSuite();
  copyCases('PostgreSQL', () => openPostgres(url(), NOW, { poolSize: 2 }));
});
