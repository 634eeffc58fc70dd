// First start (owner, admin:* key, 0600 key file, never twice), offline minting, `printfarm keys create`, no escalation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApiKey, verifyApiKey } from '../../src/auth/api-keys.service.js';
import { ensureInitialAdmin, INITIAL_ADMIN_KEY_FILE, mintKeyOffline } from '../../src/auth/bootstrap.js';
import { ManualClock } from '../../src/clock.js';
import { parseKeysCreateArgs, runKeysCreate } from '../../src/cli/keys.command.js';
import { CliUsageError } from '../../src/cli/command.js';
import { AppError } from '../../src/errors.js';
import { DATABASE_FILE, openDatabase, type DbHandle } from '../../src/storage/db.js';
import { sqliteOf } from '../helpers/test-database.js';
import { pgForSuite, pgSkipReason } from '../helpers/pg-for-tests.js';
import { openPostgres } from '../../src/storage/open-postgres.js';

describe('first start', () => {
  let dir: string;
  let handle: DbHandle;
  const clock = new ManualClock();
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'pf-boot-'));
    handle = openDatabase(path.join(dir, DATABASE_FILE));
  });
  after(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the organization, the owner and an admin:* key, and writes the key to a 0600 file', async () => {
    const deps = { db: handle.db, clock, env: 'live' as const };
    const key = await ensureInitialAdmin(deps, dir);
    assert.ok(key);
    assert.match(key, /^svc_live_[0-9A-Za-z]{32,}$/);
    const file = path.join(dir, INITIAL_ADMIN_KEY_FILE);
    assert.equal(readFileSync(file, 'utf8'), `${key}\n`);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const auth = await verifyApiKey(deps, key);
    assert.deepEqual(auth.scopes, ['admin:*']);
    const users = sqliteOf(handle).prepare('SELECT role, status, id FROM users').all() as { role: string; status: string; id: string }[];
    assert.equal(users.length, 1);
    assert.equal(users[0]?.role, 'owner');
    assert.equal(auth.userId, users[0]?.id);
    const org = sqliteOf(handle).prepare('SELECT name FROM organization').all() as { name: string }[];
    assert.deepEqual(org, [{ name: 'My print farm' }]);
    assert.ok(!readdirSync(dir).some((n) => n.endsWith('.tmp')), 'no temporary file left behind');
  });

  it('later starts create nothing, even when the key file was deleted', async () => {
    rmSync(path.join(dir, INITIAL_ADMIN_KEY_FILE));
    assert.equal(await ensureInitialAdmin({ db: handle.db, clock, env: 'live' }, dir), null);
    assert.equal(existsSync(path.join(dir, INITIAL_ADMIN_KEY_FILE)), false);
    assert.equal((sqliteOf(handle).prepare('SELECT COUNT(*) AS n FROM api_keys').get() as { n: number }).n, 1);
    assert.equal((sqliteOf(handle).prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n, 1);
  });

  it('a key file that cannot be written leaves the database empty, so a retry still bootstraps', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'pf-boot2-'));
    const h = openDatabase(':memory:');
    try {
      const missingDir = path.join(other, 'does-not-exist');
      await assert.rejects(ensureInitialAdmin({ db: h.db, clock, env: 'live' }, missingDir));
      assert.equal((h.sqlite.prepare('SELECT COUNT(*) AS n FROM organization').get() as { n: number }).n, 0);
      assert.ok(await ensureInitialAdmin({ db: h.db, clock, env: 'live' }, other));
    } finally {
      await h.close();
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('minting', () => {
  it('mintKeyOffline grants any known scopes and refuses unknown ones with 400', async () => {
    const h = openDatabase(':memory:');
    try {
      const deps = { db: h.db, clock: new ManualClock(), env: 'dev' as const };
      const { key, record } = await mintKeyOffline(deps, { name: 'ops', scopes: ['printers:*', 'jobs:read'] });
      assert.match(key, /^svc_dev_/);
      assert.deepEqual(record.scopes, ['printers:*', 'jobs:read']);
      await assert.rejects(mintKeyOffline(deps, { name: 'x', scopes: ['root'] }), (e: AppError) => e.status === 400 && /unknown scope "root"/.test(e.message));
    } finally {
      await h.close();
    }
  });

  it('no escalation: a minter can only grant scopes its own scopes cover (403 naming the scope)', async () => {
    const h = openDatabase(':memory:');
    try {
      const deps = { db: h.db, clock: new ManualClock(), env: 'live' as const };
      const minter = { scopes: ['jobs:*', 'printers:read'], keyId: null, userId: null };
      const ok = await createApiKey(deps, minter, { name: 'narrower', scopes: ['jobs:read', 'jobs:*', 'printers:read'] });
      assert.match(ok.key, /^svc_live_/);
      for (const [scopes, missing] of [
        [['printers:write'], 'printers:write'],
        [['printers:*'], 'printers:*'],
        [['jobs:read', 'admin:*'], 'admin:*'],
      ] as const) {
        await assert.rejects(
          createApiKey(deps, minter, { name: 'broader', scopes }),
          (e: AppError) => e.status === 403 && e.code === 'insufficient_permissions' && e.message.includes(`missing scope: ${missing}`),
        );
      }
    } finally {
      await h.close();
    }
  });
});

describe('printfarm keys create', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'pf-keys-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('parses flags and refuses bad ones before touching anything', () => {
    const parsed = parseKeysCreateArgs(['--name', 'recovery', '--scopes', 'admin:*', '--data-dir', dir, '--env', 'test'], {});
    assert.deepEqual(parsed, { name: 'recovery', scopes: ['admin:*'], dataDir: dir, databaseUrl: null, env: 'test' });
    const bad: [string[], RegExp][] = [
      [['--scopes', 'admin:*'], /--name is required/],
      [['--name', 'x'], /--scopes is required/],
      [['--name', 'x', '--scopes', ' , '], /at least one scope/],
      [['--name', 'x', '--scopes', 'jobs:read,jobs:nuke'], /unknown scope "jobs:nuke"/],
      [['--name', 'x', '--scopes', 'admin:*', '--env', 'prod'], /invalid --env "prod"/],
      [['--name', 'x', '--scopes', 'admin:*', '--colour', 'red'], /Unknown option '--colour'/],
      [['--name', 'x'.repeat(101), '--scopes', 'admin:*'], /at most 100/],
    ];
    for (const [args, message] of bad) {
      assert.throws(() => parseKeysCreateArgs(args, {}), (e: Error) => e instanceof CliUsageError && message.test(e.message), args.join(' '));
    }
  });

  it('mints a key into an existing data directory that a server of that environment accepts', async () => {
    const file = path.join(dir, DATABASE_FILE);
    const first = openDatabase(file);
    const clock = new ManualClock();
    await ensureInitialAdmin({ db: first.db, clock, env: 'live' }, dir);
    await first.close();

    const key = await runKeysCreate(parseKeysCreateArgs(['--name', 'recovery', '--scopes', 'printers:read,jobs:*', '--data-dir', dir], {}), clock);
    const h = openDatabase(file);
    try {
      const auth = await verifyApiKey({ db: h.db, clock, env: 'live' }, key);
      assert.deepEqual(auth.scopes, ['printers:read', 'jobs:*']);
      assert.equal(auth.keyName, 'recovery');
    } finally {
      await h.close();
    }
  });

  it('refuses a data directory without a database (a mistyped --data-dir)', async () => {
    const empty = path.join(dir, 'typo');
    await assert.rejects(runKeysCreate(parseKeysCreateArgs(['--name', 'x', '--scopes', 'admin:*', '--data-dir', empty], {})), /no database at/);
    assert.equal(existsSync(path.join(empty, DATABASE_FILE)), false);
  });
});

describe('printfarm keys create on a PostgreSQL farm', { skip: pgSkipReason() }, () => {
  const cluster = pgForSuite();

  it('--database mints the key into the shared database, not into a SQLite file of the data directory', async () => {
    const db = await cluster().createDatabase();
    const dir = mkdtempSync(path.join(tmpdir(), 'printfarm-keys-pg-'));
    try {
      const clock = new ManualClock();
      const key = await runKeysCreate(parseKeysCreateArgs(['--name', 'recovery', '--scopes', 'admin:*', '--data-dir', dir], { PRINTFARM_DATABASE_URL: db.url }), clock);
      assert.equal(existsSync(path.join(dir, DATABASE_FILE)), false, 'no SQLite file made');
      const h = await openPostgres(db.url);
      try {
        assert.equal((await verifyApiKey({ db: h.db, clock, env: 'live' }, key)).keyName, 'recovery');
      } finally {
        await h.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await db.drop();
    }
  });
});
