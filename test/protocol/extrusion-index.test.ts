// The file-position extrusion index: what a file extruded up to a byte offset, per tool, from tables of hand-counted lines.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ExtrusionIndexBuilder } from '../../src/protocol/extrusion-index.js';
import { ExtrusionIndexCache, buildExtrusionIndex } from '../../src/printers/extrusion-index-cache.js';

/** Builds an index from lines, each ending with "\n", as a file of those lines would be scanned. */
function indexOf(lines: string[], dialect: 'marlin' | 'klipper' = 'marlin') {
  const b = new ExtrusionIndexBuilder(dialect);
  let offset = 0;
  const ends: number[] = [];
  for (const line of lines) {
    offset += Buffer.byteLength(line) + 1;
    ends.push(offset);
    b.addLine(line, offset);
  }
  return { index: b.build(), ends };
}

describe('extrusion index', () => {
  const lines = [
    'G28', //            0
    'M83', //            1
    'G1 X10 E5', //      2: 5
    'G1 X20 E2.5', //    3: 7.5
    'G1 E-1', //         4: retract -> 6.5
    'G1 E1', //          5: 7.5
    'T1', //             6
    'G1 X30 E4', //      7: tool 1 = 4
    'T0', //             8
    'G1 X40 E0.5', //    9: tool 0 = 8
  ];
  const { index, ends } = indexOf(lines);

  const table: Array<[string, number, number[]]> = [
    ['before the file', 0, [0]],
    ['inside the first extruding line', ends[1]! + 3, [0]],
    ['just past the first extruding line', ends[2]!, [5]],
    ['one byte short of the second', ends[3]! - 1, [5]],
    ['past the retraction', ends[4]!, [6.5]],
    ['past the recovery', ends[5]!, [7.5]],
    ['past the tool change', ends[6]!, [7.5]],
    ['after tool 1 extruded', ends[7]!, [7.5, 4]],
    ['the end of the file', ends[9]!, [8, 4]],
    ['past the end', ends[9]! + 1000, [8, 4]],
  ];
  for (const [name, offset, expected] of table) {
    it(name, () => {
      const got = index.extrudedAt(offset);
      assert.equal(got.length >= expected.length, true);
      expected.forEach((mm, t) => assert.ok(Math.abs(got[t]! - mm) < 1e-4, `tool ${t}: ${got[t]} vs ${mm}`));
    });
  }

  it('keeps a checkpoint only where a total changed (compact)', () => {
    // 10 lines, 7 of them move filament or add a tool.
    assert.ok(index.bytes <= 7 * (8 + 4 * 2), `${index.bytes} bytes`);
    assert.deepEqual(index.total().map((v) => Math.round(v * 1000) / 1000), [8, 4]);
  });

  it('follows absolute E and G92 resets like the wire tracker', () => {
    const { index: abs, ends: e } = indexOf(['M82', 'G92 E0', 'G1 X1 E3', 'G1 X2 E5', 'G92 E0', 'G1 X3 E2']);
    assert.deepEqual([...abs.extrudedAt(e[2]!)], [3]);
    assert.deepEqual([...abs.extrudedAt(e[5]!)], [7]);
  });
});

describe('extrusion index of a stored file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'extrusion-index-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads comments, CRLF and blank lines as the printer would, offsets counting every byte', async () => {
    const file = path.join(dir, 'part.gcode');
    const text = '; sliced\r\nM83\r\n\r\nG1 X1 E2 ; first\r\nG1 X2 E3\r\n';
    writeFileSync(file, text);
    const index = await buildExtrusionIndex(file, 'marlin');
    const firstEnd = text.indexOf('G1 X2');
    assert.deepEqual([...index.extrudedAt(firstEnd - 1)], [0]);
    assert.deepEqual([...index.extrudedAt(firstEnd)], [2]);
    assert.deepEqual([...index.extrudedAt(Buffer.byteLength(text))], [5]);
  });

  it('builds once per file version and refuses a file that is not G-code', async () => {
    const cache = new ExtrusionIndexCache();
    const file = path.join(dir, 'cached.gcode');
    writeFileSync(file, 'M83\nG1 E1\n');
    const a = await cache.forFile(file, 'marlin');
    assert.equal(await cache.forFile(file, 'marlin'), a);
    writeFileSync(file, 'M83\nG1 E1\nG1 E1\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const b = await cache.forFile(file, 'marlin');
    assert.notEqual(b, a);
    assert.deepEqual(b.total(), [2]);
    const binary = path.join(dir, 'binary.gcode');
    writeFileSync(binary, Buffer.alloc(100_000, 1));
    await assert.rejects(cache.forFile(binary, 'marlin'), /longer than|not a G-code/);
    await assert.rejects(cache.forFile(path.join(dir, 'missing.gcode'), 'marlin'), /ENOENT/);
  });
});
