// isDamagedCopy: an echo as one of our lines with a few bytes changed or dropped, never a piece of one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDamagedCopy, isDamagedEcho } from '../../src/protocol/damaged-copy.js';

test('changes and removals up to the limit make a copy; insertions, pieces and more damage do not', () => {
  const line = 'G1 X66.000 Y47.200';
  for (const [echo, max, expected] of [
    [line, 0, true],
    ['Gq X66.000 Y47.r00', 2, true],
    ['G X66.000 Y47.20', 2, true],
    ['Gq X66.000 Y47.20', 2, true],
    ['Gq X66.000 Y47.r00', 1, false],
    ['Gq Xq6.000 Yq7.200', 2, false],
    ['G X66.000 Y47.', 2, false],
    [line + '5', 2, false],
    ['85', 2, false],
    ['', 2, false],
  ] as const) {
    assert.equal(isDamagedCopy(echo, line, max), expected, `${JSON.stringify(echo)} within ${max}`);
  }
});

test('an echo is our line as sent, with its damaged separator in front, or without spaces; digits alone never are', () => {
  const payload = 'G1 X2';
  for (const [echo, expected] of [
    ['Gq Xr', true],
    ['$C1 X2', true],
    ['GqXr', true],
    ['G1X2', true],
    ['12', false],
    ['2', false],
    ['^12 G1 X2(45', false],
  ] as const) {
    assert.equal(isDamagedEcho(echo, payload, 2), expected, JSON.stringify(echo));
  }
});
