// The data directory on a real 30 MB tmpfs filled to the last byte: writes answer 507 storage_full, reads work,
// /healthz says full, an upload that runs out of room mid-stream leaves no partial file, and freeing the space is all
// it takes to write again. Needs root (mount); skipped with the reason otherwise.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync, statfsSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setOrg, uploadJob } from '../jobs/jobs-harness.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { sqliteOf, sqliteOnly } from '../helpers/test-database.js';

const whyNot = process.getuid?.() !== 0 ? 'mounting a tmpfs needs root (run the tests as root to include it)' : null;

/** Writes zeros to `file` until the file system says ENOSPC, leaving `keepBytes` free (roughly, to the block). */
function fill(file: string, keepBytes = 0): void {
  const fd = openSync(file, 'a');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) {
      const s = statfsSync(path.dirname(file));
      const free = s.bavail * s.bsize - keepBytes;
      if (free <= 0) return;
      writeSync(fd, chunk, 0, Math.min(chunk.length, free));
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
}

/** A valid G-code file of about `bytes`. */
function bigGcode(bytes: number): string {
  const line = 'G1 X10 Y10 E0.01 F1200 ; padding padding padding\n';
  return 'G90\nM83\n' + line.repeat(Math.ceil(bytes / line.length));
}

describe('a full tmpfs data directory', { skip: whyNot ?? sqliteOnly('the database file is the one on the full tmpfs') }, () => {
  let mount: string;
  let app: PrintersApp;
  before(async () => {
    mount = mkdtempSync(path.join(os.tmpdir(), 'printfarm-tmpfs-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=30m', 'tmpfs', mount]);
    app = await startPrintersApp({ dataDir: mount, file: path.join(mount, 'printfarm.sqlite') });
    // The reserve would refuse every upload on a disk this small; this test is about running out, not the reserve.
    await setOrg(app, { storage_reserve_mb: 0 });
  });
  after(async () => {
    await app?.close();
    if (mount) {
      execFileSync('umount', [mount]);
      rmSync(mount, { recursive: true, force: true });
    }
  });

  const filler = () => path.join(mount, 'filler.bin');
  const health = async (): Promise<string> => ((await (await app.t.request('/healthz')).json()) as { storage: string }).storage;
  const tmpFiles = (): string[] => {
    const dir = path.join(mount, 'files', 'tmp');
    return existsSync(dir) ? readdirSync(dir) : [];
  };

  it('an upload that runs out of room mid-stream is 507 and its partial file is removed', async () => {
    fill(filler(), 3 * 1024 * 1024);
    const res = await uploadJob(app, bigGcode(6 * 1024 * 1024));
    assert.equal(res.status, 507, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'storage_full');
    assert.deepEqual(tmpFiles(), [], 'no partial file left behind');
    assert.equal((sqliteOf(app.t.handle).prepare('SELECT COUNT(*) AS n FROM files').get() as { n: number }).n, 0);
  });

  it('on a full disk writes are 507, reads work and /healthz says full; freeing space is enough to write again', async () => {
    // Every write must grow the write-ahead log from here on, as on a long-running server whose log was folded in.
    sqliteOf(app.t.handle).pragma('wal_checkpoint(TRUNCATE)');
    fill(filler());
    const write = () => app.call('POST', '/v1/materials', { type: 'PLA', spool_weight: 1000, color: 'a very long colour name to need room' });
    const refused = await write();
    assert.equal(refused.status, 507, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'storage_full');
    assert.match(refused.body.error.message, /free space on the disk that holds the data directory/);
    assert.equal((await app.call('GET', '/v1/materials')).status, 200);
    assert.equal((await app.call('GET', '/v1/organization')).status, 200);
    assert.equal(await health(), 'full');

    rmSync(filler());
    const stored = await write();
    assert.equal(stored.status, 201, JSON.stringify(stored.body));
    assert.notEqual(await health(), 'full');
  });
});
