// Two nodes, one database: a node prunes a file between another node's look at it and its write of an upload of the
// same content; the upload still ends with the file stored and its content whole.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, it } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import { DatabaseFileStore } from '../../src/files/database-file-store.js';
import { findFileById, markFilePruned } from '../../src/files/files.repository.js';
import { createFilesService } from '../../src/files/files.service.js';
import { silentLogger } from '../../src/logger.js';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';
import { gcode } from '../jobs/jobs-harness.js';

let dir: string;
let handle: DbHandle;
before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'printfarm-prune-race-'));
  handle = openDatabase(path.join(dir, 'farm.db'));
});
after(async () => {
  await handle.close();
  rmSync(dir, { recursive: true, force: true });
});

it('an upload of content another node pruned meanwhile stores it again', async () => {
  const clock = new ManualClock();
  const otherNode = new DatabaseFileStore(handle.db, path.join(dir, 'b'), true, 512);
  let pruneNext = false;
  /** Node A's store; right after it found the content stored, node B's pruning pass removes the file. */
  class RacedStore extends DatabaseFileStore {
    override async hasContent(sha256: string, size: number): Promise<boolean> {
      const found = await super.hasContent(sha256, size);
      if (pruneNext) {
        pruneNext = false;
        const row = (await handle.db.selectFrom('files').selectAll().where('sha256', '=', sha256).executeTakeFirstOrThrow());
        await handle.db.transaction().execute(async (trx) => {
          assert.equal(await markFilePruned(trx, row.id, row.last_used_at, new Date(clock.now()).toISOString()), true);
          await otherNode.removeWithin(trx, sha256);
        });
      }
      return found;
    }
  }
  const store = new RacedStore(handle.db, path.join(dir, 'a'), true, 512);
  const files = createFilesService({ db: handle.db, dataDir: path.join(dir, 'a'), clock, logger: silentLogger, store });
  const text = gcode({ moves: 200, tag: 'raced' });
  const first = await files.ingestStream(Readable.from([Buffer.from(text)]), 'raced.gcode');

  pruneNext = true;
  const again = await files.ingestStream(Readable.from([Buffer.from(text)]), 'raced.gcode');
  assert.equal(pruneNext, false, 'the pruning ran inside the upload');
  assert.equal(again.id, first.id);
  assert.equal((await findFileById(handle.db, first.id))?.deleted_at, null);
  assert.equal(await otherNode.hasContent(first.sha256, first.size), true);
  assert.equal(readFileSync(await otherNode.localCopy(first), 'utf8'), text);
});
