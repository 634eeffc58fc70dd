// The dashboard's clock (web/src/lib/clock.ts): how answers' Date headers narrow the server-minus-browser offset, as a
// table, and that now() follows the server once an answer arrived.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { learnServerTime, narrowOffset, now, type OffsetBounds } from '../../web/src/lib/clock.js';

const S = Date.parse('2026-11-30T23:45:00.000Z');

describe('dashboard clock', () => {
  it('narrows the offset with each answer and starts over when a clock was set', () => {
    // [bounds before, Date header (ms, whole seconds), sent at, received at (browser ms)] -> bounds after
    const table: Array<[OffsetBounds | null, number, number, number, OffsetBounds]> = [
      // First answer: the server read S..S+999 between 1000 and 1040 on the browser's clock.
      [null, S, 1000, 1040, { low: S - 1040, high: S + 1000 - 1000 }],
      // A second, later in the server's second: the lower bound rises.
      [{ low: S - 1040, high: S }, S + 1000, 1700, 1720, { low: S + 1000 - 1720, high: S }],
      // One that says nothing new keeps the bounds.
      [{ low: S - 720, high: S }, S, 1000, 1500, { low: S - 720, high: S }],
      // A contradiction (the server's clock jumped an hour): start from this answer alone.
      [{ low: S - 720, high: S }, S + 3_600_000, 2000, 2010, { low: S + 3_600_000 - 2010, high: S + 3_600_000 + 1000 - 2000 }],
    ];
    for (const [before, serverMs, sentAt, receivedAt, after] of table) {
      assert.deepEqual(narrowOffset(before, serverMs, sentAt, receivedAt), after, JSON.stringify({ before, serverMs, sentAt, receivedAt }));
    }
  });

  it('now() is the server time once a Date header was seen; a missing or unreadable one changes nothing', () => {
    learnServerTime(null, Date.now(), Date.now());
    learnServerTime('not a date', Date.now(), Date.now());
    assert.ok(Math.abs(now() - Date.now()) < 50, 'the browser clock until an answer arrives');
    const sent = Date.now();
    learnServerTime(new Date(S).toUTCString(), sent, Date.now());
    const shown = now();
    assert.ok(shown >= S - 100 && shown < S + 1100, `${new Date(shown).toISOString()} is within the header's second`);
  });
});
