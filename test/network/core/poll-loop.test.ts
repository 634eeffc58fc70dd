// The network core's poll loop: one round at a time, the next one timed after it, none after stop(), and a timed
// round skipped while it is not due (a pushed state makes polling the fallback).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PollLoop } from '../../../src/printers/network/poll-loop.js';

const turn = (ms = 0): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ok(); i++) await turn(5);
  assert.ok(ok(), what);
}

test('a caller asking while a round runs joins it; rounds then follow one another until stop()', async () => {
  let rounds = 0;
  let release!: () => void;
  const loop = new PollLoop({ round: () => new Promise<void>((r) => ((release = r), rounds++)), delay: () => 1 });
  loop.start();
  const a = loop.now();
  const b = loop.now();
  assert.equal(a, b, 'joined');
  assert.equal(rounds, 1);
  release();
  await a;
  await until('the next round is timed after the first', () => rounds === 2);
  const stopping = loop.stop();
  release();
  await stopping;
  const at = rounds;
  await turn(30);
  assert.equal(rounds, at, 'no round after stop()');
});

test('a failing round does not stop the loop', async () => {
  let rounds = 0;
  const loop = new PollLoop({ round: () => (rounds++, Promise.reject(new Error('ECONNREFUSED'))), delay: () => 1 });
  loop.start();
  await loop.now();
  await until('rounds go on', () => rounds >= 3);
  await loop.stop();
});

test('a timed round is skipped while not due; an asked one runs regardless', async () => {
  let rounds = 0;
  let due = false;
  let checks = 0;
  const loop = new PollLoop({ round: async () => void rounds++, delay: () => 1, due: () => (checks++, due) });
  loop.start();
  await loop.now();
  await until('the timer asked a few times', () => checks >= 3);
  assert.equal(rounds, 1, 'nothing polled while pushed');
  await loop.now();
  assert.equal(rounds, 2);
  due = true;
  await until('polled again once due', () => rounds >= 3);
  await loop.stop();
});
