// Window accounting (bytes and slots), ping-pong cases, timeout classes, emergency stop, cancel and per-firmware behaviour.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transcript } from './transcript.js';

test('window accounting table: lines in flight stay within slots and rx-1 bytes', () => {
  // Each `G1 X<n>` framed as `N<n> G1 X<n>*cs\n` is 13-14 bytes here.
  const rows: Array<{ rx: number; slots: number; sent: number }> = [
    { rx: 128, slots: 4, sent: 4 },
    { rx: 128, slots: 16, sent: 10 },
    { rx: 64, slots: 16, sent: 5 },
    { rx: 32, slots: 16, sent: 2 },
    { rx: 4096, slots: 8, sent: 8 },
  ];
  for (const row of rows) {
    const t = Transcript.connected('marlin', { rxBufferBytes: row.rx, commandSlots: row.slots });
    t.job(...Array.from({ length: 20 }, (_, i) => `G1 X${i + 1}`));
    const state = t.proto.debugState();
    assert.equal(t.written.length, row.sent, JSON.stringify(row));
    assert.ok(state.inFlightBytes <= row.rx - 1);
    assert.equal(state.inFlightLines, row.sent);
    // Each ok frees exactly the oldest line and lets the next one go.
    t.written.length = 0;
    t.proto.lineReceived('ok', t.now);
    t.collect();
    assert.ok(t.written.length >= 1, JSON.stringify(row));
    assert.ok(t.proto.debugState().inFlightBytes <= row.rx - 1);
  }
});

test('ping-pong while the firmware is unknown (generic profile)', () => {
  const t = Transcript.connected('generic');
  t.command('M115');
  t.job('G1 X1', 'G1 X2');
  t.run(`
    > N1 M115
    = nothing written
    < FIRMWARE_NAME:Marlin 2.1.2 MACHINE_TYPE:Ender
    < Cap:ADVANCED_OK:1
    < ok
    ! firmware-info "ADVANCED_OK":true
    ! command-done FIRMWARE_NAME:Marlin
    > N2 G1 X1
    < ok
    ! job-acked "jobLine":1
    > N3 G1 X2
    < ok
    ! job-acked "jobLine":2
  `);
});

test('serial-stalling commands (M500) go alone, with nothing else in flight', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1');
  t.command('M500');
  t.job('G1 X2');
  t.run(`
    > N1 G1 X1
    = nothing written
    < ok
    > N2 M500
    < echo:Settings Stored
    < ok
    > N3 G1 X2
    < ok
  `);
});

test('timeout classes: long commands get the long timeout, busy extends it', () => {
  const t = Transcript.connected('marlin');
  t.command('G28');
  t.run(`
    > N1 G28
    @ +60000
    = nothing written
    < echo:busy: processing
    @ +839000
    = nothing written
    # 1 s before the long timeout: busy pushes the deadline 6 s out
    < echo:busy: processing
    @ +5000
    = nothing written
    @ +1001
    > N2 M105
  `);
  assert.equal(t.proto.stats.timeouts, 1);
});

test('emergency stop bypasses the window and queues, and forgets everything', () => {
  const t = Transcript.connected('marlin');
  t.job(...Array.from({ length: 10 }, (_, i) => `G1 X${i + 1}`));
  t.written.length = 0;
  const id = t.proto.sendCommand('M105', t.now);
  t.proto.emergencyStop(t.now);
  t.run(`
    > M112
    ! command-done "commandId":${id},"ok":false
  `);
  assert.ok(t.proto.isIdle());
  // The next command starts a fresh numbering, so no replay of the old job can follow.
  t.command('M999');
  t.run(`
    > N0 M110 N0*125
    < ok
    > N1 M999
  `);
});

test('clearJob drops queued lines and reports no progress for lines still in flight', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'G1 X2', 'G1 X3', 'G1 X4', 'G1 X5', 'G1 X6');
  t.written.length = 0;
  t.proto.clearJob();
  t.run(`
    < ok
    < ok
    < ok
    < ok
  `);
  assert.equal(t.log.filter((a) => a.type === 'job-acked').length, 0);
  assert.ok(t.proto.isIdle());
});

test('Marlin: lines in flight behind a bad one owe no ok, lines before it still do', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'G1 X2', 'G1 X3', 'G1 X4');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    > N3 G1 X3
    > N4 G1 X4
    < Error:Line Number is not Last Line Number+1, Last Line: 2
    < Resend: 3
    < ok
    < ok
    = nothing written
    < ok
    > N3 G1 X3
    < ok
    > N4 G1 X4
    < ok
  `);
  assert.equal(t.proto.stats.spuriousOks, 0);
});

test('Klipper: bare lines, `!!` + ok is fatal but acknowledged, `//` is info, M112 without N', () => {
  const t = Transcript.connected('klipper');
  t.job('G28', 'G1 X500');
  t.run(`
    > G28
    > G1 X500
    < // homing
    < ok
    < !! Move out of range: 500.000 0.000 0.000 [0.000]
    < ok
    ! info homing
    ! job-acked "jobLine":1
    ! firmware-fatal Move out of range
    ! job-acked "jobLine":2
  `);
  assert.ok(t.proto.isIdle());
  t.proto.emergencyStop(t.now);
  t.run('> M112');
});

test('RepRapFirmware: a silently dropped line is found by the ok-timeout, poked and recovered', () => {
  const t = Transcript.connected('reprapfirmware');
  t.job('G1 X1');
  t.run(`
    > N1 G1 X1
    @ +30000
    > N2 M105
    < ok T:20.0 /0.0 B:20.0 /0.0
  `);
  assert.equal(t.proto.stats.timeouts, 1);
  assert.ok(t.proto.isIdle());
});

test('Repetier: 16-bit numbering wraps with M110 before 65535', () => {
  const t = Transcript.connected('repetier');
  assert.equal(t.proto.currentProfile.lineNumberMax, 65535);
});

test('the byte window counts lines at their new size once the encoding changes (MeatPack falling back to text)', () => {
  const t = Transcript.connected('marlin', { rxBufferBytes: 48, commandSlots: 8 });
  // Packed: half the framed size on the wire, so seven 12-byte lines (6 bytes packed) fit in 47 bytes.
  t.proto.setWireLength((framed) => Math.ceil(framed.length / 2));
  t.job('G1 X1', 'G1 X2', 'G1 X3', 'G1 X4', 'G1 X5', 'G1 X6', 'G1 X7', 'G1 X8');
  t.run(`
    > N1 G1 X1
    > N2 G1 X2
    > N3 G1 X3
    > N4 G1 X4
    > N5 G1 X5
    > N6 G1 X6
    > N7 G1 X7
  `);
  // Back to text: the lines in flight are counted at 12 bytes too (the safe side), and so is the next one.
  t.proto.setWireLength(null);
  t.run(`
    < ok
    < ok
    < ok
    < ok
    = nothing written
    < ok
    > N8 G1 X8
  `);
});
