// Every PrusaLink printer state and what it means here: one row each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PRUSALINK_STATES, stateMeaning, vanishedJobEnd } from '../../../src/printers/prusalink/prusalink-states.js';

const rows: Array<[string, string, boolean, string | null, string | null, boolean]> = [
  // state,      status,     job on it, phase,       ends,        takes a job
  ['IDLE', 'idle', false, null, null, true],
  ['READY', 'idle', false, null, null, true],
  ['BUSY', 'printing', false, null, null, false],
  ['PRINTING', 'printing', true, 'streaming', null, false],
  ['PAUSED', 'paused', true, 'paused', null, false],
  ['ATTENTION', 'paused', true, 'paused', null, false],
  ['FINISHED', 'idle', false, null, 'completed', true],
  ['STOPPED', 'idle', false, null, 'cancelled', true],
  ['ERROR', 'error', false, null, 'failed', false],
];

test('the table covers every state of the OpenAPI enum', () => {
  assert.deepEqual(rows.map((r) => r[0]).sort(), [...PRUSALINK_STATES].sort());
});

for (const [state, status, jobActive, phase, ends, acceptsJob] of rows) {
  test(`${state} -> ${status}`, () => {
    assert.deepEqual(stateMeaning(state), { status, jobActive, phase, ends, acceptsJob });
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
