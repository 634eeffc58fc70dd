// decide() tables for order: priority, age, id ties, batches spreading, which printer a job takes, input order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decide } from '../../src/scheduler/decide.js';
import { checkDecideRow, job, ORG, printer, type DecideRow } from './scheduler-fixtures.js';

const rows: DecideRow[] = [
  {
    name: 'urgent > high > normal > low, whatever the age',
    printers: [printer('p1')],
    jobs: [job('low', { priority: 'low', at: 0 }), job('normal', { at: 1 }), job('high', { priority: 'high', at: 2 }), job('urgent', { priority: 'urgent', at: 3 })],
    starts: { urgent: 'p1' },
    waiting: { high: 'printers_busy', normal: 'printers_busy', low: 'printers_busy' },
  },
  {
    name: 'same priority: the oldest first',
    printers: [printer('p1')],
    jobs: [job('young', { at: 5 }), job('old', { at: 1 })],
    starts: { old: 'p1' },
    waiting: { young: 'printers_busy' },
  },
  {
    name: 'same priority and age: the lower id first',
    printers: [printer('p1')],
    jobs: [job('job_b'), job('job_a')],
    starts: { job_a: 'p1' },
    waiting: { job_b: 'printers_busy' },
  },
  {
    name: 'starts come in queue order, each printer taken once',
    printers: [printer('p1'), printer('p2')],
    jobs: [job('c', { at: 3 }), job('b', { at: 2 }), job('a', { priority: 'high', at: 9 })],
    starts: { a: 'p1', b: 'p2' },
    waiting: { c: 'printers_busy' },
  },
  {
    name: 'copies of a batch spread over every fitting printer at once',
    printers: [printer('p1', { mat: 'PLA' }), printer('p2', { mat: 'PLA' }), printer('p3', { mat: 'PETG' }), printer('p4', { mat: 'PLA' })],
    jobs: [1, 2, 3, 4].map((n) => job(`job_${n}`, { mat: 'PLA', batch: 'bat_1' })),
    starts: { job_1: 'p1', job_2: 'p2', job_3: 'p4' },
    waiting: { job_4: 'printers_busy' },
  },
  {
    name: 'a job that could print anywhere leaves the only PETG printer to the PETG job behind it',
    printers: [printer('p1', { mat: 'PETG' }), printer('p2', { mat: 'PLA' })],
    jobs: [job('any', { priority: 'high' }), job('petg', { mat: 'PETG', at: 1 })],
    starts: { any: 'p2', petg: 'p1' },
  },
  {
    name: 'a job pinned to a printer makes that printer the last choice of the others',
    printers: [printer('p1'), printer('p2')],
    jobs: [job('free', { priority: 'urgent' }), job('pinned', { pin: 'p1' })],
    starts: { free: 'p2', pinned: 'p1' },
  },
];

for (const row of rows) test(row.name, () => checkDecideRow(row));

test('the order of the input arrays never changes a decision', () => {
  const printers = ['p3', 'p1', 'p4', 'p2'].map((id, n) => printer(id, { mat: n % 2 === 0 ? 'PLA' : 'PETG' }));
  const jobs = ['j5', 'j2', 'j4', 'j1', 'j3', 'j6'].map((id, n) => job(id, { mat: n % 3 === 0 ? 'PETG' : 'PLA', at: n % 2 }));
  const first = decide({ jobs, printers, org: ORG });
  const reversed = decide({ jobs: [...jobs].reverse(), printers: [...printers].reverse(), org: ORG });
  assert.deepEqual(reversed, first);
  assert.equal(first.starts.length, 4);
});

test('decide() leaves its input untouched', () => {
  const jobs = [job('b', { at: 1 }), job('a')];
  const printers = [printer('p1')];
  const before = structuredClone({ jobs, printers });
  decide({ jobs, printers, org: ORG });
  assert.deepEqual({ jobs, printers }, before);
});
