// The session's script helpers: which line of a cancel script is the last that may move filament.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lastFilamentLine } from '../../src/printers/session-scripts.js';

test('lastFilamentLine: an E move, a firmware retract or an unknown command count; lifts, parks, heaters and M84 do not', () => {
  assert.equal(lastFilamentLine(['G91', 'G1 Z10 F600', 'G90', 'M104 S0', 'M140 S0', 'M107', 'M84']), -1);
  assert.equal(lastFilamentLine(['M83', 'G1 E-4 F2400', 'G91', 'G1 Z10 F600', 'G90', 'G1 X0 Y200 F3000', 'M84']), 1);
  assert.equal(lastFilamentLine(['G10', 'G1 Z10', 'M400']), 0, 'firmware retract');
  assert.equal(lastFilamentLine(['G1 Z10', 'PRINT_END', 'M84']), 1, 'a macro may purge: the meter waits for it');
  assert.equal(lastFilamentLine(['G1 X0 e-1', 'G28 X Y']), 0, 'lower-case e');
  assert.equal(lastFilamentLine([]), -1);
});
