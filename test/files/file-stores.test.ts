// Where G-code content lives: chunks in the database and a shared directory, read by a job start on any app sharing
// the database; pruning removes chunks; a damaged or missing chunk fails the job with file_unreadable, nothing crashes.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { FileStorage } from '../../src/files/content-store-choice.js';
import { ManualClock } from '../../src/clock.js';
import { fastSim, startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { createJob, gcode, getJob, untilStatus } from '../jobs/jobs-harness.js';
import { createPgTestDatabase, testPgUrl } from '../helpers/test-database.js';
import { makePng, thumbnailBlock } from './gcode-fixtures.js';

const CHUNK = 4096;
const DAY_MS = 24 * 3600 * 1000;

/** A valid G-code file of several chunks, with a thumbnail; `tag` makes its content (and hash) unique. */
const fileOf = (tag: string, moves = 600): string => thumbnailBlock(makePng(16, 16), 16, 16) + gcode({ moves, tag });

const chunkRows = async (app: PrintersApp, sha256: string, part: 'content' | 'thumbnail' = 'content') =>
  Number(
    (
      await app.t.deps.db
        .selectFrom('file_chunks')
        .select(sql<number>`count(*)`.as('n'))
        .where('sha256', '=', sha256)
        .where('part', '=', part)
        .executeTakeFirstOrThrow()
    ).n,
  );

const fileOfJob = async (app: PrintersApp, fileId: string) => (await app.call('GET', `/v1/files/${fileId}`)).body as { sha256: string; size: number };

/** Content files (not temp or cache) under a data directory's own store. */
function storedContent(dataDir: string): string[] {
  const root = path.join(dataDir, 'files');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((p) => p.endsWith('.gcode') && !p.startsWith('cache') && !p.startsWith('tmp'));
}

describe('the database file store', () => {
  let app: PrintersApp;
  before(async () => {
    app = await startPrintersApp({ fileStorage: { kind: 'database', chunkBytes: CHUNK } });
  });
  after(() => app.close());

  it('keeps an upload as chunks (no content file in the data directory) and prints it from them', async () => {
    const content = fileOf('db-print');
    const job = await createJob(app, content);
    const file = await fileOfJob(app, job.file_id!);
    assert.equal(file.sha256, createHash('sha256').update(content).digest('hex'));
    assert.equal(await chunkRows(app, file.sha256), Math.ceil(Buffer.byteLength(content) / CHUNK));
    assert.deepEqual(storedContent(app.t.deps.dataDir), []);
    const thumb = await app.t.request(`/v1/files/${job.file_id}/thumbnail`, { headers: { Authorization: `Bearer ${app.admin}` } });
    assert.equal(thumb.status, 200);
    assert.deepEqual(Buffer.from(await thumb.arrayBuffer()), makePng(16, 16));

    const printer = await app.create({ name: 'db-store', connection_url: fastSim('files-db-print') });
    const done = await untilStatus(app, job.id, 'completed');
    assert.equal(done.printer_id, printer.id);
    await app.call('DELETE', `/v1/printers/${printer.id}`);
  });

  it('fails a job whose chunk is damaged or missing with file_unreadable; the next job prints', async () => {
    const damaged = await createJob(app, fileOf('db-damaged'));
    const missing = await createJob(app, fileOf('db-missing'));
    const good = await createJob(app, fileOf('db-good'), { priority: 'low' });
    const damagedSha = (await fileOfJob(app, damaged.file_id!)).sha256;
    const missingSha = (await fileOfJob(app, missing.file_id!)).sha256;
    await app.t.deps.db.updateTable('file_chunks').set({ data: Buffer.alloc(CHUNK, 0x20) }).where('sha256', '=', damagedSha).where('idx', '=', 1).execute();
    await app.t.deps.db.deleteFrom('file_chunks').where('sha256', '=', missingSha).where('idx', '=', 2).execute();

    const printer = await app.create({ name: 'db-store-2', connection_url: fastSim('files-db-damaged') });
    const failedDamaged = await untilStatus(app, damaged.id, 'failed');
    assert.equal(failedDamaged.error?.code, 'file_unreadable');
    assert.match(failedDamaged.error?.message ?? '', /damaged/);
    const failedMissing = await untilStatus(app, missing.id, 'failed');
    assert.equal(failedMissing.error?.code, 'file_unreadable');
    assert.match(failedMissing.error?.message ?? '', /chunk 2 .* missing/);
    // Nothing half-read is left for a later start to trust.
    const cache = path.join(app.t.deps.dataDir, 'files', 'cache');
    assert.deepEqual(readdirSync(cache).filter((n) => n.startsWith(damagedSha) || n.startsWith(missingSha)), []);
    assert.equal((await untilStatus(app, good.id, 'completed')).printer_id, printer.id);
    await app.call('DELETE', `/v1/printers/${printer.id}`);
  });
});

describe('pruning a file kept in the database', () => {
  let app: PrintersApp;
  const clock = new ManualClock();
  before(async () => {
    app = await startPrintersApp({ clock, fileStorage: { kind: 'database', chunkBytes: CHUNK } });
  });
  after(() => app.close());

  it('deletes its content and thumbnail chunks', async () => {
    const job = await createJob(app, fileOf('prune'));
    await app.create({ name: 'prune', connection_url: fastSim('files-db-prune') });
    await untilStatus(app, job.id, 'completed');
    const { sha256 } = await fileOfJob(app, job.file_id!);
    assert.ok((await chunkRows(app, sha256)) > 1);
    assert.equal(await chunkRows(app, sha256, 'thumbnail'), 1);
    clock.advance(40 * DAY_MS);
    const report = await app.t.deps.filePruner.runOnce();
    assert.equal(report.files, 1);
    assert.equal(await chunkRows(app, sha256), 0);
    assert.equal(await chunkRows(app, sha256, 'thumbnail'), 0);
    assert.equal((await getJob(app, job.id)).file_deleted, true);
    const thumb = await app.call('GET', `/v1/files/${job.file_id}/thumbnail`);
    assert.equal(thumb.status, 410);
  });
});

/** Two apps on one SQLite file, each with its own data directory: what one stores, the other prints. */
for (const [label, storage] of [
  ['chunks in the shared database', () => ({ kind: 'database', chunkBytes: CHUNK }) as FileStorage],
  ['a shared --files-dir', (dir: string) => ({ kind: 'shared-dir', dir }) as FileStorage],
] as const) {
  describe(`two apps sharing one database, files in ${label}`, () => {
    let dir: string;
    let a: PrintersApp;
    let b: PrintersApp;
    let pgDatabase: { url: string; drop(): Promise<void> } | null = null;
    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'printfarm-shared-files-'));
      // The run's engine: one SQLite file, or one PostgreSQL database, opened by both apps.
      const pgUrl = testPgUrl();
      pgDatabase = pgUrl ? await createPgTestDatabase(pgUrl) : null;
      const database = pgDatabase ? { databaseUrl: pgDatabase.url } : { file: path.join(dir, 'farm.db') };
      a = await startPrintersApp({ ...database, fileStorage: storage(path.join(dir, 'shared')) });
      b = await startPrintersApp({ ...database, fileStorage: storage(path.join(dir, 'shared')) });
    });
    after(async () => {
      await b?.close();
      await a?.close();
      await pgDatabase?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('prints on B a file uploaded on A (nothing of it in either data directory)', async () => {
      const job = await createJob(a, fileOf(`shared-${label}`));
      const printer = await b.create({ name: 'on-b', connection_url: fastSim(`files-shared-${label.length}`) });
      const done = await untilStatus(b, job.id, 'completed');
      assert.equal(done.printer_id, printer.id);
      assert.deepEqual(storedContent(a.t.deps.dataDir), []);
      assert.deepEqual(storedContent(b.t.deps.dataDir), []);
      const thumb = await b.t.request(`/v1/files/${job.file_id}/thumbnail`, { headers: { Authorization: `Bearer ${b.admin}` } });
      assert.equal(thumb.status, 200);
      await b.call('DELETE', `/v1/printers/${printer.id}`);
    });
  });
}

describe('the data directory store', () => {
  let app: PrintersApp;
  before(async () => {
    app = await startPrintersApp({ fileStorage: { kind: 'data-dir' } });
  });
  after(() => app.close());

  it('fails a job whose stored file went missing from disk with file_unreadable instead of queueing it forever', async () => {
    const job = await createJob(app, fileOf('dir-missing'));
    const [stored] = storedContent(app.t.deps.dataDir);
    rmSync(path.join(app.t.deps.dataDir, 'files', stored!));
    await app.create({ name: 'dir-store', connection_url: fastSim('files-dir-missing') });
    const failed = await untilStatus(app, job.id, 'failed');
    assert.equal(failed.error?.code, 'file_unreadable');
    assert.match(failed.error?.message ?? '', /missing/);
  });
});
