// A lost race on a UNIQUE index is recognized from either engine's error, by table and column.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';
import { isUniqueViolation } from '../../src/storage/engines/unique-violation.js';
import { describeOnPostgres } from '../helpers/pg-suite.js';

const NOW = '2026-11-26T12:00:00.000Z';

async function errorOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (err) {
    return err;
  }
  assert.fail('the write was expected to fail');
}

function cases(name: string, open: () => Promise<{ handle: DbHandle; done(): Promise<void> }>): void {
  describe(`unique violations on ${name}`, () => {
    let handle: DbHandle;
    let done: () => Promise<void>;
    before(async () => ({ handle, done } = await open()));
    after(() => done?.());

    it('an address taken in another case: users.email, not another column or table', async () => {
      const user = (id: string, email: string) => ({ id, email, name: id, role: 'admin' as const, status: 'active' as const, created_at: NOW, updated_at: NOW });
      await handle.db.insertInto('users').values(user('usr_1', 'a@example.org')).execute();
      const err = await errorOf(handle.db.insertInto('users').values(user('usr_2', 'A@example.org')).execute());
      assert.equal(isUniqueViolation(err, 'users', 'email'), true);
      assert.equal(isUniqueViolation(err, 'users'), true);
      assert.equal(isUniqueViolation(err, 'users', 'name'), false);
      assert.equal(isUniqueViolation(err, 'printers', 'email'), false);
    });

    it('a primary key taken, and errors that are no unique violation', async () => {
      const err = await errorOf(
        handle.db.insertInto('users').values({ id: 'usr_1', email: 'b@example.org', name: 'b', role: 'admin', status: 'active', created_at: NOW, updated_at: NOW }).execute(),
      );
      assert.equal(isUniqueViolation(err, 'users', 'id'), true);
      const notUnique = await errorOf(handle.db.insertInto('users').values({ id: 'usr_3', email: 'c@example.org', name: 'c', role: 'nobody', status: 'active', created_at: NOW, updated_at: NOW } as never).execute());
      assert.equal(isUniqueViolation(notUnique, 'users'), false);
      assert.equal(isUniqueViolation(new Error('UNIQUE constraint failed: users.email'), 'users'), false);
      assert.equal(isUniqueViolation(null, 'users'), false);
    });
  });
}

cases('SQLite', async () => {
  const handle = openDatabase(':memory:', NOW);
  return { handle, done: () => handle.close() };
});

describeOnPostgres('on PostgreSQL', NOW, (open) =>
  cases('PostgreSQL', async () => {
    const handle = await open();
    return { handle, done: () => handle.close() };
  }),
);
