// A line cut in two by a damaged byte read as a newline (common with MeatPack, where '4', '8', 'G' and 'X' are one bit from it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ackedJobLines as acked, Transcript } from './transcript.js';

test('both halves of a cut line draw a request: the replay goes once, the repeats behind it stay repeats', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'G1 X2', 'G1 X3', 'G1 X4');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    > N3 G1 X3
    > N4 G1 X4
    < ok
    # N2 arrives as "N2 G1 X" and "2*<cs>": the front half has no checksum, the back half no line number
    < Error:No Checksum with line number, Last Line: 1
    < Resend: 2
    < ok
    > N2 G1 X2
    < Error:No Line Number with checksum, Last Line: 1
    < Resend: 2
    < ok
    # then N3 and N4, refused by their sequence: one repeat each, already counted
    < Error:Line Number is not Last Line Number+1, Last Line: 1
    < Resend: 2
    < ok
    < Error:Line Number is not Last Line Number+1, Last Line: 1
    < Resend: 2
    < ok
    = nothing written
    < ok
    > N3 G1 X3
    < ok
    > N4 G1 X4
    < ok
  `);
  assert.deepEqual(acked(t), [1, 2, 3, 4]);
  assert.equal(t.proto.stats.linesResent, 3);
  assert.equal(t.proto.stats.spuriousOks, 0);
  assert.ok(t.proto.isIdle());
});

test('the cut-off tail of a checksum runs as an unknown command: its ok acknowledges none of our lines', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'G1 X2');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    # N1 arrives as "N1 G1 X1*" and a bare number, which the firmware runs as a command of its own
    < Error:checksum mismatch, Last Line: 0
    < Resend: 1
    < ok
    > N1 G1 X1
    < echo:Unknown command: "7"
    < ok
    < Error:Line Number is not Last Line Number+1, Last Line: 0
    < Resend: 1
    < ok
    = nothing written
    < ok
    > N2 G1 X2
    < ok
  `);
  assert.deepEqual(acked(t), [1, 2]);
  assert.equal(t.proto.stats.spuriousOks, 0);
  assert.ok(t.proto.isIdle());
});

test('an unknown command that is our own line keeps its ok', () => {
  const t = Transcript.connected('marlin');
  t.job('M9999', 'G1 X2');
  t.run(`
    > N1 M9999
    > N2 G1 X2
    < echo:Unknown command: "M9999"
    < ok
    < ok
  `);
  assert.deepEqual(acked(t), [1, 2]);
  assert.ok(t.proto.isIdle());
});
