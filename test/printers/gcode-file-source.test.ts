// Tests for the streaming G-code file reader: line splitting, byte counts, chunk boundaries, binary refusal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GcodeFileSource } from '../../src/printers/gcode-file-source.js';
import type { AppError } from '../../src/errors.js';

/** Pulls every line the way a session does: synchronously until null, then again on onReadable. */
function readAll(file: string, chunkBytes?: number): Promise<{ lines: string[]; bytes: number[]; src: GcodeFileSource }> {
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    const bytes: number[] = [];
    const src: GcodeFileSource = new GcodeFileSource(file, {
      chunkBytes,
      onReadable: () => pump(),
      onError: (err) => reject(err),
    });
    const pump = (): void => {
      let line: string | null;
      while ((line = src.nextLine()) !== null) {
        lines.push(line);
        bytes.push(src.lastLineBytes);
      }
      if (src.done) {
        src.close();
        resolve({ lines, bytes, src });
      }
    };
    src.open().then(pump, reject);
  });
}

async function withTemp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-src-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('splits \\n and \\r\\n lines, keeps a last line without newline, counts bytes exactly', () =>
  withTemp(async (dir) => {
    const file = path.join(dir, 'a.gcode');
    const text = 'G28\r\nG1 X1 ; move\n\n;comment only\r\nM104 S200';
    await writeFile(file, text);
    const { lines, bytes, src } = await readAll(file);
    assert.deepEqual(lines, ['G28', 'G1 X1 ; move', '', ';comment only', 'M104 S200']);
    assert.deepEqual(bytes, [5, 13, 1, 15, 9]);
    assert.equal(src.bytesConsumed, Buffer.byteLength(text));
    assert.equal(src.size, Buffer.byteLength(text));
  }));

test('lines split across tiny chunks (including between \\r and \\n) come out whole', () =>
  withTemp(async (dir) => {
    const file = path.join(dir, 'b.gcode');
    const want: string[] = [];
    let text = '';
    for (let i = 0; i < 500; i++) {
      const l = `G1 X${i}.5 Y${(i * 7) % 200} E${i / 10} ; é${i}`;
      want.push(l);
      text += l + (i % 3 === 0 ? '\r\n' : '\n');
    }
    await writeFile(file, text);
    for (const chunk of [1, 2, 3, 7, 64]) {
      const { lines, bytes } = await readAll(file, chunk);
      assert.deepEqual(lines, want, `chunk ${chunk}`);
      assert.equal(bytes.reduce((a, b) => a + b, 0), Buffer.byteLength(text));
    }
  }));

test('an empty file is done at once', () =>
  withTemp(async (dir) => {
    const file = path.join(dir, 'empty.gcode');
    await writeFile(file, '');
    const { lines } = await readAll(file);
    assert.deepEqual(lines, []);
  }));

test('NUL bytes, bgcode and endless lines are refused with a clear error', () =>
  withTemp(async (dir) => {
    const nul = path.join(dir, 'nul.gcode');
    await writeFile(nul, Buffer.concat([Buffer.from('G28\nG1 X1\n'), Buffer.from([0, 1, 2, 255]), Buffer.from('\n')]));
    await assert.rejects(readAll(nul), (err: AppError) => {
      assert.equal(err.code, 'file_invalid');
      assert.match(err.message, /NUL byte at offset 10/);
      return true;
    });
    const bg = path.join(dir, 'x.bgcode');
    await writeFile(bg, Buffer.concat([Buffer.from('GCDE'), Buffer.from([1, 0, 0, 0])]));
    await assert.rejects(readAll(bg), /binary G-code/);
    const long = path.join(dir, 'long.gcode');
    await writeFile(long, 'G1 ' + 'X'.repeat(70 * 1024));
    await assert.rejects(readAll(long, 4096), /longer than/);
  }));

test('a missing file or a directory is a clear error', () =>
  withTemp(async (dir) => {
    await assert.rejects(readAll(path.join(dir, 'nope.gcode')), /cannot read G-code file/);
    await assert.rejects(readAll(dir), /not a regular file/);
  }));
