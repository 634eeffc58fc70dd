// NodeWatch, the pure judge of silence: a table of readings (monotonic ms, the nodes table) and who is silent at each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NodeWatch, type SeenNode } from '../../src/nodes/node-watch.js';

const on = (id: string, beats: number): SeenNode => ({ id, beats, state: 'online' });

test('a node is silent once its beats stayed unchanged for lostAfterMs on our clock; a change, a state or its absence resets', () => {
  const watch = new NodeWatch('me', 1000);
  const steps: Array<[number, SeenNode[], string[]]> = [
    // [our monotonic ms, the rows read, silent ids expected]
    [0, [on('me', 1), on('a', 5), on('b', 7)], []], // first sight starts the count
    [999, [on('me', 1), on('a', 5), on('b', 8)], []], // b beat
    [1000, [on('me', 1), on('a', 5), on('b', 8)], ['a']], // a: 1000 ms without change
    [1500, [on('me', 1), on('a', 6), on('b', 8)], []], // a beat again; b's count began at 999
    [1999, [on('me', 1), on('a', 6), on('b', 8)], ['b']],
    [2600, [on('me', 1), { id: 'a', beats: 6, state: 'lost' }, { id: 'b', beats: 8, state: 'stopped' }], []], // not online: not judged
    [3700, [on('me', 1), on('a', 6)], []], // online again with the same beats (restarted, not beaten yet): counted from now
    [4699, [on('me', 1), on('a', 6)], []],
    [4700, [on('me', 1), on('a', 6)], ['a']],
    [9000, [on('me', 1)], []], // gone from the table: forgotten
    [9001, [on('me', 1), on('a', 6)], []], // back: a fresh count
  ];
  for (const [now, rows, silent] of steps) {
    assert.deepEqual(watch.observe(rows, now).map((s) => s.id), silent, `at ${now} ms`);
  }
});

test('never judges itself, and reports the beats it saw (the conditional update needs them unchanged)', () => {
  const watch = new NodeWatch('me', 10);
  watch.observe([on('me', 3), on('x', 4)], 0);
  assert.deepEqual(watch.observe([on('me', 3), on('x', 4)], 50), [{ id: 'x', beats: 4 }]);
});
