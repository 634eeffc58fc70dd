// The transcript language itself: a `!` step fails on an event the script does not state, so a wrong core cannot pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transcript } from './transcript.js';

test('`!` expects the next event: one the script skips over fails the step', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1');
  // The ok emits job-acked; the script claims the next event is a temperature report.
  assert.throws(
    () =>
      t.run(`
        > N1 G1 X1
        < ok
        < ok T:200.0 /200.0 B:60.0 /60.0
        ! temperatures
      `),
    /the next event is \{"type":"job-acked"/,
  );
});

test('a script with `!` steps fails when the core emits an event after the last one stated', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'G1 X2');
  assert.throws(
    () =>
      t.run(`
        > N1 G1 X1
        > N2 G1 X2
        < ok
        ! job-acked "jobLine":1
        < ok
      `),
    /events the transcript does not state/,
  );
});

test('`!*N` states N events of a kind in a row; stating every event passes', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'G1 X2');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    < ok
    < ok
    !*2 job-acked
  `);
  assert.throws(() => Transcript.connected('marlin').run('! job-acked'), /no event is waiting/);
});
