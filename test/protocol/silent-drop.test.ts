// RepRapFirmware drops a corrupted line without any reply: transcripts plus a firmware model that counts what really ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transcript } from './transcript.js';

const acked = (t: Transcript): number[] => t.log.flatMap((a) => (a.type === 'job-acked' ? [a.jobLine] : []));
const failures = (t: Transcript): string[] =>
  t.log.flatMap((a) => (a.type === 'protocol-failure' ? [`${a.code}: ${a.message}`] : []));
const TEMPS = 'ok T:20.0 /0.0 B:20.0 /0.0';

test('RepRapFirmware profile: one line in flight (a dropped line must be the only unanswered one)', () => {
  const t = Transcript.connected('reprapfirmware');
  assert.equal(t.proto.currentProfile.badLine, 'silent-drop');
  t.job('G90', 'M83', 'G1 X1', 'G1 X2');
  t.run(`
    > N1 G90
    = nothing written
    < ok
    > N2 M83
    < ok
    > N3 G1 X1
    < ok
    > N4 G1 X2
    < ok
  `);
  assert.deepEqual(acked(t), [1, 2, 3, 4]);
});

test('a dropped absolute move is sent again with the same number after the poke, then the job goes on', () => {
  const t = Transcript.connected('reprapfirmware');
  t.job('G90', 'M83', 'G1 X10 Y10 F3000', 'G1 X20');
  t.run(`
    > N1 G90
    < ok
    > N2 M83
    < ok
    > N3 G1 X10 Y10 F3000
    # the firmware saw a bad checksum and said nothing
    @ +30000
    > N4 M105
    < ${TEMPS}
    !*2 job-acked
    ! temperatures
    ! info line 3 got no ok
    > N3 G1 X10 Y10 F3000
    < ok
    ! job-acked "jobLine":3
    > N4 M105
    < ${TEMPS}
    ! temperatures
    > N5 G1 X20
    < ok
    ! job-acked "jobLine":4
  `);
  // Job line 3 is acknowledged only by its own ok, never by the poke's.
  assert.deepEqual(acked(t), [1, 2, 3, 4]);
  assert.ok(t.none('protocol-failure'));
  assert.ok(t.proto.isIdle());
});

test('the poke\'s `ok T:` never acknowledges the unanswered line (the old behaviour lost it)', () => {
  const t = Transcript.connected('reprapfirmware');
  t.job('G90', 'G1 X10');
  t.run(`
    > N1 G90
    < ok
    > N2 G1 X10
    @ +30000
    > N3 M105
    < ${TEMPS}
    > N2 G1 X10
  `);
  assert.deepEqual(acked(t), [1]);
  assert.equal(t.proto.debugState().ackedThrough, 1);
});

test('a late ok (slow line, not lost) is matched in order: the poke then only acknowledges itself', () => {
  const t = Transcript.connected('reprapfirmware');
  t.job('M83', 'G1 X5 E1', 'G1 X6 E1');
  t.run(`
    > N1 M83
    < ok
    > N2 G1 X5 E1
    @ +30000
    > N3 M105
    < ok
    < ${TEMPS}
    > N4 G1 X6 E1
    < ok
  `);
  assert.deepEqual(acked(t), [1, 2, 3]);
  assert.ok(t.none('protocol-failure'));
});

test('an unanswered relative extrusion is not sent again: the job stops with a clear error, nothing skipped', () => {
  const t = Transcript.connected('reprapfirmware');
  t.job('G90', 'M83', 'G1 X10 E0.5', 'G1 X20 E0.5');
  t.run(`
    > N1 G90
    < ok
    > N2 M83
    < ok
    > N3 G1 X10 E0.5
    @ +30000
    > N4 M105
    < ${TEMPS}
    !*2 job-acked
    ! temperatures
    ! protocol-failure ok_timeout
    = nothing written
  `);
  assert.deepEqual(acked(t), [1, 2]);
  assert.match(failures(t)[0]!, /line 3 \('G1 X10 E0\.5'\).*extrude twice.*nothing was skipped/);
  assert.equal(t.proto.jobCapacity(), 0);
});

test('coordinates in a mode the host never set are not trusted: G1 without a prior G90 is not sent again', () => {
  const t = Transcript.connected('reprapfirmware');
  t.job('G1 X10');
  t.run(`
    > N1 G1 X10
    @ +30000
    > N2 M105
    < ${TEMPS}
    ! temperatures
    ! protocol-failure ok_timeout
    = nothing written
  `);
  // G90 fixes XYZ but not E (it switches E on Marlin only): an extrusion after G90 alone is still refused.
  const e = Transcript.connected('reprapfirmware');
  e.job('G90', 'G1 X10 E1');
  e.run(`
    > N1 G90
    < ok
    > N2 G1 X10 E1
    @ +30000
    > N3 M105
    < ${TEMPS}
    ! job-acked
    ! temperatures
    ! protocol-failure ok_timeout
  `);
});

test('repeated silent drops end in protocol-failure ok_timeout, never a hang', () => {
  const t = Transcript.connected('reprapfirmware', { timeouts: { maxConsecutive: 2 } });
  t.job('G90', 'G1 X10');
  t.run(`
    > N1 G90
    < ok
    > N2 G1 X10
    @ +30000
    > N3 M105
    < ${TEMPS}
    ! job-acked "jobLine":1
    ! temperatures
    ! info line 2 got no ok
    > N2 G1 X10
    @ +30000
    > N3 M105
    < ${TEMPS}
    ! temperatures
    ! info line 2 got no ok
    > N2 G1 X10
    @ +30000
    ! protocol-failure ok_timeout
    = nothing written
  `);
  assert.deepEqual(acked(t), [1]);
  assert.equal(t.proto.nextDeadline(), null);
});

test('a dropped poke: further timeouts, then ok_timeout', () => {
  const t = Transcript.connected('reprapfirmware', { timeouts: { maxConsecutive: 2 } });
  t.job('G90', 'G1 X10');
  t.run(`
    > N1 G90
    < ok
    > N2 G1 X10
    @ +30000
    > N3 M105
    @ +30000
    @ +30000
    ! job-acked "jobLine":1
    ! protocol-failure ok_timeout
  `);
  assert.deepEqual(acked(t), [1]);
});

test('a stray temperature ok (from an earlier poke) never stands for a job line\'s ok', () => {
  const t = Transcript.connected('reprapfirmware');
  t.job('G90', 'M83', 'G1 X10 E1');
  t.run(`
    > N1 G90
    < ok
    > N2 M83
    < ok
    > N3 G1 X10 E1
    < ${TEMPS}
    = nothing written
  `);
  assert.deepEqual(acked(t), [1, 2]);
  assert.equal(t.proto.stats.spuriousOks, 1);
  t.run('< ok');
  assert.deepEqual(acked(t), [1, 2, 3]);
});

test('other firmwares are unchanged: Marlin still acknowledges everything before the poke with its `ok T:`', () => {
  const t = Transcript.connected('marlin');
  assert.equal(t.proto.currentProfile.badLine, undefined);
  t.job('G1 X1', 'G1 X2');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    @ +15000
    > N3 M105
    < ${TEMPS}
  `);
  assert.deepEqual(acked(t), [1, 2]);
});

/**
 * A RepRapFirmware-like receiver per replay-safety.ts: verifies the checksum only, drops a bad line silently, runs
 * every good line (no N sequence check, no dedupe) and answers `ok`, or `ok T:` for M105. `corrupt` and `loseOk`
 * pick which received lines (1-based count) are damaged on the way in, or whose ok is damaged on the way out.
 */
function runAgainstModel(lines: string[], faults: { corrupt?: number[]; loseOk?: number[] }) {
  const t = Transcript.connected('reprapfirmware');
  const ran: string[] = [];
  let received = 0;
  let guard = 0;
  t.job(...lines);
  for (;;) {
    if (++guard > 500) throw new Error('no progress');
    t.collect();
    const frame = t.written.shift();
    if (frame === undefined) {
      if (t.log.some((a) => a.type === 'protocol-failure') || t.proto.isIdle()) break;
      t.now += 30_000;
      t.proto.tick(t.now);
      continue;
    }
    received++;
    if (faults.corrupt?.includes(received)) continue;
    const m = /^N\d+ (.*)\*(\d+)$/.exec(frame);
    assert.ok(m, frame);
    ran.push(m[1]!);
    if (faults.loseOk?.includes(received)) continue;
    t.proto.lineReceived(m[1] === 'M105' ? TEMPS : 'ok', t.now);
  }
  return { t, ran: ran.filter((c) => c !== 'M105') };
}

const JOB = ['G90', 'M83', 'G1 X10 Y10 F3000', 'G1 X20 E0.4', 'G92 E0', 'G1 Z0.3'];

test('model: with no faults every line runs exactly once', () => {
  const { t, ran } = runAgainstModel(JOB, {});
  assert.deepEqual(ran, JOB);
  assert.deepEqual(acked(t), [1, 2, 3, 4, 5, 6]);
});

test('model: a dropped line runs exactly once after recovery, or (extrusion) stops the job with nothing run twice or skipped', () => {
  // Received-line counts: 3 is G1 X10, 4 the extrusion, 5 G92, 6 G1 Z; [3, 8] drops line 3 and then a later one.
  for (const corrupt of [[3], [4], [5], [6], [3, 8]]) {
    const { t, ran } = runAgainstModel(JOB, { corrupt });
    const failed = failures(t);
    if (failed.length > 0) {
      // Only an extrusion may end the job, and then nothing after it ran.
      assert.match(failed[0]!, /E0\.4/, `corrupt ${corrupt}`);
      assert.deepEqual(ran, JOB.slice(0, 3), `corrupt ${corrupt}`);
      continue;
    }
    assert.deepEqual(ran, JOB, `corrupt ${corrupt}: ${JSON.stringify(ran)}`);
    assert.deepEqual(acked(t), [1, 2, 3, 4, 5, 6]);
  }
});

test('model: a lost ok never makes an extrusion or a relative move run twice', () => {
  for (let k = 1; k <= JOB.length; k++) {
    const { t, ran } = runAgainstModel(JOB, { loseOk: [k] });
    const twice = ran.filter((c, i) => ran.indexOf(c) !== i);
    // Only lines whose second run changes nothing may have run twice.
    for (const c of twice) assert.ok(!/^G[01] .*E|^G91/.test(c), `line ${c} ran twice (lost ok of received line ${k})`);
    if (failures(t).length === 0) assert.deepEqual([...new Set(ran)], JOB, `lost ok ${k}`);
    else assert.deepEqual([...new Set(ran)], JOB.slice(0, JOB.indexOf('G1 X20 E0.4') + 1), `lost ok ${k}`);
  }
});
