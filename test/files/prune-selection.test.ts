// The pure pruning choice as a table: retention, the store cap (oldest use first), files held by active jobs, the grace.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DAY_MS, planPruning, type PruneCandidate, type PrunePolicy } from '../../src/files/prune-selection.js';

const NOW = Date.UTC(2026, 5, 1);
const MIN = 60_000;
/** A file `daysAgo` since its last use, `bytes` big, held by `active` queued/printing/paused jobs. */
const file = (id: string, daysAgo: number, bytes = 100, active = 0): PruneCandidate => ({ id, bytes, lastUsedMs: NOW - daysAgo * DAY_MS, activeJobs: active });
const policy = (p: Partial<PrunePolicy>): PrunePolicy => ({ retentionDays: 30, maxStoreBytes: null, graceMs: 10 * MIN, ...p });

const cases: { name: string; files: PruneCandidate[]; policy: PrunePolicy; remove: string[]; overCap?: number; after?: number }[] = [
  { name: 'nothing stored', files: [], policy: policy({}), remove: [] },
  { name: 'younger than the retention: kept', files: [file('a', 29.9)], policy: policy({}), remove: [] },
  { name: 'exactly at the retention: kept (older than, not as old as)', files: [file('a', 30)], policy: policy({}), remove: [] },
  { name: 'older than the retention: removed', files: [file('a', 30.01)], policy: policy({}), remove: ['a:retention'] },
  { name: 'retention null: kept forever', files: [file('a', 5000)], policy: policy({ retentionDays: null }), remove: [] },
  { name: 'a queued/printing/paused job holds it: never removed, however old', files: [file('a', 400, 100, 1)], policy: policy({}), remove: [] },
  { name: 'several removed, oldest use first', files: [file('b', 31), file('a', 90), file('c', 2)], policy: policy({}), remove: ['a:retention', 'b:retention'] },
  {
    name: 'over the cap: oldest unheld first until under',
    files: [file('new', 1), file('old', 5), file('mid', 3)],
    policy: policy({ maxStoreBytes: 150 }),
    remove: ['old:store_size', 'mid:store_size'],
    after: 100,
  },
  { name: 'at the cap exactly: nothing removed', files: [file('a', 5), file('b', 3)], policy: policy({ maxStoreBytes: 200 }), remove: [] },
  {
    name: 'retention first, then the cap counts what is left',
    files: [file('ancient', 60, 500), file('old', 10, 100), file('new', 1, 100)],
    policy: policy({ maxStoreBytes: 150 }),
    remove: ['ancient:retention', 'old:store_size'],
    after: 100,
  },
  {
    name: 'over the cap but the oldest is held: the next one goes',
    files: [file('held', 20, 100, 2), file('free', 10), file('newest', 1)],
    policy: policy({ maxStoreBytes: 200 }),
    remove: ['free:store_size'],
    after: 200,
  },
  {
    name: 'only held files over the cap: kept, the excess reported',
    files: [file('a', 20, 300, 1), file('b', 10, 200, 1)],
    policy: policy({ maxStoreBytes: 100 }),
    remove: [],
    overCap: 400,
    after: 500,
  },
  {
    name: 'used within the grace (an upload whose job is being written): kept whatever the cap',
    files: [file('just-uploaded', 5 / (24 * 60), 1000), file('older', 1, 10)],
    policy: policy({ maxStoreBytes: 100 }),
    remove: ['older:store_size'],
    overCap: 900,
  },
  {
    name: 'equal last use: ordered by id so passes agree',
    files: [file('b', 5), file('a', 5), file('c', 5)],
    policy: policy({ maxStoreBytes: 200 }),
    remove: ['a:store_size'],
  },
  {
    name: 'thresholds of one day and one byte',
    files: [file('a', 1.5, 1), file('b', 0.5, 2)],
    policy: policy({ retentionDays: 1, maxStoreBytes: 1 }),
    remove: ['a:retention', 'b:store_size'],
    after: 0,
  },
];

describe('planPruning', () => {
  for (const c of cases) {
    it(c.name, () => {
      const plan = planPruning(c.files, c.policy, NOW);
      assert.deepEqual(plan.remove.map((r) => `${r.id}:${r.reason}`), c.remove);
      assert.equal(plan.overCapBytes, c.overCap ?? 0);
      if (c.after !== undefined) assert.equal(plan.bytesAfter, c.after);
    });
  }

  it('leaves its input alone', () => {
    const files = [file('b', 40), file('a', 50)];
    const copy = structuredClone(files);
    planPruning(files, policy({ maxStoreBytes: 0 }), NOW);
    assert.deepEqual(files, copy);
  });
});
