// The compact form of a file agrees with the line rules used everywhere else: the same stripped lines, checksums and byte
// counts as stripGcodeLine / xorOf / the raw lengths, however the file is cut into chunks; bad files are refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stripGcodeLine, xorOf } from '../../src/protocol/framing.js';
import { PreparedGcodeBuilder, type PreparedBlock } from '../../src/protocol/prepared-gcode.js';

interface Line {
  text: string;
  xor: number;
  srcBytes: number;
  fileLine: number;
  problem: string | null;
}

function linesOf(blocks: PreparedBlock[]): Line[] {
  const out: Line[] = [];
  for (const b of blocks) {
    for (let i = 0; i < b.count; i++) {
      out.push({
        text: b.text.toString('latin1', b.starts[i], b.starts[i + 1]),
        xor: b.xor[i]!,
        srcBytes: b.srcBytes[i]!,
        fileLine: b.fileLine[i]!,
        problem: b.problems?.get(i) ?? null,
      });
    }
  }
  return out;
}

function build(file: Buffer, cuts: number[] = []): { lines: Line[]; builder: PreparedGcodeBuilder } {
  const builder = new PreparedGcodeBuilder('t.gcode');
  const blocks: PreparedBlock[] = [];
  let from = 0;
  for (const cut of [...cuts, file.length]) {
    blocks.push(builder.push(file.subarray(from, cut)));
    from = cut;
  }
  blocks.push(builder.end());
  return { lines: linesOf(blocks), builder };
}

test('each raw line becomes what stripGcodeLine makes of it, with its checksum and the file bytes it carries (table)', () => {
  // [raw line, kept text or '' when nothing is sent]
  const table: Array<[string, string]> = [
    ['G28', 'G28'],
    ['G1 X10 Y20 ; move', 'G1 X10 Y20'],
    ['   G1 X1   ', 'G1 X1'],
    ['\tM104 S200\t', 'M104 S200'],
    ['; only a comment', ''],
    ['', ''],
    ['   ', ''],
    ['G1 (inline) X5', 'G1  X5'],
    ['G1 (unclosed X5', 'G1'],
    ['M117 Hello   world', 'M117 Hello   world'],
    ['G1 X2\r', 'G1 X2'],
    ['\ufeffG90', 'G90'],
    ['G1 X1 * 3', 'G1 X1 * 3'],
    ['M117 caf\u00e9', 'M117 caf\u00e9'],
  ];
  const raw = table.map(([r]) => r).join('\n') + '\n';
  const expected: Array<Pick<Line, 'text' | 'srcBytes' | 'fileLine'> & { problem: boolean }> = [];
  let carried = 0;
  table.forEach(([r, kept], i) => {
    assert.equal(stripGcodeLine(r), kept, `the table agrees with stripGcodeLine for ${JSON.stringify(r)}`);
    const bytes = Buffer.byteLength(r) + 1;
    if (kept === '') {
      carried += bytes;
      return;
    }
    expected.push({ text: kept, srcBytes: carried + bytes, fileLine: i + 1, problem: /[*]|[^\x20-\x7e\t]/.test(kept) });
    carried = 0;
  });
  const { lines, builder } = build(Buffer.from(raw, 'utf8'));
  assert.deepEqual(
    lines.map((l) => ({ text: l.problem ? expected[lines.indexOf(l)]!.text : l.text, srcBytes: l.srcBytes, fileLine: l.fileLine, problem: l.problem !== null })),
    expected,
  );
  for (const l of lines) if (l.problem === null) assert.equal(l.xor, xorOf(l.text), l.text);
  assert.match(lines.find((l) => l.fileLine === 13)!.problem!, /'\*' in the command/);
  assert.match(lines.find((l) => l.fileLine === 14)!.problem!, /non-ASCII character/);
  // Totals: what a job sends (text and newline), for progress.
  const sendable = expected.map((e) => e.text);
  assert.deepEqual(builder.totals, { bytes: sendable.reduce((n, t) => n + Buffer.byteLength(t) + 1, 0), lines: sendable.length });
  assert.equal(builder.trailingBytes, 0);
});

test('the same lines whatever the chunk boundaries, a last line without newline included, trailing comments counted apart', () => {
  const file = Buffer.from('G90\r\nM82\n; c\nG1 X1.5 E0.2 ; x\n\nG1 X2 (y) E0.4\nG1 X3\n; end\n;tail');
  const whole = build(file);
  assert.deepEqual(
    whole.lines.map((l) => l.text),
    ['G90', 'M82', 'G1 X1.5 E0.2', 'G1 X2  E0.4', 'G1 X3'],
  );
  assert.equal(whole.builder.trailingBytes, '; end\n;tail'.length);
  for (let a = 0; a <= file.length; a++) {
    for (const b of [a, Math.min(file.length, a + 1), Math.min(file.length, a + 7)]) {
      assert.deepEqual(build(file, [a, b]).lines, whole.lines, `cut at ${a} and ${b}`);
    }
  }
});

test('binary files are refused as the streaming reader refuses them', () => {
  assert.throws(() => build(Buffer.from('GCDE\x01\x00\x00\x00')), /binary G-code \(bgcode\)/);
  assert.throws(() => build(Buffer.from('G28\nG1 \x00X1\n')), /NUL byte at offset 7/);
  assert.throws(() => build(Buffer.alloc(70 * 1024, 0x41)), /longer than 65536 bytes/);
  // Split across chunks, the endless line is caught too.
  assert.throws(() => build(Buffer.alloc(70 * 1024, 0x41), [40 * 1024]), /longer than 65536 bytes/);
});
