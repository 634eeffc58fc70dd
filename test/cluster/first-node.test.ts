// Several nodes starting at once on one new database: exactly one wins the identity row and creates the organization
// and the first admin key; the others find them; a node with another key is refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureInitialAdmin, INITIAL_ADMIN_KEY_FILE } from '../../src/auth/bootstrap.js';
import { ManualClock } from '../../src/clock.js';
import { claimDatabaseIdentity, SecretKeyMismatchError } from '../../src/cluster/database-identity.js';
import { newId } from '../../src/ids.js';
import { SecretBox } from '../../src/printers/secret-box.js';
import { DATABASE_FILE, openDatabase, type DbHandle } from '../../src/storage/db.js';
import { openPostgres } from '../../src/storage/open-postgres.js';
import { pgForSuite, pgSkipReason } from '../helpers/pg-for-tests.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(path.join(tmpdir(), 'pf-first-node-'));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Four nodes bootstrapping at once on one database: one organization, one admin key, one key file, one identity row. */
async function concurrentFirstStarts(handles: DbHandle[]): Promise<void> {
  const clock = new ManualClock();
  const secrets = SecretBox.ephemeral();
  const nodes = handles.map((handle) => ({ handle, dataDir: tempDir(), id: newId('nod') }));
  const keys = await Promise.all(
    nodes.map(async (n) => {
      const claim = await claimDatabaseIdentity(n.handle.db, { secretKeyCheck: secrets.identityCheck(), nodeId: n.id, nowIso: new Date(clock.now()).toISOString() });
      return ensureInitialAdmin({ db: n.handle.db, clock, env: 'live' }, n.dataDir, { initializes: claim.first || claim.createdBy === n.id });
    }),
  );
  assert.equal(keys.filter((k) => k !== null).length, 1, 'exactly one node minted the first admin key');
  assert.equal(nodes.filter((n) => existsSync(path.join(n.dataDir, INITIAL_ADMIN_KEY_FILE))).length, 1, 'one key file');
  const db = nodes[0]!.handle.db;
  assert.equal((await db.selectFrom('organization').select('id').execute()).length, 1);
  assert.equal((await db.selectFrom('api_keys').select('id').execute()).length, 1);
  const identity = await db.selectFrom('database_identity').selectAll().execute();
  assert.equal(identity.length, 1);
  const winner = nodes[keys.findIndex((k) => k !== null)]!;
  assert.equal(identity[0]!.created_by_node, winner.id);

  // Started again later, the winner does not mint a second key either (the organization is there).
  const again = await claimDatabaseIdentity(winner.handle.db, { secretKeyCheck: secrets.identityCheck(), nodeId: winner.id, nowIso: '2026-01-01T00:00:00.000Z' });
  assert.deepEqual(again, { first: false, createdBy: winner.id });
  assert.equal(await ensureInitialAdmin({ db, clock, env: 'live' }, winner.dataDir, { initializes: true }), null);

  // A node started with another key is refused, naming the variable and the node that initialized the database.
  await assert.rejects(
    claimDatabaseIdentity(db, { secretKeyCheck: SecretBox.ephemeral().identityCheck(), nodeId: newId('nod'), nowIso: '2026-01-01T00:00:00.000Z' }),
    (err: Error) => err instanceof SecretKeyMismatchError && /PRINTFARM_SECRET_KEY/.test(err.message) && err.message.includes(winner.id),
  );
}

describe('first node on a shared SQLite file', () => {
  it('creates one organization and one admin key when four nodes bootstrap at once; another key is refused', async () => {
    const file = path.join(tempDir(), DATABASE_FILE);
    // Opened one after the other (the migration runs once); the bootstraps run concurrently.
    const handles = [0, 1, 2, 3].map(() => openDatabase(file));
    try {
      await concurrentFirstStarts(handles);
    } finally {
      for (const h of handles) await h.close();
    }
  });
});

describe('first node on a shared PostgreSQL database', { skip: pgSkipReason() }, () => {
  const cluster = pgForSuite();

  it('creates one organization and one admin key when four nodes bootstrap at once; another key is refused', async () => {
    const database = await cluster().createDatabase();
    // Four pools opened at once: the migrations run once under the advisory lock.
    const handles = await Promise.all([0, 1, 2, 3].map(() => openPostgres(database.url)));
    try {
      await concurrentFirstStarts(handles);
    } finally {
      for (const h of handles) await h.close();
      await database.drop();
    }
  });
});
