// `printfarm db copy` as a real process: a farm with history (jobs, usage, events, deliveries, materials, analytics,
// a stored file) moves SQLite → SQLite and SQLite → PostgreSQL → SQLite; every table's count and checksum agree, the
// copied farm answers the same and prints a file stored before the move; a non-empty target and a damaged source are
// refused clearly.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { seedJobHistory } from '../../scripts/seed-job-history.js';
import { silentLogger } from '../../src/logger.js';
import { startServer, type RunningServer, type ServerSettings } from '../../src/server.js';
import { COPY_TABLES } from '../../src/storage/copy-tables.js';
import { openDatabase } from '../../src/storage/db.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { FileStore } from '../../src/files/file-store.js';
import { gcode } from '../jobs/jobs-harness.js';
import { pgUnavailableReason, startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { callServer as call, pollUntil as until } from '../helpers/running-server.js';
import { fastSim } from '../printers/printers-api-harness.js';
import { runCli, tempDir } from './serve-harness.js';

interface Farm {
  dataDir: string;
  key: string;
  printerId: string;
  /** A job queued before the move, waiting for the printer's ready action: it prints the stored file after the move. */
  waitingJob: string;
}

const settings = (dataDir: string, databaseUrl: string | null = null): ServerSettings => ({ host: '127.0.0.1', port: 0, dataDir, env: 'live', mdns: false, workers: 0, databaseUrl });

async function upload(server: RunningServer, key: string, content: string, printerId: string): Promise<string> {
  const form = new FormData();
  form.append('printer_id', printerId);
  form.append('file', new Blob([content]), 'part.gcode');
  const res = await fetch(`${server.url}/v1/jobs`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { data: { id: string } }).data.id;
}

/** A farm run through its own API, plus a seeded year of finished jobs with usage (the roll-ups fill by trigger). */
async function buildFarm(): Promise<Farm> {
  const dataDir = await tempDir();
  const server = await startServer(settings(dataDir), { logger: silentLogger, shutdownGraceMs: 500 });
  const key = server.initialAdminKey!;
  try {
    assert.equal((await call(server, key, 'PATCH', '/v1/organization', { auto_start: false })).status, 200);
    const printer = await call(server, key, 'POST', '/v1/printers', { name: 'mover', connection_url: fastSim('db-copy-farm') });
    assert.equal(printer.status, 201);
    const printerId = printer.body.id as string;
    assert.equal((await call(server, key, 'POST', '/v1/materials', { type: 'PETG', spool_weight: 1000, color: 'red', cost_per_kg: 25 })).status, 201);
    // A receiver nobody listens on: its deliveries stay pending with failed attempts.
    assert.equal((await call(server, key, 'POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] })).status, 201);
    const first = await upload(server, key, gcode({ moves: 40, tag: 'first' }), printerId);
    await until('the first job to complete', async () => (await call(server, key, 'GET', `/v1/jobs/${first}`)).body.status === 'completed');
    const waitingJob = await upload(server, key, gcode({ moves: 60, tag: 'after the move' }), printerId);
    const waiting = await call(server, key, 'GET', `/v1/jobs/${waitingJob}`);
    assert.equal(waiting.body.status, 'queued');
    await server.close();
    const sqlite = new BetterSqlite3(path.join(dataDir, 'printfarm.sqlite'));
    seedJobHistory(sqlite, { jobs: 400, printers: 3, from: Date.parse('2026-01-01T00:00:00Z'), to: Date.parse('2026-06-01T00:00:00Z') });
    sqlite.close();
    return { dataDir, key, printerId, waitingJob };
  } catch (err) {
    await server.close();
    throw err;
  }
}

const ANALYTICS = '/v1/analytics/fleet?from=2026-01-01T00:00:00Z&to=2026-06-01T00:00:00Z';
const LISTS = ['/v1/jobs?per_page=100', '/v1/materials', '/v1/webhooks'];

/** What the copied farm must answer exactly as the source did. */
async function answers(server: RunningServer, key: string, paths = [...LISTS, ANALYTICS]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const p of paths) {
    const r = await call(server, key, 'GET', p);
    assert.equal(r.status, 200, `${p}: ${JSON.stringify(r.body)}`);
    out.push(r.body);
  }
  return out;
}

async function withServer<T>(config: ServerSettings, fn: (s: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer(config, { logger: silentLogger, shutdownGraceMs: 500 });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

async function dbCopy(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const proc = runCli(['db', 'copy', ...args]);
  const { code } = await proc.exited;
  return { code, out: proc.stdout(), err: proc.stderr() };
}

/** Every table printed with its row count and "ok"; none MISMATCH. */
function assertVerified(out: string): void {
  for (const t of COPY_TABLES) assert.match(out, new RegExp(`^${t.name}\\s+(\\d+)\\s+\\1\\s+[0-9a-f]{16}\\s+ok$`, 'm'), `${t.name} in:\n${out}`);
  assert.doesNotMatch(out, /MISMATCH/);
}

let farm: Farm;
let before_: unknown[];
before(async () => {
  farm = await buildFarm();
  before_ = await withServer(settings(farm.dataDir), (s) => answers(s, farm.key));
});

it('lists every table of the migrated schema, parents before children', () => {
  const handle = openDatabase(':memory:');
  const names = handle.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'sqlite_sequence' ORDER BY name").pluck().all();
  assert.deepEqual(COPY_TABLES.map((t) => t.name).sort(), names);
  const position = new Map(COPY_TABLES.map((t, i) => [t.name, i]));
  for (const t of COPY_TABLES) {
    for (const fk of handle.sqlite.prepare(`PRAGMA foreign_key_list(${t.name})`).all() as Array<{ table: string; from: string }>) {
      if (fk.table === t.name) assert.ok(t.selfRefs?.includes(fk.from), `${t.name}.${fk.from} refers to its own table: list it in selfRefs`);
      else assert.ok(position.get(fk.table)! < position.get(t.name)!, `${fk.table} must come before ${t.name}`);
    }
  }
  void handle.close();
});

it('sqlite → sqlite: every table equal, same answers, the stored file prints; a second copy is refused unless --force', async () => {
  const target = await tempDir();
  const r = await dbCopy('--from', `sqlite:${farm.dataDir}`, '--to', `sqlite:${target}`);
  assert.equal(r.code, 0, r.out + r.err);
  assertVerified(r.out);
  assert.match(r.out, /Files: 2 copied/);
  assert.match(r.out, /secret key .* was copied/);
  assert.match(r.out, /node id .* was copied/);
  await withServer(settings(target), async (s) => {
    assert.deepEqual(await answers(s, farm.key), before_);
    assert.equal((await call(s, farm.key, 'POST', `/v1/printers/${farm.printerId}/actions`, { action: 'ready' })).status, 202);
    await until('the job queued before the move to complete', async () => (await call(s, farm.key, 'GET', `/v1/jobs/${farm.waitingJob}`)).body.status === 'completed');
  });

  const again = await dbCopy('--from', `sqlite:${farm.dataDir}`, '--to', `sqlite:${target}`);
  assert.equal(again.code, 1);
  assert.match(again.err, /already holds farm data \(.*jobs: 40\d.*\); copy into an empty database, or pass --force/);
  const forced = await dbCopy('--from', `sqlite:${farm.dataDir}`, '--to', `sqlite:${target}`, '--force');
  assert.equal(forced.code, 0, forced.out + forced.err);
  assertVerified(forced.out);
});

it('refuses a damaged source, and a farm whose server is running unless --ignore-lock, naming why', async () => {
  const damaged = await tempDir();
  writeFileSync(path.join(damaged, 'printfarm.sqlite'), Buffer.alloc(8192, 7));
  const r = await dbCopy('--from', `sqlite:${damaged}`, '--to', `sqlite:${await tempDir()}`);
  assert.equal(r.code, 1);
  assert.match(r.err, /cannot read the source .*printfarm\.sqlite: .*not a database; nothing was copied/);

  // A farm of its own: the shared one must not run again (its waiting job would be at the mercy of the restart).
  const running = await tempDir();
  await withServer(settings(running), async () => {
    const busy = await dbCopy('--from', `sqlite:${running}`, '--to', `sqlite:${await tempDir()}`);
    assert.equal(busy.code, 1);
    assert.match(busy.err, /the source data directory .* is in use by another printfarm process .*stop that server first \(or pass --ignore-lock/);
    // Told to, it copies the running farm's consistent snapshot.
    const told = await dbCopy('--from', `sqlite:${running}`, '--to', `sqlite:${await tempDir()}`, '--ignore-lock');
    assert.equal(told.code, 0, told.out + told.err);
    assertVerified(told.out);
  });
});

it('a source written by an older printfarm is migrated in its snapshot only: the source file stays as it was', async () => {
  const old = await tempDir();
  const file = path.join(old, 'printfarm.sqlite');
  const h = openDatabase(file, undefined, { migrations: migrations.slice(0, 17) });
  h.sqlite.prepare("INSERT INTO organization (id, name, created_at, updated_at) VALUES ('org_old', 'Old farm', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')").run();
  await h.close();
  const target = await tempDir();
  const r = await dbCopy('--from', `sqlite:${old}`, '--to', `sqlite:${target}`);
  assert.equal(r.code, 0, r.out + r.err);
  assertVerified(r.out);
  const version = (f: string) => new BetterSqlite3(f, { readonly: true }).prepare('SELECT MAX(version) FROM schema_version').pluck().get();
  assert.equal(version(file), 17);
  assert.equal(version(path.join(target, 'printfarm.sqlite')), migrations.length);
});

describe('PostgreSQL', { skip: pgUnavailableReason() ? `SKIPPED, PostgreSQL is not available: ${pgUnavailableReason()}` : false }, () => {
  let cluster: PgCluster;
  before(async () => {
    cluster = await startPgCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('sqlite → postgres → sqlite: every table equal, same answers, the file stored before the move prints from the database', async () => {
    const url = await cluster.createDatabase('moved');
    const r = await dbCopy('--from', `sqlite:${farm.dataDir}`, '--to', url);
    assert.equal(r.code, 0, r.out + r.err);
    assertVerified(r.out);
    assert.match(r.out, /Files: 2 copied/);
    assert.match(r.out, /PRINTFARM_SECRET_KEY=/);

    const back = await tempDir();
    const home = await dbCopy('--from', url, '--to', `sqlite:${back}`);
    assert.equal(home.code, 0, home.out + home.err);
    assertVerified(home.out);
    assert.match(home.out, /Files: 2 copied/);
    // Back on one box: a PostgreSQL source has no key file to carry, so the farm's key is given as it was to the nodes.
    await copyFile(path.join(farm.dataDir, 'secret.key'), path.join(back, 'secret.key'));
    await withServer(settings(back), async (s) => assert.deepEqual(await answers(s, farm.key), before_));

    // The old box started on the shared database with its identity (node id and secret key) but none of its files: the
    // file can only come from the database's chunks, and the printers are still this node's.
    const fresh = await tempDir();
    for (const f of ['node-id', 'secret.key']) await copyFile(path.join(farm.dataDir, f), path.join(fresh, f));
    await withServer(settings(fresh, url), async (s) => {
      // The lists only: /v1/analytics answers 500 on PostgreSQL on main until the analytics port lands (a20cefc); the
      // roll-up tables themselves were verified row for row above.
      assert.deepEqual(await answers(s, farm.key, LISTS), before_.slice(0, LISTS.length));
      assert.equal((await call(s, farm.key, 'POST', `/v1/printers/${farm.printerId}/actions`, { action: 'ready' })).status, 202);
      await until('the job queued before the move to complete', async () => (await call(s, farm.key, 'GET', `/v1/jobs/${farm.waitingJob}`)).body.status === 'completed');
    });
  });

  it('--files-dir puts the files in the shared directory instead of the database', async () => {
    const url = await cluster.createDatabase('shared_files');
    const shared = await tempDir();
    const r = await dbCopy('--from', `sqlite:${farm.dataDir}`, '--to', url, '--files-dir', shared);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /Files: 2 copied/);
    const source = new BetterSqlite3(path.join(farm.dataDir, 'printfarm.sqlite'), { readonly: true });
    const files = source.prepare('SELECT sha256, size FROM files').all() as Array<{ sha256: string; size: number }>;
    source.close();
    const store = new FileStore(shared, shared);
    for (const f of files) assert.ok(await store.hasContent(f.sha256, f.size), f.sha256);
    assert.match(r.out, /^file_chunks\s+0\s+0\s/m);
  });
});
