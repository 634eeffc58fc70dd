// Transcripts for blocking waits: the barrier behind M190/M109/G4/M400, the M108 break, and holding the job behind it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transcript } from './transcript.js';

test('a heat-up wait is a barrier: nothing after it is written until its ok', () => {
  const t = Transcript.connected('marlin');
  t.job('G1 X1', 'M190 S60', 'G1 X2', 'G1 X3');
  t.run(`
    > N1 G1 X1
    > N2 M190 S60
    = nothing written
    < ok
    ! job-acked "jobLine":1
    = nothing written
    < echo:busy: processing
    ! busy
    @ +30000
    = nothing written
    < ok
    ! job-acked "jobLine":2
    > N3 G1 X2
    > N4 G1 X3
    < ok
    < ok
    !*2 job-acked
  `);
});

test('console commands wait behind the barrier too; G4 and M400 are barriers like the heat-ups', () => {
  const t = Transcript.connected('marlin');
  t.job('G4 P5000', 'G1 X1');
  t.command('M114');
  t.run(`
    > N1 G4 P5000
    = nothing written
    < ok
    > N2 M114
    > N3 G1 X1
    < ok
    < ok
  `);
  const m = Transcript.connected('marlin');
  m.job('M400', 'G1 X1');
  m.run(`
    > N1 M400
    = nothing written
    < ok
    > N2 G1 X1
    < ok
  `);
});

test('M108 breaks a heat-up wait: written numbered past the barrier, the held job lines stay unwritten', () => {
  const t = Transcript.connected('marlin');
  t.job('M190 S60', 'G1 X1 E1', 'G1 X2 E2');
  t.run('> N1 M190 S60');
  assert.deepEqual(t.proto.waitInFlight(), { command: 'M190 S60', jobLine: true, breakable: true });
  t.proto.holdJob(true, t.now);
  assert.equal(t.proto.breakWait(t.now), true);
  // A second break for the same wait (pause, then cancel) writes nothing more.
  assert.equal(t.proto.breakWait(t.now), true);
  t.run(`
    > N2 M108
    = nothing written
    < ok
    ! job-acked "jobLine":1
    < ok
    = nothing written
  `);
  assert.equal(t.proto.waitInFlight(), null);
  assert.equal(t.proto.jobLinesInFlight(), 0);
  t.proto.holdJob(false, t.now);
  t.run(`
    > N3 G1 X1 E1
    > N4 G1 X2 E2
    < ok
    < ok
    !*2 job-acked
  `);
});

test('nothing to break: a dwell on Marlin (M108 does not end G4), any wait on Klipper, no wait at all', () => {
  const m = Transcript.connected('marlin');
  m.job('G4 S30', 'G1 X1');
  m.run('> N1 G4 S30');
  assert.deepEqual(m.proto.waitInFlight(), { command: 'G4 S30', jobLine: true, breakable: false });
  assert.equal(m.proto.breakWait(m.now), false);
  m.run('= nothing written');

  const k = Transcript.connected('klipper');
  k.job('M190 S60', 'G1 X1');
  k.run('> M190 S60');
  assert.deepEqual(k.proto.waitInFlight(), { command: 'M190 S60', jobLine: true, breakable: false });
  assert.equal(k.proto.breakWait(k.now), false);
  k.run(`
    = nothing written
    < ok
    > G1 X1
    < ok
  `);
  assert.equal(k.proto.waitInFlight(), null);
  assert.equal(k.proto.breakWait(k.now), false);
});

test('a cancel during a broken wait: the held lines are dropped, the cancel script follows the break', () => {
  const t = Transcript.connected('marlin');
  t.job('M109 S210', 'G1 X1 E1');
  t.run('> N1 M109 S210');
  t.proto.breakWait(t.now);
  t.proto.clearJob();
  t.command('M104 S0');
  t.run(`
    > N2 M108
    < ok
    > N3 M104 S0
    < ok
    < ok
  `);
  assert.equal(t.proto.jobLinesInFlight(), 0);
});

test('a cancel drops the commands still queued behind a wait (a resume script), keeps the break, answers each one', () => {
  const t = Transcript.connected('marlin');
  const wait = t.command('M190 S60');
  const back = t.command('G1 X10 Y10 F6000');
  const prime = t.command('G1 E2 F2400');
  t.run('> N1 M190 S60');
  t.proto.breakWait(t.now);
  t.proto.dropQueuedCommands('not sent: the job was cancelled');
  t.run(`
    ! command-done "commandId":${back},"ok":false,"lines":["not sent: the job was cancelled"]
    ! command-done "commandId":${prime},"ok":false
    > N2 M108
    < ok
    ! command-done "commandId":${wait},"ok":true
    < ok
    = nothing written
  `);
});
