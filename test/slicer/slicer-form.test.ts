// File names as each client writes them in a multipart header, read back as the person typed them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slicerFileName } from '../../src/slicer/slicer-form.js';

const asLatin1Bytes = (utf8: string): string => Buffer.from(utf8, 'utf8').toString('latin1');

test('file names from libcurl (raw UTF-8), Qt (Latin-1) and RFC 2231 (already decoded) all read as typed', () => {
  assert.equal(slicerFileName(asLatin1Bytes('Žluťoučký kůň.gcode')), 'Žluťoučký kůň.gcode', 'libcurl: raw UTF-8 bytes');
  assert.equal(slicerFileName(Buffer.from('Pièce é.gcode', 'latin1').toString('latin1')), 'Pièce é.gcode', 'Qt: one Latin-1 byte per character');
  assert.equal(slicerFileName('Žluť.gcode'), 'Žluť.gcode', 'filename*=utf-8: decoded by the parser already');
  assert.equal(slicerFileName('say %22hi%22.gcode'), 'say "hi".gcode', 'libcurl 7.81+ writes a quote as %22');
  assert.equal(slicerFileName('plain.gcode'), 'plain.gcode');
});
