// DurableWriter.untilStoredOrHeld: a caller waits for its writes while there is room, and not a moment longer once the
// disk is full (the writes stay held and are stored, in order, when room returns).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../src/logger.js';
import { DurableWriter } from '../../src/storage/durable-writer.js';

const full = (): Error => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

describe('DurableWriter.untilStoredOrHeld', () => {
  it('waits for the writes while there is room', async () => {
    const writer = new DurableWriter({ logger: silentLogger, retryMs: 10 });
    const stored: string[] = [];
    const slow = (name: string) => () => new Promise<void>((r) => setTimeout(() => (stored.push(name), r()), 20));
    await writer.untilStoredOrHeld([writer.write('a', slow('a')), writer.write('b', slow('b'))]);
    assert.deepEqual(stored, ['a', 'b']);
    await writer.close();
  });

  it('returns once the disk is full, the writes still held; they are stored in order when room returns', async () => {
    let room = false;
    const writer = new DurableWriter({ logger: silentLogger, retryMs: 10 });
    const stored: string[] = [];
    const store = (name: string) => async () => {
      if (!room) throw full();
      stored.push(name);
    };
    const writes = [writer.write('a', store('a')), writer.write('b', store('b'), 'k'), writer.write('b2', store('b2'), 'k')];
    await writer.untilStoredOrHeld(writes);
    assert.equal(writer.blocked, true);
    assert.deepEqual(stored, []);
    // Already full: a later caller does not wait either.
    const later = writer.write('c', store('c'));
    await writer.untilStoredOrHeld([later]);
    room = true;
    // Room again (as another write going through says): held writes are tried now.
    writer.nudge();
    await Promise.all([...writes, later]);
    assert.deepEqual(stored, ['a', 'b2', 'c'], 'in order, the newest of one key replacing the older');
    await writer.close();
  });
});
