// A server started with a PostgreSQL URL: it migrates the database, answers with its data, keeps no SQLite file in
// the data directory and takes no nightly backup; a restart on the same database finds everything there.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';
import { DATABASE_FILE } from '../../src/storage/db.js';
import { pgForSuite, pgSkipReason } from '../helpers/pg-for-tests.js';

describe('printfarm serve --database postgres://…', { skip: pgSkipReason() }, () => {
  const cluster = pgForSuite();

  it('serves from PostgreSQL, and a restart finds the same data', async () => {
    const db = await cluster().createDatabase();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'printfarm-pg-serve-'));
    const settings = { host: '127.0.0.1', port: 0, dataDir, env: 'live' as const, databaseUrl: db.url, mdns: false, workers: 0 };
    try {
      const first = await startServer(settings, { logger: silentLogger });
      let key: string;
      try {
        assert.equal(first.deps.db.getExecutor().adapter.constructor.name, 'PostgresAdapter');
        assert.equal((await fetch(`${first.url}/healthz`)).status, 200);
        key = first.initialAdminKey!;
        assert.match(key, /^svc_live_/);
        const created = await fetch(`${first.url}/v1/api-keys`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'kept', scopes: ['jobs:read'] }),
        });
        assert.equal(created.status, 201);
      } finally {
        await first.close();
      }
      assert.equal(existsSync(path.join(dataDir, DATABASE_FILE)), false, 'no SQLite file beside a PostgreSQL farm');

      const second = await startServer(settings, { logger: silentLogger });
      try {
        assert.equal(second.initialAdminKey, null, 'the database already has its admin');
        const list = await fetch(`${second.url}/v1/api-keys`, { headers: { Authorization: `Bearer ${key}` } });
        assert.equal(list.status, 200);
        const names = ((await list.json()) as { keys: Array<{ name: string }> }).keys.map((k) => k.name);
        assert.ok(names.includes('kept'), names.join(', '));
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      await db.drop();
    }
  });
});
