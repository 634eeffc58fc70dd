// One transcript per edge case of the serial protocol doc ("Edge cases a test must show handled").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transcript } from './transcript.js';
import { checkLine, stripGcodeLine } from '../../src/protocol/framing.js';
import { profileByName } from '../../src/printers/firmware-profiles.js';

const acked = (t: Transcript): number[] =>
  t.log.flatMap((a) => (a.type === 'job-acked' ? [a.jobLine] : []));

test('duplicate resend requests for one N are ignored until the replay passes it', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'G1 X2', 'G1 X3', 'G1 X4');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    > N3 G1 X3
    > N4 G1 X4
    < Error:checksum mismatch, Last Line: 1
    < Resend: 2
    < ok
    < Resend: 2
    < ok
    # line 1 was received before the bad one: its ok still comes, and only then does the replay start (ping-pong)
    = nothing written
    < ok
    > N2 G1 X2
    < ok
    > N3 G1 X3
    < ok
    > N4 G1 X4
    < ok
  `);
  assert.deepEqual(acked(t), [1, 2, 3, 4]);
  assert.equal(t.proto.stats.resends, 2);
  assert.equal(t.proto.stats.linesResent, 3);
  assert.ok(t.proto.isIdle());
});

test('resend with a trailing ok (Marlin) swallows that ok; without one (Smoothieware) nothing is swallowed', () => {
  const m = Transcript.connected('marlin');
  m.job('G1 X1', 'G1 X2');
  m.run(`
    > N1 G1 X1
    > N2 G1 X2
    < ok
    < Resend: 2
    < ok
    > N2 G1 X2
    < ok
  `);
  assert.deepEqual(acked(m), [1, 2]);
  assert.equal(m.proto.stats.spuriousOks, 0);

  const s = Transcript.connected('smoothieware');
  s.job('G1 X1', 'G1 X2');
  s.run(`
    > N1 G1 X1
    > N2 G1 X2
    < ok
    < rs N2
    > N2 G1 X2
    < ok
  `);
  assert.deepEqual(acked(s), [1, 2]);
  assert.ok(s.proto.isIdle());
});

test('skip (Repetier): the discarded line\'s ok is swallowed, ok <n> acknowledges by number', () => {
  const t = Transcript.connected('repetier');
  t.job('G1 X1', 'G1 X2', 'G1 X3');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    > N3 G1 X3
    < ok 1
    < Resend:2
    < ok
    # line 3 was still in the firmware's buffer: it says skip and ok, neither acknowledges anything live
    < skip 3
    < ok
    > N2 G1 X2
    < ok 2
    > N3 G1 X3
    < ok 3
  `);
  assert.deepEqual(acked(t), [1, 2, 3]);
  assert.equal(t.proto.stats.spuriousOks, 0);
});

test('resend for a line outside history stops with resend_out_of_history, never skipping', () => {
  const t = Transcript.connected('marlin', { commandSlots: 4, historySize: 16 });
  const lines = Array.from({ length: 40 }, (_, i) => `G1 X${i + 1}`);
  t.job(...lines);
  for (let i = 0; i < 40; i++) {
    t.collect();
    t.written.length = 0;
    t.proto.lineReceived('ok', t.now);
  }
  t.collect();
  t.written.length = 0;
  t.run(`
    < Resend: 3
    # the 40 acknowledgements came before the script, then the refusal
    !*40 job-acked
    ! protocol-failure resend_out_of_history
    = nothing written
  `);
  assert.equal(t.proto.jobCapacity(), 0);
});

test('resend for a line not yet sent is refused (resend_invalid); for the very next line it is harmless', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'G1 X2');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    < ok
    < ok
    # noise after line 2: the firmware wants line 3, which we have not sent yet; nothing is lost
    < Resend: 3
    < ok
  `);
  assert.ok(t.none('protocol-failure'));
  t.events.length = 0;
  t.job('G1 X3');
  t.run(`
    > N3 G1 X3
    < Resend: 9
    ! protocol-failure resend_invalid
  `);
});

test('a corrupted resend number fails the job with resend_invalid', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1');
  t.run(`
    > N1 G1 X1
    < Resend: 1x
    ! protocol-failure unreadable resend request
    = nothing written
  `);
});

test('a resend storm is capped (resend_storm)', () => {
  const t = Transcript.connected('marlin', { resend: { stormLimit: 3 } });
  t.job('G1 X1');
  t.run(`
    > N1 G1 X1
    < Resend: 1
    < ok
    > N1 G1 X1
    # nothing was in flight behind N1, so a repeat after the replay refuses the replay itself: written again
    < Resend: 1
    < ok
    > N1 G1 X1
    < Resend: 1
    < ok
    > N1 G1 X1
    # the fourth request without progress is one too many
    < Resend: 1
    ! protocol-failure resend_storm
  `);
  assert.equal(t.proto.stats.resends, 4);
  assert.equal(t.proto.resendRatio(), 4 / t.proto.stats.linesSent);
});

test('lost ok while temperatures keep arriving: autoreports do not count as ok, the timeout pokes M105 and recovers', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1');
  t.run(`
    > N1 G1 X1
    @ +5000
    <  T:210.0 /210.0 B:60.0 /60.0 @:127 B@:0
    @ +5000
    <  T:210.0 /210.0 B:60.0 /60.0 @:127 B@:0
    @ +5001
    > N2 M105
    < ok T:210.0 /210.0 B:60.0 /60.0 @:127 B@:0
    # the two autoreports, then the poke's ok: its temperatures, and it acknowledges line 1
    !*3 temperatures "hotend":210
    ! job-acked "jobLine":1
  `);
  assert.deepEqual(acked(t), [1]);
  assert.equal(t.proto.stats.timeouts, 1);
  assert.ok(t.proto.isIdle());
});

test('lost ok with send-ahead: the M105 poke\'s `ok T:` acknowledges everything before it', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'G1 X2', 'G1 X3');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    > N3 G1 X3
    < ok
    # the ok of line 2 is lost on the wire
    < ok
    @ +15000
    > N4 M105
    < ok T:200.0 /200.0
  `);
  assert.deepEqual(acked(t), [1, 2, 3]);
  assert.ok(t.proto.isIdle());
  assert.equal(t.proto.debugState().inFlightLines, 0);
});

test('an extra ok is counted and never banked as credit', () => {
  const t = Transcript.connected('marlin');
  t.run(`
    < ok
    < ok
  `);
  assert.equal(t.proto.stats.spuriousOks, 2);
  t.job('G1 X1', 'G1 X2', 'G1 X3', 'G1 X4', 'G1 X5');
  // Credits were not banked: the window is still 4 lines, line 5 waits for a real ok.
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    > N3 G1 X3
    > N4 G1 X4
    = nothing written
    < ok
    > N5 G1 X5
  `);
});

test('wait is neither an ok nor liveness', () => {
  const t = Transcript.connected('repetier');
  t.job('G1 X1');
  t.run(`
    > N1 G1 X1
    < wait
    < wait
    = nothing written
  `);
  assert.deepEqual(acked(t), []);
  assert.equal(t.proto.debugState().inFlightLines, 1);
});

test('ok lines carrying data: `ok T:` reports temperatures, `ok N.. P.. B..` acknowledges cumulatively and sizes the slots', () => {
  const t = Transcript.connected('marlin');
  const id = t.command('M105');
  t.run(`
    > N1 M105
    < ok T:210.0 /210.0 B:60.0 /60.0 @:127 B@:0
    ! temperatures "hotend":210
    ! command-done T:210.0 /210.0
  `);
  assert.ok(t.log.some((a) => a.type === 'command-done' && a.commandId === id && a.ok));

  const a = Transcript.connected('marlin');
  a.job('G1 X1', 'G1 X2', 'G1 X3');
  a.run(`
    > N1 G1 X1
    > N2 G1 X2
    > N3 G1 X3
    # the oks for 1 and 2 were lost: N3 says everything up to 3 is done, B:15 says the firmware has 16 slots
    < ok N3 P15 B15
  `);
  assert.deepEqual(acked(a), [1, 2, 3]);
  assert.equal(a.proto.debugState().commandSlots, 16);
});

test('unsolicited lines between a command and its ok (echo:, //action:, temperatures, busy) are handled, not taken as replies', () => {
  const t = Transcript.connected('marlin');
  const id = t.command('M503');
  t.run(`
    > N1 M503
    < echo:; Steps per unit:
    < //action:pause
    <  T:210.0 /210.0 B:60.0 /60.0 @:127 B@:0
    < echo:busy: processing
    < echo:  M92 X80.00 Y80.00 Z400.00 E93.00
    < ok
    ! info echo:; Steps per unit:
    ! host-action pause
    ! temperatures "hotend":210
    ! busy
    ! info M92 X80.00
    ! command-done M92 X80.00
  `);
  const done = t.log.find((a) => a.type === 'command-done');
  assert.deepEqual(done, { type: 'command-done', commandId: id, ok: true, lines: ['echo:; Steps per unit:', 'echo:  M92 X80.00 Y80.00 Z400.00 E93.00'] });
});

test('start mid-print: firmware-reset, everything in flight dropped, numbering restarts with M110', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'G1 X2');
  const id = t.command('M105');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    > N3 M105
    < start
    ! firmware-reset
    ! command-done "ok":false
    > N0 M110 N0*125
    < ok
  `);
  assert.equal(t.proto.jobCapacity() > 0, true);
  assert.ok(t.proto.isIdle());
  assert.ok(t.log.some((a) => a.type === 'command-done' && a.commandId === id && !a.ok));
});

test('garbage and NUL bytes at connect are ignored; a boot banner before the first ok replays the M110', () => {
  const t = Transcript.for('generic');
  t.proto.resetLineNumbers(t.now);
  t.run(`
    > N0 M110 N0*125
    < \\0\\0\\0
    < \u00ff\u00fe\\0
    < start
    > N0 M110 N0*125
    < echo:Marlin bugfix-2.1.x
    < \\0ok
  `);
  assert.ok(t.none('firmware-reset'));
  assert.ok(t.proto.isIdle());
});

test('line number wrap: M110 is re-issued alone before the profile\'s highest number; and at every job start', () => {
  const t = Transcript.connected('repetier', { lineNumberMax: 3 });
  t.job('G1 X1', 'G1 X2', 'G1 X3', 'G1 X4');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    > N3 G1 X3
    < ok 1
    < ok 2
    = nothing written
    < ok 3
    > N0 M110 N0*125
    < ok 0
    > N1 G1 X4
    < ok 1
  `);
  assert.deepEqual(acked(t), [1, 2, 3, 4]);
  t.proto.resetLineNumbers(t.now);
  t.run(`
    > N0 M110 N0*125
    < ok 0
  `);
});

test('comments and `*` in payload: comments stripped, `*` refused at upload time', () => {
  assert.equal(stripGcodeLine('G1 X10 ; move (fast)'), 'G1 X10');
  assert.equal(stripGcodeLine('G1 (inline) X10  \r'), 'G1  X10');
  assert.equal(stripGcodeLine('; only a comment'), '');
  const marlin = profileByName('marlin');
  assert.match(checkLine('M117 a*b', marlin)!, /'\*'/);
  const t = Transcript.connected('marlin');
  assert.throws(() => t.proto.pushJobLine('M117 a*b', 9, t.now), /'\*'/);
  const id = t.proto.sendCommand('M117 5*5', t.now);
  t.run(`! command-done "commandId":${id},"ok":false`);
});

test('lines over 95 characters are refused for Marlin', () => {
  const marlin = profileByName('marlin');
  const ok = 'M117 ' + 'a'.repeat(77);
  const long = 'M117 ' + 'a'.repeat(100);
  assert.equal(checkLine(ok, marlin), null);
  assert.match(checkLine(long, marlin)!, /too long/);
  assert.match(checkLine('M117 größe', marlin)!, /non-ASCII/);
});

test('fatal errors versus benign ones', () => {
  const fatal = ['Error:Printer halted. kill() called!', 'Error:Thermal Runaway, system stopped! Heater_ID: 0', 'Error:MAXTEMP triggered, system stopped!', '!! Shutdown due to webhooks request', 'fatal: Heater decoupled'];
  for (const line of fatal) {
    const t = Transcript.connected('marlin');
    t.run(`< ${line}\n! firmware-fatal`);
  }
  const t = Transcript.connected('marlin');
  const id = t.command('M9999');
  t.run(`
    > N1 M9999
    < echo:Unknown command: "M9999"
    < ok
    ! firmware-warning Unknown command
    ! command-done "ok":false
  `);
  assert.ok(t.none('firmware-fatal'));
  assert.ok(t.log.some((a) => a.type === 'command-done' && a.commandId === id && a.ok === false));
  const k = Transcript.connected('klipper');
  k.run(`
    < // Unknown command:"M9999"
    ! firmware-warning
  `);
});

test('a cable pulled mid-print: timeouts, pokes, then ok_timeout (never a hang)', () => {
  const t = Transcript.connected('marlin', { timeouts: { maxConsecutive: 2 } });
  t.job('G1 X1', 'G1 X2');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    @ +15000
    > N3 M105
    @ +15000
    @ +15000
    ! protocol-failure ok_timeout
  `);
  assert.equal(t.proto.nextDeadline(), null);
  assert.equal(t.proto.jobCapacity(), 0);
});

test('write backpressure: nothing is written while the transport is full, everything follows on drain', () => {
  const t = Transcript.connected('marlin');
  t.proto.setWritable(false, t.now);
  t.job('G1 X1', 'G1 X2');
  t.run('= nothing written');
  t.proto.setWritable(true, t.now);
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
  `);
  // Both lines go out in one batched write.
  assert.equal(t.writes.at(-1), `N1 G1 X1*${cs('N1 G1 X1')}\nN2 G1 X2*${cs('N2 G1 X2')}\n`);
});

function cs(s: string): number {
  let c = 0;
  for (let i = 0; i < s.length; i++) c ^= s.charCodeAt(i);
  return c;
}

test('a line whose newline was lost on the wire: one lone newline after 300 ms of quiet completes it, the resend follows at once', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1');
  t.run(`
    > N1 G1 X1
    @ +299
  `);
  assert.equal(t.nudges, 0, 'not before the wire has been quiet for 300 ms');
  t.run(`
    @ +1
  `);
  assert.equal(t.nudges, 1);
  t.run(`
    @ +5000
  `);
  assert.equal(t.nudges, 1, 'one nudge per quiet spell: a long G28 costs a single byte');
  t.run(`
    < Error:checksum mismatch, Last Line: 0
    < Resend: 1
    < ok
    > N1 G1 X1
    < ok
  `);
  assert.deepEqual(acked(t), [1]);
  assert.equal(t.proto.stats.timeouts, 0);
  assert.ok(t.proto.isIdle());
});
