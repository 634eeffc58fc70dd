// The database file store on both engines (SQLite file, and a throw-away PostgreSQL cluster): chunked round trip, a
// verified local copy per node, thumbnails, removal, damage detected, and two nodes storing the same content at once.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { FileContentError } from '../../src/files/content-store.js';
import { DatabaseFileStore } from '../../src/files/database-file-store.js';
import { openDatabase } from '../../src/storage/db.js';
import { migration018FileChunks } from '../../src/storage/migrations/018-file-chunks.js';
import type { Db } from '../../src/storage/db.js';
import type { Database } from '../../src/storage/schema.js';
import { pgUnavailableReason, startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';

const CHUNK = 1000;

interface Engine {
  db: Db;
  close(): Promise<void>;
}

const engines: Array<{ name: string; skip: string | false; open(dir: string): Promise<Engine> }> = [];
let cluster: PgCluster | null = null;

engines.push({
  name: 'SQLite',
  skip: false,
  async open(dir) {
    const handle = openDatabase(path.join(dir, 'farm.db'));
    return { db: handle.db, close: () => handle.close() };
  },
});

const pgSkip = pgUnavailableReason();
engines.push({
  name: 'PostgreSQL',
  skip: pgSkip ? `skipped: ${pgSkip}` : false,
  async open() {
    cluster ??= await startPgCluster();
    const url = await cluster.createDatabase('file_chunks_test');
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 4 }) }) });
    // Only the table under test: the PostgreSQL text of migration 018 as the engine runs it.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(migration018FileChunks.pg!);
    await client.end();
    return { db, close: () => db.destroy() };
  },
});

const content = (n: number, seed: string): Buffer => {
  const line = `G1 X1 Y2 E0.1 ; ${seed}\n`;
  return Buffer.from(line.repeat(Math.ceil(n / line.length))).subarray(0, n);
};

/** Streams `data` into the store like an upload: temp file, hash, then commit. */
async function put(store: DatabaseFileStore, data: Buffer) {
  const temp = await store.writeTemp(Readable.from([data.subarray(0, 700), data.subarray(700)]), () => undefined);
  assert.equal(temp.sha256, createHash('sha256').update(data).digest('hex'));
  await store.commit(temp);
  return { sha256: temp.sha256, size: temp.size };
}

for (const engine of engines) {
  describe(`database file store on ${engine.name}`, { skip: engine.skip }, () => {
    let dir: string;
    let e: Engine;
    let nodeA: DatabaseFileStore;
    let nodeB: DatabaseFileStore;
    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'printfarm-chunks-'));
      e = await engine.open(dir);
      nodeA = new DatabaseFileStore(e.db, path.join(dir, 'a'), true, CHUNK);
      nodeB = new DatabaseFileStore(e.db, path.join(dir, 'b'), true, CHUNK);
    });
    after(async () => {
      await e?.close();
      if (cluster) await cluster.stop();
      cluster = null;
      rmSync(dir, { recursive: true, force: true });
    });

    it('stores chunks on one node and gives another node a verified local copy; thumbnails; removal', async () => {
      const data = content(3500, 'round trip');
      const file = await put(nodeA, data);
      assert.equal(await nodeB.hasContent(file.sha256, file.size), true);
      assert.equal(await nodeB.hasContent(file.sha256, file.size + 1), false);
      const rows = await e.db.selectFrom('file_chunks').select(['idx']).where('sha256', '=', file.sha256).orderBy('idx').execute();
      assert.deepEqual(rows.map((r) => Number(r.idx)), [0, 1, 2, 3]);
      const copy = await nodeB.localCopy(file);
      assert.ok(copy.startsWith(path.join(dir, 'b', 'files', 'cache')));
      assert.deepEqual(readFileSync(copy), data);
      // The cached copy is used again while unchanged.
      assert.equal(await nodeB.localCopy(file), copy);

      const png = Buffer.from('89504e470d0a1a0a0000', 'hex');
      await nodeA.writeThumbnail(file.sha256, 'image/png', png);
      assert.deepEqual(await nodeB.readThumbnail(file.sha256), png);

      await nodeA.remove(file.sha256, 'image/png');
      assert.equal(await nodeB.hasContent(file.sha256, file.size), false);
      assert.equal(await nodeB.readThumbnail(file.sha256), null);
      const left = await e.db.selectFrom('file_chunks').select('idx').where('sha256', '=', file.sha256).execute();
      assert.deepEqual(left, []);
    });

    it('refuses damaged chunks, a missing chunk, and a tampered local copy', async () => {
      const file = await put(nodeA, content(2500, 'damage'));
      await e.db.updateTable('file_chunks').set({ data: Buffer.alloc(CHUNK, 0x41) }).where('sha256', '=', file.sha256).where('idx', '=', 1).execute();
      await assert.rejects(nodeB.localCopy(file), (err: unknown) => err instanceof FileContentError && /damaged/.test(err.message));

      const other = await put(nodeA, content(2500, 'missing'));
      await e.db.deleteFrom('file_chunks').where('sha256', '=', other.sha256).where('idx', '=', 2).execute();
      await assert.rejects(nodeB.localCopy(other), (err: unknown) => err instanceof FileContentError && /chunk 2 .* missing/.test(err.message));

      const good = await put(nodeA, content(1800, 'tampered'));
      const copy = await nodeB.localCopy(good);
      writeFileSync(copy, content(1800, 'tampere!'));
      // A fresh node (a restart) checks the copy it finds by its hash and reads the chunks again.
      const restarted = new DatabaseFileStore(e.db, path.join(dir, 'b'), true, CHUNK);
      assert.deepEqual(readFileSync(await restarted.localCopy(good)), content(1800, 'tampered'));
    });

    it("a node's sweep drops its local copies of content another node removed, and keeps the rest", async () => {
      const gone = await put(nodeA, content(1500, 'swept'));
      const kept = await put(nodeA, content(1500, 'kept'));
      const goneCopy = await nodeB.localCopy(gone);
      const keptCopy = await nodeB.localCopy(kept);
      await nodeA.remove(gone.sha256, null);
      assert.ok((await nodeB.sweep()) >= 1);
      assert.equal(existsSync(goneCopy), false);
      assert.equal(existsSync(keptCopy), true);
      assert.equal(await nodeB.sweep(), 0);
    });

    it('two nodes storing the same content at the same moment end with one whole copy', async () => {
      const data = content(300_000, 'both at once');
      const [a, b] = await Promise.all([put(nodeA, data), put(nodeB, data)]);
      assert.equal(a.sha256, b.sha256);
      assert.equal(await nodeA.hasContent(a.sha256, a.size), true);
      assert.deepEqual(readFileSync(await nodeB.localCopy(a)), data);
    });
  });
}
