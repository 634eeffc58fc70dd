// The job runner's pending writes: settled() waits for every write, late ones included, and no finished write's
// result is kept (a runner tracks about a hundred writes a job for months: the soak benchmark's heap growth).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PendingWrites } from '../../src/jobs/pending-writes.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

test('settled() waits for every tracked write, including one tracked while it waits', async () => {
  const w = new PendingWrites();
  const done: string[] = [];
  let release!: () => void;
  w.track(new Promise<void>((r) => (release = r)).then(() => void done.push('first')));
  const settled = w.settled().then(() => done.push('settled'));
  w.track(new Promise<void>((r) => setTimeout(r, 30)).then(() => void done.push('late')));
  release();
  await settled;
  assert.deepEqual(done, ['first', 'late', 'settled']);
});

/** In its own frame, so no local of the test itself still points at a result. */
async function trackResults(w: PendingWrites, registry: FinalizationRegistry<string>): Promise<void> {
  for (let i = 0; i < 50; i++) {
    // What a write resolves to (a row, a result object): the tracker must not hold it once the write is done.
    const result = { label: `write ${i}`, payload: new Array(1000).fill(i) };
    registry.register(result, result.label);
    w.track(Promise.resolve(result));
  }
  await w.settled();
}

test('the result of a finished write is not kept: it can be collected', async () => {
  const w = new PendingWrites();
  const collected: string[] = [];
  const registry = new FinalizationRegistry<string>((label) => collected.push(label));
  await trackResults(w, registry);
  w.track(Promise.resolve(null));
  await w.settled();
  for (let round = 0; round < 10 && collected.length < 50; round++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  assert.equal(collected.length, 50, `collected ${collected.length} of 50 write results`);
});
