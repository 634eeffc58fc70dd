// The pure G-code inspector: every slicer's header and footer shape, every file_invalid reason, thumbnails, counts, chunking.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GcodeInspector, inspectGcode, type FileInvalid, type InspectionOutcome } from '../../src/files/gcode-inspector.js';
import type { SlicerMetadata } from '../../src/files/slicer-metadata.js';
import {
  bambuStudio,
  cura,
  ideaMaker,
  makeJpegLike,
  makePng,
  orcaSlicer,
  prusaSlicer,
  simplify3d,
  superSlicer,
  thumbnailBlock,
} from './gcode-fixtures.js';

const OPTIONS = { maxThumbnailBase64Bytes: 2 * 1024 * 1024 };

function inspected(text: string | Buffer) {
  const out = inspectGcode(text, OPTIONS);
  if (!out.ok) assert.fail(`expected a valid file, got ${out.invalid.reason}: ${out.invalid.message}`);
  return out.inspection;
}

function refused(text: string | Buffer) {
  const out = inspectGcode(text, OPTIONS);
  if (out.ok) assert.fail('expected file_invalid');
  return out.invalid;
}

const png16 = makePng(16, 16);
const png32 = makePng(32, 32, [10, 200, 10]);
const png64 = makePng(64, 64, [10, 10, 200]);
const jpeg48 = makeJpegLike(400);

describe('slicer metadata, one table row per slicer', () => {
  const rows: { name: string; text: string; expect: Partial<SlicerMetadata>; thumb?: { format: string; width: number; bytes: Buffer } | null }[] = [
    {
      name: 'PrusaSlicer (estimates and config at the end)',
      text: prusaSlicer(thumbnailBlock(png16, 16, 16)),
      expect: {
        slicer: 'PrusaSlicer',
        slicer_version: '2.7.1+linux-x64-GTK3',
        estimated_duration: 3723,
        filament_used_g: 3.69,
        filament_used_mm: 1234.56,
        filament_weight_source: 'slicer',
        filament_type: 'PETG',
        extruders: [{ index: 0, type: 'PETG', used_g: 3.69, used_mm: 1234.56 }],
        nozzle_diameter: 0.4,
        layer_height: 0.2,
        layer_count: 3,
      },
      thumb: { format: 'png', width: 16, bytes: png16 },
    },
    {
      name: 'SuperSlicer (two extruders, no total line, two thumbnails)',
      text: superSlicer(`${thumbnailBlock(png16, 16, 16, 'thumbnail_PNG')}\n${thumbnailBlock(png32, 32, 32, 'thumbnail_PNG')}`),
      expect: {
        slicer: 'SuperSlicer',
        slicer_version: '2.5.59.12',
        estimated_duration: 93605,
        filament_used_g: 12.75,
        filament_used_mm: 4240.5,
        filament_weight_source: 'slicer',
        filament_type: 'PLA',
        extruders: [
          { index: 0, type: 'PLA', used_g: 10.5, used_mm: 3500 },
          { index: 1, type: 'PETG', used_g: 2.25, used_mm: 740.5 },
        ],
        nozzle_diameter: 0.6,
        layer_height: 0.3,
        layer_count: 1,
      },
      thumb: { format: 'png', width: 32, bytes: png32 },
    },
    {
      name: 'OrcaSlicer (header block, footer estimates, a larger JPEG beside a PNG)',
      text: orcaSlicer(`${thumbnailBlock(png32, 32, 32)}\n${thumbnailBlock(jpeg48, 48, 48, 'thumbnail_JPG')}`),
      expect: {
        slicer: 'OrcaSlicer',
        slicer_version: '2.1.1',
        estimated_duration: 7800,
        filament_used_g: 12.29,
        filament_used_mm: 4120.33,
        filament_type: 'PLA',
        nozzle_diameter: 0.4,
        layer_height: 0.2,
        layer_count: 125,
      },
      thumb: { format: 'jpg', width: 48, bytes: jpeg48 },
    },
    {
      name: 'Bambu Studio (AMS slots 1 and 3, per-slot grams, total time)',
      text: bambuStudio(thumbnailBlock(png64, 64, 64)),
      expect: {
        slicer: 'Bambu Studio',
        slicer_version: '01.09.00.70',
        estimated_duration: 5260,
        filament_used_g: 12.38,
        filament_used_mm: 4151.76,
        filament_weight_source: 'slicer',
        filament_type: 'PLA',
        extruders: [
          { index: 0, type: 'PLA', used_g: 12.02, used_mm: 4031.26 },
          { index: 2, type: 'PETG', used_g: 0.36, used_mm: 120.5 },
        ],
        nozzle_diameter: 0.4,
        layer_height: 0.2,
        layer_count: 120,
      },
      thumb: { format: 'png', width: 64, bytes: png64 },
    },
    {
      name: 'Cura (length in metres: grams computed with 1.75 mm and PLA density)',
      text: cura(thumbnailBlock(png32, 32, 32)),
      expect: {
        slicer: 'Cura',
        slicer_version: '5.6.0',
        estimated_duration: 6666,
        filament_used_g: 7,
        filament_used_mm: 2345.67,
        filament_weight_source: 'computed',
        filament_type: null,
        nozzle_diameter: null,
        layer_height: 0.12,
        layer_count: 167,
      },
      thumb: { format: 'png', width: 32, bytes: png32 },
    },
    {
      name: 'Simplify3D (CRLF, settings summary and build summary)',
      text: simplify3d(),
      expect: {
        slicer: 'Simplify3D',
        slicer_version: '4.1.2',
        estimated_duration: 3720,
        filament_used_g: 3.77,
        filament_used_mm: 1234.5,
        filament_weight_source: 'slicer',
        filament_type: 'PETG',
        extruders: [{ index: 0, type: 'PETG', used_g: 3.77, used_mm: 1234.5 }],
        nozzle_diameter: 0.5,
        layer_height: 0.25,
        layer_count: 3,
      },
      thumb: null,
    },
    {
      name: 'ideaMaker (per-extruder length, diameter and density)',
      text: ideaMaker(),
      expect: {
        slicer: 'ideaMaker',
        slicer_version: '4.4.1.6442',
        estimated_duration: 5325,
        filament_used_g: 10.31,
        filament_used_mm: 3456.78,
        filament_weight_source: 'computed',
        filament_type: 'PLA',
        extruders: [{ index: 0, type: 'PLA', used_g: 10.31, used_mm: 3456.78 }],
        nozzle_diameter: 0.4,
        layer_count: 2,
      },
      thumb: null,
    },
  ];

  for (const row of rows) {
    it(row.name, () => {
      const got = inspected(row.text);
      for (const [key, value] of Object.entries(row.expect)) {
        assert.deepEqual(got.metadata[key as keyof SlicerMetadata], value, `${key}`);
      }
      if (row.thumb === undefined) return;
      if (row.thumb === null) {
        assert.equal(got.thumbnail, null);
        return;
      }
      assert.ok(got.thumbnail, 'a thumbnail');
      assert.equal(got.thumbnail.format, row.thumb.format);
      assert.equal(got.thumbnail.width, row.thumb.width);
      assert.ok(got.thumbnail.data.equals(row.thumb.bytes), 'decoded bytes are the embedded image');
    });
  }

  it('a file without slicer comments is valid with empty metadata', () => {
    const got = inspected('G28\nG1 X10 Y10 F3000\nM84\n');
    assert.equal(got.metadata.slicer, null);
    assert.equal(got.metadata.estimated_duration, null);
    assert.deepEqual(got.metadata.extruders, []);
    assert.equal(got.thumbnail, null);
  });
});

describe('file_invalid reasons', () => {
  const cases: { name: string; input: string | Buffer; reason: string; message: RegExp }[] = [
    { name: 'empty file', input: '', reason: 'empty', message: /empty \(0 bytes\)/ },
    { name: 'only comments and blank lines', input: '; just a note\n\n   \n; another\n', reason: 'no_gcode_command', message: /only comments/ },
    { name: 'text without any G or M command', input: 'hello\nworld\n', reason: 'no_gcode_command', message: /no G or M command in 2 line/ },
    { name: 'a NUL byte (binary)', input: Buffer.from('G28\nG1 X1\0\x01\x02\n'), reason: 'binary', message: /^line 2: .*NUL/ },
    { name: 'a PNG uploaded as G-code', input: makePng(8, 8), reason: 'binary', message: /binary/ },
    { name: 'control characters without NUL', input: Buffer.from('G28\nG1 X\x03\x04\n'), reason: 'binary', message: /^line 2: control character 0x03/ },
    { name: 'Prusa binary G-code', input: Buffer.concat([Buffer.from('GCDE'), Buffer.from([1, 0, 0, 0, 1, 0])]), reason: 'bgcode', message: /binary G-code.*not supported/ },
    { name: 'a ZIP (.3mf) archive', input: Buffer.from('PK\x03\x04rest-of-zip'), reason: 'binary', message: /ZIP archive/ },
    {
      name: 'a command over 95 characters after stripping',
      input: `G28\nM117 ${'x'.repeat(91)} ; the comment does not count\n`,
      reason: 'line_too_long',
      message: /^line 2: the command is 96 characters long.*at most 95/,
    },
    { name: 'invalid UTF-8 in a command', input: Buffer.from([0x47, 0x31, 0x20, 0xff, 0xfe, 0x0a]), reason: 'binary', message: /^line 1: bytes that are not text/ },
    { name: 'a non-ASCII command', input: 'G28\nM117 Druck läuft\n', reason: 'unsendable_line', message: /^line 2: .*non-ASCII character 'ä'/ },
    { name: "a '*' inside a command", input: 'G28\nN1 G1 X5*44\n', reason: 'unsendable_line', message: /^line 2: .*'\*'/ },
    {
      name: 'one endless line without a newline or comment',
      input: 'G1 X' + '1'.repeat(40_000),
      reason: 'line_too_long',
      message: /^line 1: longer than 16 KiB/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const invalid = refused(c.input);
      assert.equal(invalid.reason, c.reason);
      assert.match(invalid.message, c.message);
    });
  }

  it('a 95-character command and long comments are fine', () => {
    const text = `G28\nM117 ${'x'.repeat(90)}\n; ${'c'.repeat(30_000)}\nG1 X1 ; ${'d'.repeat(30_000)}\n`;
    const got = inspected(text);
    assert.equal(got.sent_lines_total, 3);
  });

  it('the verdict is known as soon as the binary chunk arrives (the caller can stop early)', () => {
    const inspector = new GcodeInspector(OPTIONS);
    inspector.push(Buffer.from('G28\n'));
    assert.equal(inspector.failure, null);
    inspector.push(Buffer.from([0x47, 0x00, 0x0a]));
    const failure = inspector.failure as FileInvalid | null;
    assert.equal(failure?.reason, 'binary');
    assert.equal(failure?.line, 2);
  });
});

describe('counts and thumbnails', () => {
  it('counts lines, sent lines and the bytes that go on the wire', () => {
    const got = inspected('; header\r\nG28 ; home\r\n\r\n  G1 X10 (move)  \r\nM84');
    assert.equal(got.line_count, 5);
    assert.equal(got.sent_lines_total, 3);
    // "G28\n" + "G1 X10\n" + "M84\n"
    assert.equal(got.sent_bytes_total, 4 + 7 + 4);
    assert.equal(got.size, Buffer.byteLength('; header\r\nG28 ; home\r\n\r\n  G1 X10 (move)  \r\nM84'));
  });

  it('drops a thumbnail whose length does not match its header, and one over the size cap', () => {
    const broken = thumbnailBlock(png32, 32, 32).replace(/begin 32x32 (\d+)/, (_m, n) => `begin 32x32 ${Number(n) + 4}`);
    assert.equal(inspected(`${broken}\nG28\n`).thumbnail, null);
    const capped = inspectGcode(`${thumbnailBlock(png64, 64, 64)}\n${thumbnailBlock(png16, 16, 16)}\nG28\n`, {
      maxThumbnailBase64Bytes: 200,
    });
    assert.ok(capped.ok);
    assert.equal(capped.inspection.thumbnail?.width, 16, 'the one under the cap is kept');
  });

  it('skips QOI thumbnails (they cannot be served as an image)', () => {
    const qoi = thumbnailBlock(Buffer.from('qoif-not-really'), 64, 64, 'thumbnail_QOI');
    assert.equal(inspected(`${qoi}\nG28\n`).thumbnail, null);
  });

  it('gives the same result however the bytes are chunked', () => {
    const text = Buffer.from(bambuStudio(thumbnailBlock(png64, 64, 64)));
    const whole = inspectGcode(text, OPTIONS);
    for (const size of [1, 7, 64, 1000]) {
      const inspector = new GcodeInspector(OPTIONS);
      for (let i = 0; i < text.length; i += size) inspector.push(text.subarray(i, i + size));
      const out: InspectionOutcome = inspector.end();
      assert.deepEqual(out, whole, `chunks of ${size}`);
    }
  });

  it('a UTF-8 BOM at the start is ignored', () => {
    assert.equal(inspected('\ufeffG28\nM84\n').sent_bytes_total, 8);
  });
});
