// The exact-record check itself: what counts as damage no XOR checksum can catch, and what stays a failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkRecord } from './e2e-harness.js';

const A = 'G1 X75.123 Y75.456 E258.78000';
const B = 'G1 X112.123 Y128.456 E258.81000';
const C = 'G1 X149.123 Y81.456 E258.84000';

for (const [name, got, invisible, firstBad] of [
  ['identical', [A, B, C], [], -1],
  ['two flips of bit 1 in a spaced line (3->1, Y->[)', [A, 'G1 X112.121 [128.456 E258.81000', C], [1], -1],
  // No-spaces mode: the firmware checked `G1X112.121[128.456E258.81000`; the simulator puts back the spaces it can.
  ['the same two flips in a no-spaces line, recorded with the words it could split', [A, 'G1 X112.121[128.456E258.81000', C], [1], -1],
  ['one flip in a no-spaces line (visible to the checksum)', [A, 'G1 X112.121Y128.456E258.81000', C], [], 1],
  ['a no-spaces line with a character lost', [A, 'G1 X112.12[128.456E258.81000', C], [], 1],
  ['a line missing', [A, C], [], 1],
  ['a line twice', [A, B, B, C], [], 2],
  ['two lines swapped', [A, C, B], [], 1],
] as const) {
  test(`checkRecord: ${name}`, () => {
    const r = checkRecord(got, [A, B, C]);
    assert.deepEqual(r.checksumInvisible, invisible, r.describe());
    assert.equal(r.firstBadIndex, firstBad, r.describe());
    assert.equal(r.exact, firstBad === -1 && invisible.length === 0);
  });
}

for (const [name, piece, unframed] of [
  ['the frame with its N and * destroyed', '^3 G1 X112.123 Y128.456 E258.81000(45', true],
  ['its front, N destroyed, cut by a newline', '^3G1X112', true],
  ['the tail of its checksum, cut by a newline', '95', true],
  ['its tail with the * destroyed', '81000(95', true],
  ['a piece that reads as a move (the printer may have moved)', 'G1X112.123Y128.456E258.81000(95', false],
  ['a piece with its * (the firmware would have checked it)', '.81000*95', false],
] as const) {
  test(`checkRecord: an extra line before the line sent again, ${name}`, () => {
    const r = checkRecord([A, piece, B, C], [A, B, C]);
    assert.deepEqual(r.unframed, unframed ? [1] : [], r.describe());
    assert.equal(r.firstBadIndex, unframed ? -1 : 1, r.describe());
  });
}

test('checkRecord: a text command (its spaces go on the wire) is never compared without its spaces', () => {
  // A space lost from `M117 a bc`: the same text without spaces, but the firmware saw (and checked) the spaces.
  const r = checkRecord(['M117 abc'], ['M117 a bc']);
  assert.equal(r.firstBadIndex, 0, r.describe());
});
