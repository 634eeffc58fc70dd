// Table tests of the remaining-time estimate: slicer estimate early, measured pace late, pace alone without estimate.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimateRemaining } from '../../src/jobs/job-eta.js';

const rows: Array<[string, number | null, number, number, number | null]> = [
  // name, estimate s, progress %, elapsed s, expected remaining s
  ['not started, estimate known', 3600, 0, 0, 3600],
  ['heating for 5 min at 0 %', 3600, 0, 300, 3300],
  ['no estimate, no progress', null, 0, 120, null],
  ['no estimate, half done in 10 min', null, 50, 600, 600],
  ['on pace at 50 %: pace takes over fully', 3600, 50, 1800, 1800],
  ['twice slower than sliced at 50 %', 3600, 50, 3600, 3600],
  ['twice slower at 10 %: blend leans on the slicer', 3600, 10, 720, Math.round(3240 * 0.8 + 6480 * 0.2)],
  ['done', 3600, 100, 3500, 0],
  ['progress over 100 is clamped', 3600, 140, 3500, 0],
  ['estimate of zero is ignored', 0, 25, 100, 300],
  ['never negative when late at 0 %', 600, 0, 900, 30],
];

for (const [name, est, pct, elapsed, expected] of rows) {
  test(name, () => assert.equal(estimateRemaining(est, pct, elapsed), expected));
}
