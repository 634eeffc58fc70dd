// One archive restores onto either engine: a farm on PostgreSQL backed up (--with-files, the content from the database's
// chunks), restored onto SQLite, backed up there and restored onto a new PostgreSQL database: every table identical.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { runBackup } from '../../src/cli/backup.command.js';
import { runAnalyticsRebuild } from '../../src/cli/analytics.command.js';
import { runRestore, runSharedRestore } from '../../src/cli/restore.command.js';
import { DatabaseFileStore } from '../../src/files/database-file-store.js';
import { FileStore } from '../../src/files/file-store.js';
import { COPY_TABLES } from '../../src/storage/copy-tables.js';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';
import { openPostgres } from '../../src/storage/open-postgres.js';
import { silentLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';
import { callServer as call } from '../helpers/running-server.js';
import { tableSums } from '../../src/storage/table-checksums.js';
import { pgForSuite, pgSkipReason } from '../helpers/pg-for-tests.js';
import { farmOnPostgres } from './pg-farm-harness.js';

const root = mkdtempSync(path.join(tmpdir(), 'printfarm-engine-round-trip-'));
after(() => rmSync(root, { recursive: true, force: true }));
const dir = (name: string): string => path.join(root, name);

/** Every table's row count and checksum, by name (the same figure on both engines). */
async function sums(handle: DbHandle, skip: readonly string[] = []): Promise<Map<string, string>> {
  const tables = COPY_TABLES.filter((t) => !skip.includes(t.name));
  return new Map((await tableSums(handle.db as unknown as Kysely<any>, tables)).map((s) => [s.table, `${s.rows} ${s.checksum}`]));
}

describe('a backup restores onto either engine', { skip: pgSkipReason() }, () => {
  let origin: { url: string; drop(): Promise<void> };
  let again: { url: string; drop(): Promise<void> };
  let keyDir: string;
  let adminKey: string;
  // Registered before the cluster's own hooks: after hooks run in order, and the databases go before their cluster.
  after(async () => {
    await origin?.drop();
    await again?.drop();
  });
  const cluster = pgForSuite();
  before(async () => {
    origin = await cluster().createDatabase();
    again = await cluster().createDatabase();
    ({ dataDir: keyDir, key: adminKey } = await farmOnPostgres(origin.url, dir('origin')));
  });

  it('PostgreSQL → archive → SQLite → archive → PostgreSQL: jobs, roll-ups and every other table identical, the files too', async () => {
    const pg = await openPostgres(origin.url, undefined, { poolSize: 2 });
    let expected: Map<string, string>;
    let files: Array<{ sha256: string; size: number }>;
    try {
      expected = await sums(pg);
      files = (await pg.db.selectFrom('files').select(['sha256', 'size']).execute()).map((f) => ({ sha256: f.sha256, size: Number(f.size) }));
      assert.ok(files.length > 0);
      assert.match(expected.get('analytics_day')!, /^[1-9]\d* /, 'the seeded history has roll-ups');
      assert.match(expected.get('file_chunks')!, /^[1-9]\d* /, 'the file content is in the database');
    } finally {
      await pg.close();
    }

    // The key comes from the data directory the farm was moved from (its nodes' PRINTFARM_SECRET_KEY works the same).
    const first = path.join(root, 'from-postgres.tar.gz');
    const taken = await runBackup({ to: first, dataDir: keyDir, withFiles: true, databaseUrl: origin.url, filesDir: null });
    assert.deepEqual(taken.missingFiles, []);

    const onSqlite = dir('restored-sqlite');
    const onOneBox = await runRestore({ file: first, dataDir: onSqlite, force: false });
    // The printer created through the API belonged to the farm's node (the seeded ones to none yet).
    assert.equal(onOneBox.printersReleased, 1, 'the printers of the farm\'s node are handed to the box restored onto');
    const sqlite = openDatabase(path.join(onSqlite, 'printfarm.sqlite'));
    try {
      // Printers differ only in their node (cleared, checked below by a server that takes them).
      const got = await sums(sqlite, ['file_chunks', 'printers']);
      for (const [table, sum] of got) assert.equal(sum, expected.get(table), `${table} on SQLite`);
      assert.match(got.get('jobs')!, /^30\d /);
    } finally {
      await sqlite.close();
    }
    // On one box the content is a file of the data directory, as in a backup taken there.
    const local = new FileStore(onSqlite);
    for (const f of files) assert.ok(await local.hasContent(f.sha256, f.size), f.sha256);
    assert.ok(existsSync(path.join(onSqlite, 'secret.key')));

    const second = path.join(root, 'from-sqlite.tar.gz');
    await runBackup({ to: second, dataDir: onSqlite, withFiles: true });
    const back = await runSharedRestore({ file: second, dataDir: dir('restore-keys'), force: false, databaseUrl: again.url, filesDir: null });
    assert.equal(back.checks.every((c) => c.ok), true);
    assert.equal(back.files.copied, files.length);
    assert.equal(back.secretKey?.trim().length, 44);

    const pgAgain = await openPostgres(again.url, undefined, { poolSize: 2 });
    try {
      const got = await sums(pgAgain);
      // file_chunks too: the content went back into the database in the same pieces. The printers are the one box's
      // now (no node until the first node of the new farm starts and takes them), all else is as it was.
      for (const [table, sum] of got) if (table !== 'printers') assert.equal(sum, expected.get(table), `${table} on PostgreSQL again`);
      assert.equal(got.get('printers')!.split(' ')[0], expected.get('printers')!.split(' ')[0]);
      const store = new DatabaseFileStore(pgAgain.db, dir('scratch'), false);
      for (const f of files) assert.ok(await store.hasContent(f.sha256, f.size), f.sha256);
    } finally {
      await pgAgain.close();
    }

    // The box restored onto drives the farm's printers: a server started there owns every one of them.
    const server = await startServer({ host: '127.0.0.1', port: 0, dataDir: onSqlite, env: 'live', mdns: false, workers: 0 }, { logger: silentLogger, shutdownGraceMs: 500 });
    try {
      const list = await call(server, adminKey, 'GET', '/v1/printers?per_page=100');
      assert.equal(list.status, 200);
      const owners = (list.body.data as Array<{ node_id: string | null }>).map((p) => p.node_id);
      assert.deepEqual(owners, owners.map(() => server.deps.node.id));
    } finally {
      await server.close();
    }

    // `analytics rebuild --database`: the roll-ups recomputed from the restored jobs are the ones restored (to the last
    // bits of a float sum, which the order of additions changes: the triggers add job by job, the rebuild all at once).
    const rollups = async (url: string): Promise<Array<Record<string, unknown>>> => {
      const h = await openPostgres(url, undefined, { poolSize: 2 });
      try {
        return await h.db.selectFrom('analytics_day').selectAll().orderBy('day').orderBy('printer_id').execute();
      } finally {
        await h.close();
      }
    };
    const restored = await rollups(again.url);
    await runAnalyticsRebuild({ dataDir: dir('unused'), databaseUrl: again.url });
    const rebuilt = await rollups(again.url);
    assert.equal(rebuilt.length, restored.length);
    rebuilt.forEach((row, i) => {
      for (const [k, v] of Object.entries(row)) {
        const was = restored[i]![k];
        if (typeof v === 'number' && typeof was === 'number') assert.ok(Math.abs(v - was) <= 1e-9 * Math.max(1, Math.abs(was)), `${k}: ${v} vs ${was}`);
        else assert.equal(v, was, k);
      }
    });
  });

  it('restoring onto a database holding a farm is refused without --force, and under a running node even with it', async () => {
    const restore = (force: boolean) =>
      runSharedRestore({ file: path.join(root, 'from-sqlite.tar.gz'), dataDir: dir('restore-keys'), force, databaseUrl: origin.url, filesDir: null });
    await assert.rejects(restore(false), /already holds farm data .*add --force/);
    const pg = await openPostgres(origin.url, undefined, { poolSize: 1 });
    try {
      await pg.db.updateTable('nodes').set({ state: 'online', last_seen_at: new Date().toISOString() }).execute();
    } finally {
      await pg.close();
    }
    await assert.rejects(restore(true), /nodes are running on the target database .*stop every node before restoring/);
  });
});
