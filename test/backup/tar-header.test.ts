// ustar headers: what we write decodes to the same entry, long paths split at a slash, and bad headers are refused.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeHeader, encodeHeader, paddingFor, TarFormatError } from '../../src/backup/tar-header.js';
import { isSafeMemberPath } from '../../src/backup/tar-archive.js';

describe('tar headers', () => {
  const long = `files/${'a'.repeat(60)}/${'b'.repeat(90)}.gcode`;
  for (const entry of [
    { path: 'printfarm.sqlite', size: 393216, mtime: 1767225600, mode: 0o644 },
    { path: 'secret.key', size: 0, mtime: 0, mode: 0o600 },
    { path: long, size: 12, mtime: 1, mode: 0o644 },
  ]) {
    it(`round-trips ${entry.path.slice(0, 30)}`, () => assert.deepEqual(decodeHeader(encodeHeader(entry)), entry));
  }
  it('refuses a path no split can hold, a damaged checksum, and a link member', () => {
    assert.throws(() => encodeHeader({ path: 'x'.repeat(300), size: 1, mtime: 0, mode: 0o644 }), TarFormatError);
    const block = encodeHeader({ path: 'a', size: 1, mtime: 0, mode: 0o644 });
    block[0] = 0x62;
    assert.throws(() => decodeHeader(block), /checksum mismatch/);
    const link = encodeHeader({ path: 'a', size: 0, mtime: 0, mode: 0o644 });
    link[156] = 0x32; // '2': a symbolic link; the checksum is recomputed below so only the type is wrong
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : link[i]!;
    link.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
    assert.throws(() => decodeHeader(link), /only regular files/);
  });
  it('pads to whole blocks', () => assert.deepEqual([0, 1, 511, 512, 513].map(paddingFor), [0, 511, 1, 0, 511]));
  it('accepts only paths that stay inside the target', () => {
    assert.deepEqual(
      ['files/ab/x.gcode', '../x', '/etc/passwd', 'a/./b', 'a//b', 'a\\b', ''].map(isSafeMemberPath),
      [true, false, false, false, false, false, false],
    );
  });
});
