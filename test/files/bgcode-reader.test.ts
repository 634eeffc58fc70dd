// The .bgcode reader on files built here from the specification (libbgcode doc/specifications.md): metadata, thumbnails,
// every compression, and a clear error for each way a file can be wrong.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseSlicerDuration } from '../../src/protocol/bgcode-format.js';
import { BgcodeError, isBgcode, readBgcodeMetadata } from '../../src/files/bgcode-reader.js';
import { heatshrinkDecode } from '../../src/protocol/heatshrink-decoder.js';
import { Bits, block, COMP, header, hsAbc, meta, parts, PNG, QOI, TYPE, u16 } from '../helpers/bgcode-builder.js';

const dir = mkdtempSync(join(tmpdir(), 'bgcode-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function fileOf(buf: Buffer): string {
  const path = join(dir, `f${n++}.bgcode`);
  writeFileSync(path, buf);
  return path;
}
const whole = (p: Record<string, Buffer>): Buffer => Buffer.concat(Object.values(p));

test('a complete file: metadata values, raw tables, thumbnails with their sizes, G-code block count', async () => {
  const m = await readBgcodeMetadata(fileOf(whole(parts())));
  assert.equal(m.version, 1);
  assert.equal(m.checksum, 'crc32');
  assert.equal(m.producer, 'PrusaSlicer 2.8.1');
  assert.equal(m.printer_model, 'MK4S');
  assert.equal(m.filament_type, 'PETG');
  assert.equal(m.nozzle_diameter_mm, 0.6);
  assert.equal(m.layer_height_mm, 0.25);
  // The print block wins over the printer block's copy.
  assert.equal(m.filament_used_mm, 2345.67);
  assert.equal(m.filament_used_g, 7.25);
  assert.equal(m.estimated_time_s, 86400 + 2 * 3600 + 3 * 60 + 4);
  assert.deepEqual(m.thumbnails.map((t) => [t.format, t.width, t.height, t.data.length]), [['png', 16, 16, PNG.length], ['qoi', 313, 173, QOI.length]]);
  assert.ok(m.thumbnails[0]!.data.equals(PNG));
  assert.equal(m.slicer.abcabcabcabc, undefined, 'heatshrink 12/4 slicer block decoded (no "=" so no key)');
  assert.equal(m.gcode_blocks, 2);
  assert.equal(m.gcode_bytes, 12 + 9);
  assert.equal(m.print['filament used [g]'], '7.05');
});

test('a file without checksums reads the same', async () => {
  const m = await readBgcodeMetadata(fileOf(whole(parts(false))));
  assert.equal(m.checksum, 'none');
  assert.equal(m.filament_used_mm, 2345.67);
  assert.equal(m.thumbnails.length, 2);
});

test('isBgcode looks at the magic only', () => {
  assert.equal(isBgcode(Buffer.from('GCDE\x01')), true);
  assert.equal(isBgcode(Buffer.from('G28\nG1')), false);
  assert.equal(isBgcode(Buffer.from('GC')), false);
});

const broken: Array<{ name: string; build: () => Buffer; error: RegExp }> = [
  { name: 'not bgcode', build: () => Buffer.from('G28\nG1 X10\n'), error: /does not start with "GCDE"/ },
  { name: 'shorter than the header', build: () => Buffer.from('GCDE'), error: /truncated/ },
  { name: 'version 2', build: () => whole({ ...parts(), header: header(2) }), error: /unsupported binary G-code version 2/ },
  { name: 'checksum type 7', build: () => whole({ ...parts(), header: header(1, 7) }), error: /unknown checksum type 7/ },
  {
    name: 'a flipped byte in the printer metadata',
    build: () => {
      const p = parts();
      p.printer = Buffer.from(p.printer);
      p.printer[12]! ^= 0x20;
      return whole(p);
    },
    error: /printer_metadata block at byte 51 fails its CRC32/,
  },
  {
    name: 'a flipped byte in a G-code block',
    build: () => {
      const p = parts();
      p.gcode2 = Buffer.from(p.gcode2);
      p.gcode2[11]! ^= 1;
      return whole(p);
    },
    error: /gcode block .* fails its CRC32/,
  },
  { name: 'cut inside a block', build: () => whole(parts()).subarray(0, 60), error: /truncated: the printer_metadata block at byte 51/ },
  { name: 'cut inside a block header', build: () => Buffer.concat([parts().header, parts().file, Buffer.from([3, 0, 0])]), error: /truncated: a block header/ },
  { name: 'cut before its checksum', build: () => whole(parts()).subarray(0, -2), error: /truncated/ },
  { name: 'an unknown block type', build: () => Buffer.concat([parts().header, block(9, 0, u16(0), Buffer.from('x'), Buffer.from('x'))]), error: /unknown block type 9 at byte 10/ },
  { name: 'an unknown compression', build: () => Buffer.concat([parts().header, block(3, 5, u16(0), Buffer.from('x'), Buffer.from('x'))]), error: /unknown compression 5/ },
  {
    name: 'blocks out of order',
    build: () => {
      const p = parts();
      return whole({ header: p.header, printer: p.printer, print: p.print, thumb1: p.thumb1, gcode: p.gcode2 });
    },
    error: /thumbnail block at byte \d+ is out of the specified order/,
  },
  { name: 'no printer metadata', build: () => whole({ header: parts().header, gcode: parts().gcode2 }), error: /no printer metadata/ },
  { name: 'no G-code', build: () => { const p = parts(); return whole({ header: p.header, printer: p.printer }); }, error: /no G-code block/ },
  {
    name: 'deflate data that is not deflate',
    build: () => {
      const p = parts();
      p.print = block(TYPE.print, COMP.deflate, u16(0), Buffer.alloc(40), Buffer.from('not deflate at all'));
      return whole(p);
    },
    error: /print_metadata block at byte \d+ does not decompress \(deflate\)/,
  },
  {
    name: 'a metadata encoding other than INI',
    build: () => {
      const p = parts();
      p.file = block(TYPE.file, 0, u16(1), Buffer.from('a=b'), Buffer.from('a=b'));
      return whole(p);
    },
    error: /unknown encoding 1/,
  },
  {
    name: 'a thumbnail in an unknown image format',
    build: () => {
      const p = parts();
      p.thumb1 = block(TYPE.thumbnail, 0, u16(7, 1, 1), PNG, PNG);
      return whole(p);
    },
    error: /unknown image format 7/,
  },
];

for (const c of broken) {
  test(`refused with a clear error: ${c.name}`, async () => {
    await assert.rejects(readBgcodeMetadata(fileOf(c.build())), (e: Error) => e instanceof BgcodeError && c.error.test(e.message));
  });
}

test('G-code block checksums can be skipped (metadata ones never are)', async () => {
  const p = parts();
  p.gcode2 = Buffer.from(p.gcode2);
  p.gcode2[11]! ^= 1;
  const m = await readBgcodeMetadata(fileOf(whole(p)), { skipGcodeChecksums: true });
  assert.equal(m.gcode_blocks, 2);
});

test('a metadata block over the limit is refused, not buffered', async () => {
  await assert.rejects(readBgcodeMetadata(fileOf(whole(parts())), { maxMetadataBytes: 50 }), /is \d+ bytes, more than the 50 allowed/);
});

test('per-tool filament lists are summed', async () => {
  const p = parts();
  p.print = meta(TYPE.print, 'filament used [mm]=100.5, 20.25\nfilament used [g]=1, 2\n');
  const m = await readBgcodeMetadata(fileOf(whole(p)));
  assert.equal(m.filament_used_mm, 120.75);
  assert.equal(m.filament_used_g, 3);
});

const hsCases: Array<{ name: string; input: Buffer; w: number; size: number; want?: string; error?: RegExp }> = [
  { name: 'literals only', input: new Bits().literal('G').literal('1').done(), w: 11, size: 2, want: 'G1' },
  { name: 'overlapping back-reference, window 11', input: hsAbc(11), w: 11, size: 12, want: 'abcabcabcabc' },
  { name: 'overlapping back-reference, window 12', input: hsAbc(12), w: 12, size: 12, want: 'abcabcabcabc' },
  { name: 'run of one byte', input: new Bits().literal('x').backref(1, 16, 11).done(), w: 11, size: 17, want: 'x'.repeat(17) },
  { name: 'reference before the start', input: new Bits().literal('a').backref(5, 2, 11).done(), w: 11, size: 3, error: /back-reference 5 bytes back/ },
  { name: 'data ends early', input: new Bits().literal('a').done(), w: 11, size: 4, error: /ends after 1 of 4 bytes/ },
];

for (const c of hsCases) {
  test(`heatshrink: ${c.name}`, () => {
    if (c.error) assert.throws(() => heatshrinkDecode(c.input, c.w, 4, c.size), c.error);
    else assert.equal(heatshrinkDecode(c.input, c.w, 4, c.size).toString('latin1'), c.want);
  });
}

const durations: Array<[string | undefined, number | null]> = [
  ['32m 6s', 1926],
  ['1d 2h 3m 4s', 93784],
  ['2h', 7200],
  ['45s', 45],
  ['1h 5s', 3605],
  ['', null],
  ['soon', null],
  ['6s 32m', null],
  [undefined, null],
];
for (const [text, want] of durations) {
  test(`slicer duration ${JSON.stringify(text)} -> ${want}`, () => assert.equal(parseSlicerDuration(text), want));
}
