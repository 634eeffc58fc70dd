// A big upload goes into database chunks and back out to a job's local copy with memory bounded by the chunk size,
// never by the file's size.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, it } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import { DatabaseFileStore } from '../../src/files/database-file-store.js';
import { fileLimits } from '../../src/files/file-limits.js';
import { createFilesService } from '../../src/files/files.service.js';
import { silentLogger } from '../../src/logger.js';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';

const FILE_MB = 96;
/** Several 1 MB chunks in flight and garbage not yet collected fit well under this; the whole file does not. */
const BOUND_MB = 48;

/** FILE_MB of G-code moves, made as it is read (never held whole), hashed on the way. */
function bigGcode(hash: ReturnType<typeof createHash>): Readable {
  const line = 'G1 X10.123 Y20.456 E0.01234 F1800 ; a move of a big print\n';
  const block = Buffer.from(line.repeat(Math.floor(64 * 1024 / line.length)));
  let left = FILE_MB * 1024 * 1024;
  return new Readable({
    read() {
      if (left <= 0) return void this.push(null);
      const part = block.subarray(0, Math.min(block.length, left));
      left -= part.length;
      hash.update(part);
      this.push(Buffer.from(part));
    },
  });
}

let dataDir: string;
let handle: DbHandle;
before(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'printfarm-bigfile-'));
  handle = openDatabase(path.join(dataDir, 'printfarm.db'));
});
after(async () => {
  await handle.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it(`stores a ${FILE_MB} MB upload as chunks and reads it back to a verified copy in bounded memory`, async () => {
  const store = new DatabaseFileStore(handle.db, dataDir, true);
  const files = createFilesService({ db: handle.db, dataDir, clock: new ManualClock(), logger: silentLogger, store }, fileLimits({ maxFileBytes: 512 * 1024 * 1024 }));
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const base = used();
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, used());
  }, 2);
  const hash = createHash('sha256');
  try {
    const file = await files.ingestStream(bigGcode(hash), 'big.gcode');
    assert.equal(file.size, FILE_MB * 1024 * 1024);
    assert.equal(file.sha256, hash.digest('hex'));
    const copy = await files.localCopy(file);
    assert.equal(statSync(copy).size, file.size);
  } finally {
    clearInterval(sampler);
  }
  const grewMb = (peak - base) / 1024 / 1024;
  assert.ok(grewMb < BOUND_MB, `memory grew by ${grewMb.toFixed(1)} MB for a ${FILE_MB} MB file`);
});
