// A plain-text link at a byte error rate of 1e-3 (MeatPack off, as on stock Marlin and Klipper over serial): the
// damage it does, line by line (one row as MeatPack's no-spaces mode sends lines), and a whole job through it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ackedJobLines as acked, Transcript } from './transcript.js';
import { streamOverSimulatedLink } from './simulated-link.js';
import { checkRecord } from '../e2e/e2e-harness.js';
import { zigZagMoves } from '../helpers/zigzag-moves.js';

/*
 * One of our lines damaged in two bytes by the same bit: the XOR checksum cannot see it, the firmware accepts the
 * line's number and runs what it read, here a command it does not know. The ok after the echo is that line's own.
 * Each row is how the echo reaches us.
 */
for (const [shape, echo] of [
  ['both bytes read as other letters', 'Gq X2'],
  ['both bytes became control bytes, which the reply parser drops', 'G\x11 X\x11'],
  ['the space after the number was one of the two, so it starts the command', '$C1 X2'],
  ['sent without spaces (MeatPack\'s no-spaces mode), both bytes read as other letters', 'GqXr'],
] as const) {
  test(`a line the checksum could not protect (${shape}) is acknowledged by its own ok: the next replay goes at once`, () => {
    const t = Transcript.connected('marlin');
    t.job('G1 X2', 'G1 X3', 'G1 X4');
    t.run(`
      > N1 G1 X2
      > N2 G1 X3
      > N3 G1 X4
      < echo:Unknown command: "${echo}"
      < ok
      # then N2 arrives damaged where the checksum does see it
      < Error:checksum mismatch, Last Line: 1
      < Resend: 2
      < ok
      # line 1 is acknowledged: nothing is owed before 2, so the replay is written now, not after an ok-timeout
      > N2 G1 X3
      # N3, refused by its sequence: the repeat behind the first request
      < Error:Line Number is not Last Line Number+1, Last Line: 1
      < Resend: 2
      < ok
      = nothing written
      < ok
      > N3 G1 X4
      < ok
    `);
    assert.deepEqual(acked(t), [1, 2, 3]);
    assert.equal(t.proto.stats.timeouts, 0);
    assert.ok(t.log.some((a) => a.type === 'firmware-warning' && a.text.includes('Unknown command')), 'the refusal is shown');
    assert.ok(t.proto.isIdle());
  });
}

test('steady noise with lost oks is no storm: each ok-timeout recovery acknowledges new lines, and the count starts again', () => {
  const t = Transcript.connected('marlin', { resend: { stormLimit: 2 } });
  // Three times: line a's ok lost on the way back, line a+1 damaged. Three requests in all, over the limit of two,
  // but every one is followed by new lines acknowledged.
  for (let a = 1; a <= 7; a += 3) {
    t.job(`G1 X${a}`, `G1 X${a + 1}`);
    t.run(`
      > N${a} G1 X${a}
      > N${a + 1} G1 X${a + 1}
      < Error:checksum mismatch, Last Line: ${a}
      < Resend: ${a + 1}
      < ok
      # the replay waits for line ${a}'s ok, which never comes: the ok-timeout writes it all the same
      = nothing written
      @ +15000
      > N${a + 1} G1 X${a + 1}
      < ok
      # that ok was the replay's; we took it for line ${a}'s, and the next timeout's poke settles it
      @ +15000
      > N${a + 2} M105
      < ok T:25.0 /0.0 B:25.0 /0.0 @:0 B@:0
    `);
  }
  assert.deepEqual(acked(t), [1, 2, 3, 4, 5, 6]);
  assert.ok(t.proto.isIdle());
  assert.ok(!t.log.some((a) => a.type === 'protocol-failure'), JSON.stringify(t.log.filter((a) => a.type === 'protocol-failure')));
});

test('a firmware asking again and again for a line already acknowledged is a storm (the replay passing it is no progress)', () => {
  const t = Transcript.connected('marlin', { resend: { stormLimit: 3 } });
  t.job('G1 X1', 'G1 X2');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    < ok
    < ok
  `);
  for (let round = 1; round <= 3; round++) {
    t.run(`
      < Resend: 1
      < ok
      > N1 G1 X1
      < ok
      > N2 G1 X2
      < ok
    `);
  }
  t.run(`
    # the fourth request without a new line acknowledged is one too many
    < Resend: 1
    = nothing written
  `);
  const failures = t.log.flatMap((a) => (a.type === 'protocol-failure' ? [a.code] : []));
  assert.deepEqual(failures, ['resend_storm']);
  assert.deepEqual(acked(t), [1, 2]);
});

test('the bench\'s 100,000 lines at a byte error rate of 1e-3 on plain text: completed, each line run once, in order', () => {
  const lines = zigZagMoves(100_000);
  // Native USB (no rate limit), instant motion, simulated time. With seed 3, lines are run with damage the checksum
  // cannot see, as in the rows above; the first (near line 29,400) was taken for a cut-off piece and the job, an ok
  // behind from there, ended in a resend storm.
  const r = streamOverSimulatedLink(lines, 'baud=0&speed=max&meatpack=0&error_rate=0.001&seed=3', { maxSimulatedMs: 600_000 });
  const check = checkRecord(r.executed, lines);
  const detail = `${r.outcome} ${r.message}; ${r.jobLinesAcked} acknowledged; ${JSON.stringify(r.host)}; ${check.describe()}\n${r.tail.join('\n')}`;
  assert.equal(r.outcome, 'completed', detail);
  assert.equal(r.jobLinesAcked, lines.length, detail);
  // Only damage no XOR checksum can see may differ from the file (counted, as the bench counts it).
  assert.equal(check.firstBadIndex, -1, detail);
  assert.ok(r.host.resends > 1000, `the link really was noisy: ${r.host.resends} resend requests`);
});
