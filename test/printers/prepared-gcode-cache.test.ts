// The shared cache of prepared files: jobs on one file share one entry, the entry goes with its last job, a replaced
// file gets a new one, a bad file fails every reader with a clear error, a file too big to hold is left to streaming.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { PreparedGcodeCache, type PreparedReader } from '../../src/printers/prepared-gcode-cache.js';

/** Every line of a reader, waiting for the file to be read as needed; rejects with the reader's error. */
async function readAll(r: PreparedReader): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const more = await new Promise<boolean>((resolve) => {
      if (r.next(() => resolve(true))) {
        out.push(r.block!.text.toString('latin1', r.block!.starts[r.index], r.block!.starts[r.index + 1]));
        resolve(true);
      } else if (r.error || r.done) resolve(false);
    });
    if (!more) break;
  }
  if (r.error) throw r.error;
  return out;
}

test('two jobs on one file share one entry, read once; it is dropped when the last job ends', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-prepared-'));
  try {
    const file = path.join(dir, 'a.gcode');
    // Several chunks: 3000 lines of ~25 bytes with a chunk of 16 KB.
    const lines = Array.from({ length: 3000 }, (_, i) => `G1 X${(i * 0.1).toFixed(2)} E${(i * 0.01).toFixed(3)}`);
    await writeFile(file, `; header\n${lines.join('\n')}\n`);
    const cache = new PreparedGcodeCache({ chunkBytes: 16 * 1024 });
    const a = (await cache.open(file))!;
    const b = (await cache.open(file))!;
    assert.equal(cache.size, 1, 'one entry for both');
    assert.deepEqual(await readAll(a), lines);
    assert.deepEqual(await readAll(b), lines);
    assert.equal(a.block, b.block, 'the same blocks, not copies');
    assert.deepEqual(a.totals, { bytes: lines.reduce((n, l) => n + l.length + 1, 0), lines: 3000 });
    a.release();
    assert.equal(cache.size, 1, 'still printed by the second job');
    b.release();
    b.release();
    assert.equal(cache.size, 0, 'gone with the last job');
    // A later job reads the file again, as it is now.
    await writeFile(file, 'G28\nG1 X1\n');
    const c = (await cache.open(file))!;
    assert.deepEqual(await readAll(c), ['G28', 'G1 X1']);
    c.release();
    assert.equal(cache.size, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a file with a NUL byte fails its readers with the streaming reader\'s message and is not kept; a huge file is not held', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-prepared-'));
  try {
    const bad = path.join(dir, 'bad.gcode');
    await writeFile(bad, Buffer.from('G28\nG1 X\x001\n'));
    const cache = new PreparedGcodeCache({ maxFileBytes: 1024 });
    const r = (await cache.open(bad))!;
    await assert.rejects(readAll(r), (err: Error & { code?: string }) => err.code === 'file_invalid' && /NUL byte at offset 8/.test(err.message));
    assert.equal(cache.size, 0, 'a broken file is not kept');
    r.release();
    const big = path.join(dir, 'big.gcode');
    await writeFile(big, 'G1 X1\n'.repeat(200));
    assert.equal(await cache.open(big), null, 'over maxFileBytes: the job streams it');
    await assert.rejects(cache.open(path.join(dir, 'missing.gcode')), /cannot read G-code file/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
