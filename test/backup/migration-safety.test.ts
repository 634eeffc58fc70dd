// Opening a data directory safely: a backup before migrations, a failed migration changes nothing and names the way back,
// and after an unclean stop a damaged database refuses to start, naming the latest good backup and the restore command.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { DataDirDatabaseError, openDataDirDatabase } from '../../src/app/open-data-dir.js';
import { recordingLogger } from '../helpers/recording-logger.js';
import { silentLogger } from '../../src/logger.js';
import { startServer, StartupError } from '../../src/server.js';
import { openDatabase } from '../../src/storage/db.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { callServer } from '../helpers/running-server.js';
import { runCli, LISTENING } from '../cli/serve-harness.js';

const root = mkdtempSync(path.join(tmpdir(), 'printfarm-migration-safety-'));
after(() => rmSync(root, { recursive: true, force: true }));
const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);
const KNOWN = migrations.length;

/** A data directory whose database is at `version`, with one printer row to recognise it by. */
async function dataDirAt(name: string, version: number): Promise<string> {
  const dir = path.join(root, name);
  const handle = openDatabase(path.join(dir, 'printfarm.sqlite'), new Date(NOW).toISOString(), { migrations: migrations.slice(0, version) });
  handle.sqlite
    .prepare("INSERT INTO printers (id, name, connection_url, tags, ready, created_at, updated_at) VALUES ('prt_canary', 'Canary', 'sim://c', '[]', 1, '2026-01-01', '2026-01-01')")
    .run();
  await handle.close();
  return dir;
}

const backupsOf = (dir: string): string[] => (existsSync(path.join(dir, 'backups')) ? readdirSync(path.join(dir, 'backups')) : []);

describe('migrations', () => {
  it('a failed migration leaves the database as it was and names the backup taken before', async () => {
    const dir = await dataDirAt('failing', KNOWN);
    const logger = recordingLogger();
    const next = [
      ...migrations,
      { version: KNOWN + 1, name: 'fine-alone', sql: 'ALTER TABLE printers ADD COLUMN extra INTEGER;', pg: '-- this test is about the SQLite file' },
      { version: KNOWN + 2, name: 'throws', sql: "UPDATE printers SET name = 'changed'; INSERT INTO no_such_table VALUES (1);", pg: '-- this test is about the SQLite file' },
    ];
    await assert.rejects(openDataDirDatabase({ dataDir: dir, nowMs: NOW, logger, uncleanStop: false, migrations: next }), (err: Error) => {
      assert.ok(err instanceof DataDirDatabaseError);
      assert.match(err.message, new RegExp(`migration ${KNOWN + 2} \\(throws\\) failed: no such table: no_such_table`));
      assert.match(err.message, new RegExp(`still at schema version ${KNOWN}`));
      assert.match(err.message, /printfarm restore \S+\/backups\/pre-migration-v\d+-20260301T120000Z\.tar\.gz --data-dir \S+ --force/);
      return true;
    });
    assert.deepEqual(backupsOf(dir), [`pre-migration-v${KNOWN}-20260301T120000Z.tar.gz`]);
    assert.ok(logger.lines.some((l) => l.level === 'error' && String(l.fields?.restore_command).startsWith('printfarm restore ')));

    // Neither migration was kept: the version, the columns and the data are those of before.
    const handle = openDatabase(path.join(dir, 'printfarm.sqlite'));
    try {
      assert.equal((handle.sqlite.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number }).v, KNOWN);
      const columns = (handle.sqlite.pragma('table_info(printers)') as Array<{ name: string }>).map((c) => c.name);
      assert.equal(columns.includes('extra'), false);
      assert.equal((handle.sqlite.prepare("SELECT name FROM printers WHERE id = 'prt_canary'").get() as { name: string }).name, 'Canary');
    } finally {
      await handle.close();
    }
  });

  it('the start backs up an older database before migrating it, and a new or current one not at all', async () => {
    const dir = await dataDirAt('older', KNOWN - 1);
    const server = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir, env: 'live' }, { logger: silentLogger });
    await server.close();
    const taken = backupsOf(dir);
    assert.equal(taken.length, 1);
    assert.match(taken[0]!, new RegExp(`^pre-migration-v${KNOWN - 1}-\\d{8}T\\d{6}Z\\.tar\\.gz$`));
    assert.ok(statSync(path.join(dir, 'backups', taken[0]!)).size > 1000);

    const again = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir, env: 'live' }, { logger: silentLogger });
    await again.close();
    assert.equal(backupsOf(dir).length, 1, 'a current database is not backed up again');
    const fresh = path.join(root, 'fresh');
    const first = await startServer({ host: '127.0.0.1', port: 0, dataDir: fresh, env: 'live' }, { logger: silentLogger });
    await first.close();
    assert.deepEqual(backupsOf(fresh), []);
  });

  it('keeps the newest backup_keep pre-migration archives, like nightly ones, and never the nightly ones it does not own', async () => {
    const dir = await dataDirAt('pruned', KNOWN - 1);
    const sqlite = new BetterSqlite3(path.join(dir, 'printfarm.sqlite'));
    sqlite.prepare("INSERT INTO organization (id, name, backup_keep, created_at, updated_at) VALUES ('org_1', 'Farm', 3, '2026-01-01', '2026-01-01')").run();
    sqlite.close();
    mkdirSync(path.join(dir, 'backups'));
    const older = ['pre-migration-v5-20250101T000000Z.tar.gz', 'pre-migration-v7-20250201T000000Z.tar.gz', 'pre-migration-v9-20250301T000000Z.tar.gz', 'pre-migration-v12-20250401T000000Z.tar.gz'];
    for (const name of [...older, 'nightly-20250101T033000Z.tar.gz']) writeFileSync(path.join(dir, 'backups', name), 'old');
    const handle = await openDataDirDatabase({ dataDir: dir, nowMs: NOW, logger: silentLogger, uncleanStop: false });
    await handle.close();
    assert.deepEqual(backupsOf(dir).sort(), [
      'nightly-20250101T033000Z.tar.gz',
      'pre-migration-v12-20250401T000000Z.tar.gz',
      `pre-migration-v${KNOWN - 1}-20260301T120000Z.tar.gz`,
      'pre-migration-v9-20250301T000000Z.tar.gz',
    ]);
  });
});

/** Starts `printfarm serve` on `dir` and kills it with SIGKILL once it listens: an unclean stop. */
async function killedServe(dir: string): Promise<void> {
  const proc = runCli(['serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dir, '--no-mdns']);
  await proc.waitForOutput(LISTENING);
  proc.child.kill('SIGKILL');
  await proc.exited;
}

/** Overwrites everything after the first page with garbage, as a failing SD card might. */
function corrupt(file: string): void {
  const size = statSync(file).size;
  const fd = openSync(file, 'r+');
  try {
    const garbage = Buffer.alloc(size - 4096, 0x5a);
    writeSync(fd, garbage, 0, garbage.length, 4096);
  } finally {
    closeSync(fd);
  }
}

describe('after an unclean stop', () => {
  it('an intact database is checked and the server starts', async () => {
    const dir = path.join(root, 'killed-intact');
    await killedServe(dir);
    assert.ok(existsSync(path.join(dir, 'printfarm.pid')), 'SIGKILL leaves the pid file behind');
    const logger = recordingLogger();
    const server = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir, env: 'live' }, { logger });
    await server.close();
    assert.ok(logger.lines.some((l) => /quick_check passed after the unclean stop/.test(l.msg)));
    assert.equal(existsSync(path.join(dir, 'printfarm.pid')), false, 'a clean stop removes the mark');
  });

  it('a damaged database refuses to start, naming the latest good backup; its restore command brings the farm back', async () => {
    const dir = path.join(root, 'killed-damaged');
    // A first run makes the farm (and its key); a backup of it lands in backups/ as the nightly one would.
    const first = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir, env: 'live' }, { logger: silentLogger });
    const key = first.initialAdminKey!;
    await first.close();
    mkdirSync(path.join(dir, 'backups'));
    const backup = runCli(['backup', '--to', path.join(dir, 'backups', 'nightly-20260301T033000Z.tar.gz'), '--data-dir', dir]);
    assert.equal((await backup.exited).code, 0, backup.stderr());
    // A newer archive that is damaged is passed over.
    writeFileSync(path.join(dir, 'backups', 'nightly-20260302T033000Z.tar.gz'), 'not an archive');

    await killedServe(dir);
    corrupt(path.join(dir, 'printfarm.sqlite'));
    const good = path.join(dir, 'backups', 'nightly-20260301T033000Z.tar.gz');
    for (let attempt = 0; attempt < 2; attempt++) {
      // Twice: a refused start keeps the unclean mark, so the second start checks again instead of opening the damage.
      await assert.rejects(startServer({ host: '127.0.0.1', port: 0, dataDir: dir, env: 'live' }, { logger: silentLogger }), (err: Error) => {
        assert.ok(err instanceof StartupError);
        assert.match(err.message, /is damaged \(PRAGMA quick_check: /);
        assert.ok(err.message.includes(`the latest good backup is ${good}`), err.message);
        assert.ok(err.message.includes(`printfarm restore ${good} --data-dir ${dir} --force`), err.message);
        return true;
      });
    }

    const restored = runCli(['restore', good, '--data-dir', dir, '--force']);
    assert.equal((await restored.exited).code, 0, restored.stderr());
    const server = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir, env: 'live' }, { logger: silentLogger });
    try {
      assert.equal((await callServer(server, key, 'GET', '/v1/organization')).status, 200);
    } finally {
      await server.close();
    }
  });
});
