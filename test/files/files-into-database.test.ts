// A farm's files move from its data directory into database chunks (a SQLite farm moving to PostgreSQL): content and
// thumbnails whole and verified, a second run copies nothing, missing and damaged sources are reported, not stored.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, it } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import { DatabaseFileStore } from '../../src/files/database-file-store.js';
import { FileStore } from '../../src/files/file-store.js';
import { copyFilesIntoDatabase } from '../../src/files/files-into-database.js';
import { createFilesService } from '../../src/files/files.service.js';
import { silentLogger } from '../../src/logger.js';
import type { DbHandle } from '../../src/storage/db.js';
import { openTestDatabase } from '../helpers/test-database.js';
import { gcode } from '../jobs/jobs-harness.js';
import { makePng, thumbnailBlock } from './gcode-fixtures.js';

let dir: string;
let handle: DbHandle;
before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'printfarm-into-db-'));
  handle = await openTestDatabase();
});
after(async () => {
  await handle.close();
  rmSync(dir, { recursive: true, force: true });
});

it('copies every stored file of the data directory into chunks, once, and reports what it could not', async () => {
  const disk = new FileStore(dir);
  const files = createFilesService({ db: handle.db, dataDir: dir, clock: new ManualClock(), logger: silentLogger, store: disk });
  const png = makePng(20, 20);
  const texts = ['a', 'b', 'c', 'd'].map((tag) => thumbnailBlock(png, 20, 20) + gcode({ moves: 300, tag }));
  const [a, b, gone, damaged] = await Promise.all(texts.map((text, i) => files.ingestStream(Readable.from([Buffer.from(text)]), `${i}.gcode`)));
  rmSync(disk.contentPath(gone!.sha256));
  writeFileSync(disk.contentPath(damaged!.sha256), Buffer.from(texts[3]!.replace('G90', 'G91')));

  const chunks = new DatabaseFileStore(handle.db, path.join(dir, 'node'), false, 1024);
  const report = await copyFilesIntoDatabase(handle.db, disk, chunks).catch((err: Error) => err);
  // A source that no longer hashes to its record stops the copy, naming it; nothing of it is stored.
  assert.ok(report instanceof Error && report.message.includes(damaged!.sha256), String(report));
  assert.equal(await chunks.hasContent(damaged!.sha256, damaged!.size), false);

  rmSync(disk.contentPath(damaged!.sha256));
  const second = await copyFilesIntoDatabase(handle.db, disk, chunks);
  assert.deepEqual(second.missing.sort(), [gone!.id, damaged!.id].sort());
  assert.equal(second.copied + second.present, 2);
  for (const [file, text] of [[a!, texts[0]!], [b!, texts[1]!]] as const) {
    assert.equal(readFileSync(await chunks.localCopy(file), 'utf8'), text);
    assert.deepEqual(await chunks.readThumbnail(file.sha256), png);
  }
  const third = await copyFilesIntoDatabase(handle.db, disk, chunks);
  assert.deepEqual({ copied: third.copied, present: third.present }, { copied: 0, present: 2 });
});
