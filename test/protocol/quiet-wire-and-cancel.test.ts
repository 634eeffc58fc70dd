// Transcripts for the quiet-wire nudge's limits and for a cancel during a resend replay (found in review).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transcript } from './transcript.js';

test('a printer that goes silent during a resend replay still ends in ok_timeout, with a bounded number of rewrites', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'G1 X2', 'G1 X3');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    > N3 G1 X3
    < Error:checksum mismatch, Last Line: 0
    < Resend: 1
    < ok
    > N1 G1 X1
  `);
  for (let s = 0; s < 120; s++) {
    // One second at a time, as the session's timer would; whatever is written is counted below.
    t.now += 1000;
    t.proto.tick(t.now);
    t.drain();
    t.written.length = 0;
  }
  const failure = t.log.find((a) => a.type === 'protocol-failure');
  assert.ok(failure && failure.type === 'protocol-failure' && failure.code === 'ok_timeout', 'the silence ends the job');
  const rewrites = t.writes.filter((w) => w.includes('G1 X1')).length;
  assert.ok(rewrites <= 12, `N1 was written ${rewrites} times: the nudge must not loop once a second`);
  t.written.length = 0;
});

test('no nudge for firmware that answers an empty line with ok (Klipper, Smoothieware), nor while writes are blocked', () => {
  for (const profile of ['klipper', 'smoothieware'] as const) {
    const t = Transcript.connected(profile);
    t.job('G28');
    t.written.length = 0;
    for (let s = 0; s < 5; s++) t.run('@ +1000');
    assert.equal(t.nudges, 0, `${profile} would ok the blank line and acknowledge the wrong command`);
    t.written.length = 0;
  }
  const m = Transcript.connected('marlin');
  m.job('G1 X1');
  m.written.length = 0;
  m.proto.setWritable(false, m.now);
  const deadline = m.proto.nextDeadline();
  assert.ok(deadline === null || deadline > m.now + 1000, 'a blocked port must not make the session timer spin on a due nudge');
  m.run('@ +2000');
  assert.equal(m.nudges, 0);
});

test('cancel during a resend replay: the discarded job lines are never written; the cancel script takes their numbers', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1 E1', 'G1 X2 E2', 'G1 X3 E3');
  t.run(`
    > N1 G1 X1 E1
    > N2 G1 X2 E2
    > N3 G1 X3 E3
    < Error:checksum mismatch, Last Line: 0
    < Resend: 1
    < ok
    > N1 G1 X1 E1
  `);
  t.proto.clearJob();
  t.command('G91');
  t.run(`
    > N2 G91
    < ok
    < ok
  `);
  assert.ok(!t.writes.slice(-2).some((w) => /X[23]/.test(w)), 'no extrusion after the cancel');
  assert.ok(t.proto.isIdle());
});
