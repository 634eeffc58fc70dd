// Every PrusaLink printer state and what it means here: one row each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endOfPrint, PRUSALINK_STATES, stateMeaning, vanishedJobEnd } from '../../../src/printers/prusalink/prusalink-states.js';

const rows: Array<[string, string | null, boolean, string | null, string | null, boolean, boolean]> = [
  // state,      status,     job on it, phase,       ends,        takes a job, holds the print
  ['IDLE', 'idle', false, null, null, true, false],
  ['READY', 'idle', false, null, null, true, false],
  ['BUSY', 'printing', false, null, null, false, true],
  ['PRINTING', 'printing', true, 'streaming', null, false, false],
  ['PAUSED', 'paused', true, 'paused', null, false, false],
  ['ATTENTION', 'paused', true, 'paused', null, false, false],
  ['FINISHED', 'idle', false, null, 'completed', true, false],
  ['STOPPED', 'idle', false, null, 'cancelled', true, false],
  ['ERROR', 'error', false, null, 'failed', false, false],
  ['UNKNOWN', null, false, null, null, false, true],
];

test('the table covers every state of the OpenAPI enum and the firmware\'s UNKNOWN', () => {
  assert.deepEqual(rows.map((r) => r[0]).sort(), [...PRUSALINK_STATES].sort());
});

for (const [state, status, jobActive, phase, ends, acceptsJob, holds] of rows) {
  test(`${state} -> ${status}`, () => {
    assert.deepEqual(stateMeaning(state), { status, jobActive, phase, ends, acceptsJob, holds });
  });
}

for (const bad of ['idle', 'OFFLINE', '', 42, null, undefined, 'toString', '__proto__']) {
  test(`unknown state ${JSON.stringify(bad)} has no meaning`, () => {
    assert.equal(stateMeaning(bad), null);
  });
}

test('a job that vanished between polls: completed only at 100 %', () => {
  assert.equal(vanishedJobEnd(100), 'completed');
  assert.equal(vanishedJobEnd(99), 'cancelled');
  assert.equal(vanishedJobEnd(0), 'cancelled');
});

test('FINISHED / STOPPED end a print by the state even with no job shown (the firmware shows none) and 99 %', () => {
  assert.equal(endOfPrint(stateMeaning('FINISHED')!, null, 101, 99), 'completed');
  assert.equal(endOfPrint(stateMeaning('STOPPED')!, null, 101, 99), 'cancelled');
  assert.equal(endOfPrint(stateMeaning('FINISHED')!, 101, 101, 0), 'completed');
  // Another job shown: ours vanished without its own result.
  assert.equal(endOfPrint(stateMeaning('FINISHED')!, 102, 101, 40), 'cancelled');
  assert.equal(endOfPrint(stateMeaning('IDLE')!, null, 101, 99), 'cancelled');
});
