// The network core's back-off, adoption decision, external-print record and job clock: pure, readings handed in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adoptedStart, adoptionStep } from '../../../src/printers/network/adoption.js';
import { consoleLine } from '../../../src/printers/network/console-hub.js';
import { externalEnded, externalSeen } from '../../../src/printers/network/external-print.js';
import { JobClock } from '../../../src/printers/network/job-clock.js';
import { pollDelay } from '../../../src/printers/network/poll-loop.js';

test('polling backs off while offline: doubling with each failure in a row, up to 8 intervals; online, the interval', () => {
  const rows: Array<[boolean, number, number]> = [
    [false, 0, 1500],
    [false, 5, 1500],
    [true, 0, 1500],
    [true, 1, 3000],
    [true, 2, 6000],
    [true, 3, 12000],
    [true, 4, 12000],
    [true, 50, 12000],
  ];
  for (const [offline, failures, ms] of rows) assert.equal(pollDelay(1500, offline, failures), ms, `offline ${offline}, ${failures} failures`);
});

test('adoption: the job followed already is handed back, another running one means no, none (or an ended one) means look', () => {
  assert.equal(adoptionStep(null, 'j1'), 'look');
  assert.equal(adoptionStep({ id: 'j1', ended: false }, 'j1'), 'same');
  assert.equal(adoptionStep({ id: 'j0', ended: false }, 'j1'), 'taken');
  assert.equal(adoptionStep({ id: 'j0', ended: true }, 'j1'), 'look');
  assert.equal(adoptionStep({ id: 'j1', ended: true }, 'j1'), 'look');
});

test('an adopted job starts, on our monotonic clock, as long ago as the printer says it has printed, else as the wall clock says', () => {
  const now = { wall: 1_000_000, monotonic: 50_000 };
  assert.deepEqual(adoptedStart(now, 940_000, 30), { wall: 940_000, monotonic: 20_000 }, 'the printer reports 30 s');
  assert.deepEqual(adoptedStart(now, 940_000, null), { wall: 940_000, monotonic: -10_000 }, '60 s by the wall clock');
  // A wall clock set back since: never a start in the future.
  assert.deepEqual(adoptedStart(now, 1_200_000, null), { wall: 1_200_000, monotonic: 50_000 });
});

test('an external print: its start is as long ago as the printer says; its end measured by the printer, else on the monotonic clock', () => {
  const ext = externalSeen('benchy.gcode', 12, { wall: 1_000_000, monotonic: 5_000 }, 60_000);
  assert.deepEqual(ext, { file_name: 'benchy.gcode', progress: 12, started_at: 940_000, startMono: -55_000 });
  // The wall clock jumped an hour back meanwhile: the measured time does not care.
  const later = { wall: 1_000_000 - 3_600_000, monotonic: 125_000 };
  assert.deepEqual(externalEnded('p1', ext, { status: 'cancelled', printSeconds: null, extrudedMm: null }, later), {
    printer_id: 'p1',
    file_name: 'benchy.gcode',
    status: 'cancelled',
    started_at: 940_000,
    ended_at: later.wall,
    print_seconds: 180,
    extruded_mm: null,
  });
  const told = externalEnded('p1', ext, { status: 'failed', printSeconds: 95, extrudedMm: [812.5], message: 'thermal runaway' }, later);
  assert.equal(told.print_seconds, 95);
  assert.deepEqual(told.extruded_mm, [812.5]);
  assert.equal(told.message, 'thermal runaway');
});

test('the job clock: printing time from the start, pauses left out, stopped at the end', () => {
  const c = new JobClock({ wall: 1_000_000, monotonic: 100 });
  assert.equal(c.startedAt, 1_000_000);
  assert.equal(c.elapsedMs(1_100), 1_000);
  c.notePaused(true, 1_100);
  c.notePaused(true, 1_500);
  assert.equal(c.elapsedMs(2_100), 1_000, 'no time while paused');
  c.notePaused(false, 3_100);
  assert.equal(c.elapsedMs(4_100), 2_000);
  c.notePaused(true, 4_100);
  c.stop(5_100);
  assert.equal(c.elapsedMs(9_999), 2_000, 'a pause running at the end counts as pause; nothing after the end');
  assert.equal(new JobClock({ wall: 0, monotonic: 500 }).elapsedMs(200), 0, 'never negative');
});

test('a console line: blank or comment is nothing, M112 is the emergency stop, one line at a time', () => {
  assert.deepEqual(consoleLine('  ', false), { kind: 'none' });
  assert.deepEqual(consoleLine('; just a note', false), { kind: 'none' });
  assert.deepEqual(consoleLine('G28 ; home', true), { kind: 'command', command: 'G28' });
  assert.deepEqual(consoleLine('G28 ; home', false), { kind: 'command', command: 'G28 ; home' });
  assert.deepEqual(consoleLine('m112', false), { kind: 'estop' });
  assert.deepEqual(consoleLine('M1120', false), { kind: 'command', command: 'M1120' });
  assert.throws(() => consoleLine('G28\nG1 X10', false), /one command at a time/);
});
