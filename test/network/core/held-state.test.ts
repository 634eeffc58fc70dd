// The network core's pure rules, one row each: what status is held, which event a change publishes, our job's hold
// on an idle printer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heldView, statusEvent, withOurJob } from '../../../src/printers/network/held-state.js';
import type { PrinterStatus } from '../../../src/printers/printer-state.js';

const err = { code: 'unreachable', message: 'connect ECONNREFUSED' };

test('a reason and an error stand only while offline, in error or being reached again', () => {
  for (const s of ['offline', 'error', 'connecting'] as PrinterStatus[]) {
    assert.deepEqual(heldView(s, 'unreachable', err), { status: s, offlineReason: 'unreachable', error: err }, s);
  }
  for (const s of ['idle', 'printing', 'paused'] as PrinterStatus[]) {
    assert.deepEqual(heldView(s, 'unreachable', err), { status: s, offlineReason: null, error: null }, s);
  }
});

const events: Array<[PrinterStatus, PrinterStatus, boolean, string | null]> = [
  // was,        next,        our link lost, event
  ['offline', 'idle', false, 'printer.online'],
  ['connecting', 'idle', false, 'printer.online'],
  ['error', 'idle', false, 'printer.online'],
  ['offline', 'printing', false, 'printer.online'],
  ['error', 'paused', false, 'printer.online'],
  ['idle', 'printing', false, null],
  ['printing', 'idle', false, null],
  ['idle', 'idle', false, null],
  ['offline', 'connecting', false, null],
  ['idle', 'connecting', false, null],
  ['idle', 'error', false, 'printer.error'],
  ['offline', 'error', false, 'printer.error'],
  ['error', 'error', false, null],
  ['idle', 'offline', false, 'printer.offline'],
  ['connecting', 'offline', false, 'printer.offline'],
  ['offline', 'offline', false, null],
  ['printing', 'offline', true, 'printer.offline'],
  ['error', 'offline', true, 'printer.offline'],
  // A failed attempt to reach a printer already shown unreachable is no news.
  ['connecting', 'offline', true, null],
  ['offline', 'offline', true, null],
];

for (const [was, next, lost, event] of events) {
  test(`${was} -> ${next}${lost ? ' (our link lost)' : ''}: ${event ?? 'no event'}`, () => {
    assert.equal(statusEvent(was, next, lost), event);
  });
}

test('our job keeps an idle printer printing (paused while the job is paused); any other status stands', () => {
  assert.equal(withOurJob('idle', 'streaming'), 'printing');
  assert.equal(withOurJob('idle', 'pausing'), 'printing');
  assert.equal(withOurJob('idle', 'paused'), 'paused');
  assert.equal(withOurJob('idle', null), 'idle');
  for (const s of ['printing', 'paused', 'error', 'offline', 'connecting'] as PrinterStatus[]) {
    assert.equal(withOurJob(s, 'streaming'), s, s);
    assert.equal(withOurJob(s, 'paused'), s, s);
  }
});
