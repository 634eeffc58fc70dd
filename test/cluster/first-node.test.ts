// Several nodes starting at once on one new database: exactly one wins the identity row and creates the organization
// and the first admin key; the others find them; a node with another key is refused.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureInitialAdmin, INITIAL_ADMIN_KEY_FILE } from '../../src/auth/bootstrap.js';
import { ManualClock } from '../../src/clock.js';
import { claimDatabaseIdentity, SecretKeyMismatchError } from '../../src/cluster/database-identity.js';
import { newId } from '../../src/ids.js';
import { SecretBox } from '../../src/printers/secret-box.js';
import { DATABASE_FILE, openDatabase } from '../../src/storage/db.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(path.join(tmpdir(), 'pf-first-node-'));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('first node on a shared database', () => {
  it('creates one organization and one admin key when four nodes bootstrap at once', async () => {
    const shared = tempDir();
    const file = path.join(shared, DATABASE_FILE);
    const clock = new ManualClock();
    const secrets = SecretBox.ephemeral();
    // Opened one after the other (the migration runs once); the bootstraps below run concurrently.
    const nodes = [0, 1, 2, 3].map(() => ({ handle: openDatabase(file), dataDir: tempDir(), id: newId('nod') }));
    try {
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
    } finally {
      for (const n of nodes) await n.handle.close();
    }
  });

  it('refuses a node whose key differs, naming PRINTFARM_SECRET_KEY', async () => {
    const handle = openDatabase(':memory:');
    try {
      await claimDatabaseIdentity(handle.db, { secretKeyCheck: SecretBox.ephemeral().identityCheck(), nodeId: 'nod_a', nowIso: '2026-01-01T00:00:00.000Z' });
      await assert.rejects(
        claimDatabaseIdentity(handle.db, { secretKeyCheck: SecretBox.ephemeral().identityCheck(), nodeId: 'nod_b', nowIso: '2026-01-01T00:00:00.000Z' }),
        (err: Error) => err instanceof SecretKeyMismatchError && /PRINTFARM_SECRET_KEY/.test(err.message) && /nod_a/.test(err.message),
      );
    } finally {
      await handle.close();
    }
  });
});
