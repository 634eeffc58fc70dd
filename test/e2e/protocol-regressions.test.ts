// Protocol bugs first seen in the end-to-end fault-injection runs, pinned down as wire transcripts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkLine } from '../../src/simulator/line-check.js';
import { DIALECTS } from '../../src/simulator/firmware-dialects.js';
import { Transcript } from '../protocol/transcript.js';

const acked = (t: Transcript): number[] => t.log.flatMap((a) => (a.type === 'job-acked' ? [a.jobLine] : []));

test('a replayed line that is corrupted again gets its second resend honoured at once (no timeout, no failure)', () => {
  // Seen at error_rate=1e-3 (seed 1, line 2163): the dedupe of repeated `Resend: N` also swallowed the firmware's
  // genuine request after the replay of N itself arrived damaged; every later poke was answered `Resend: N` again and
  // ignored again until the job failed with ok_timeout.
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'G1 X2', 'G1 X3');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    > N3 G1 X3
    < Error:checksum mismatch, Last Line: 1
    < Resend: 2
    < ok
    < ok
    > N2 G1 X2
    # the replay of N2 arrives damaged too: the firmware asks for N2 again, after the replay was written
    < Error:checksum mismatch, Last Line: 1
    < Resend: 2
    < ok
    > N2 G1 X2
    < ok
    > N3 G1 X3
    < ok
  `);
  assert.deepEqual(acked(t), [1, 2, 3]);
  assert.equal(t.proto.stats.timeouts, 0);
  assert.ok(t.proto.isIdle());
});

test('duplicate resend requests that arrive before the replay is written are still ignored', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'G1 X2');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    < Error:checksum mismatch, Last Line: 0
    < Resend: 1
    < ok
    < Resend: 1
    < ok
    > N1 G1 X1
    < ok
    > N2 G1 X2
    < ok
  `);
  assert.deepEqual(acked(t), [1, 2]);
  assert.equal(t.proto.stats.linesResent, 2);
  assert.ok(t.proto.isIdle());
});

test('simulator: a line left as a bare `N` (a digit flipped into `;`) is a numbered line to Marlin, never a command', () => {
  // Seen at error_rate=1e-4 (seed 11): `N;3067 G1 ...*80` lost everything after `;` as a comment and the simulator
  // ran the command "N". Marlin reads any line starting with N as numbered (strtol gives 0) and asks for a resend.
  for (const raw of ['N;3067 G1 X51.123*80', 'N', 'N G1 X1']) {
    const verdict = checkLine(raw, DIALECTS.marlin, 33066);
    assert.equal(verdict.kind, 'bad', `${raw} -> ${JSON.stringify(verdict)}`);
  }
});

test('repeats of one resend, one per line that was in flight behind it, are absorbed: one replay, nothing twice', () => {
  // At a real baud rate Marlin rejects every line already on the wire behind a bad one by its sequence, each with its
  // own `Resend: N`. Those repeats must not trigger replay after replay (the replay itself goes one line at a time).
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
    < Error:Line Number is not Last Line Number+1, Last Line: 0
    < Resend: 1
    < ok
    < Error:Line Number is not Last Line Number+1, Last Line: 0
    < Resend: 1
    < ok
    < ok
    > N2 G1 X2
    < ok
    > N3 G1 X3
    < ok
  `);
  assert.deepEqual(acked(t), [1, 2, 3]);
  assert.equal(t.proto.stats.linesResent, 3, "N1 once more, and N2 and N3 which the firmware discarded");
  assert.equal(t.proto.stats.timeouts, 0);
  assert.ok(t.proto.isIdle());
});

test('a replay refused by its damaged line number (taken for a repeat) is written again after a quiet spell (300 ms), not after the ok-timeout', () => {
  // Seen at error_rate=1e-3 (seed 11): the replay of N3417 lost digits of its N, so Marlin blamed its sequence, which
  // looks exactly like the echo of a line that was in flight behind it; with nothing else on the wire the link waited
  // for the 15 s ok-timeout.
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
    < Error:Line Number is not Last Line Number+1, Last Line: 0
    < Resend: 1
    < ok
    @ +299
    @ +1
    > N1 G1 X1
    < ok
    > N2 G1 X2
    < ok
    > N3 G1 X3
    < ok
  `);
  assert.deepEqual(acked(t), [1, 2, 3]);
  assert.equal(t.proto.stats.timeouts, 0);
  assert.ok(t.proto.isIdle());
});
