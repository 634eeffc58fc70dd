// The virtual Marlin against the wire facts: checks and resends, discard, oks, reports, busy lines, planner timing, M112.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandRecord, RECENT_COMMANDS } from '../../src/simulator/command-record.js';
import { xorChecksum } from '../../src/simulator/line-check.js';
import { DEFAULT_SIMULATOR_OPTIONS } from '../../src/simulator/simulator-options.js';
import { frame, harness } from './sim-harness.js';

test('checksum is the XOR of the bytes before *, as in the documented vectors', () => {
  assert.equal(xorChecksum('N0 M110 N0'), 125);
  assert.equal(xorChecksum('N1 M115'), 39);
  assert.equal(xorChecksum('N11 M105'), 23);
  assert.equal(frame(11, 'M105'), 'N11 M105*23\n');
});

test('boots with start, answers M110 with ok and records the command', () => {
  const h = harness({ baud: '0' });
  h.advance(1);
  assert.equal(h.take()[0], 'start');
  h.write('N0 M110 N0*125\n');
  h.advance(1);
  assert.deepEqual(h.take(), ['ok']);
  assert.deepEqual(h.printer.executed, ['M110 N0']);
  h.close();

  const text = harness({ baud: '0' });
  text.write('N0 M110 N0*125\n' + frame(1, 'M117 M112 is the emergency stop'));
  text.advance(10);
  assert.equal(text.printer.isHalted, false, 'M112 inside a message is not a command');
  assert.deepEqual(text.printer.executed, ['M110 N0', 'M117 M112 is the emergency stop']);
  text.close();
});

test('a checksum error: Error, Resend and ok; earlier lines still run after it, later ones vanish', () => {
  const h = harness({ baud: '0' });
  h.write('N0 M110 N0*125\n');
  h.advance(1);
  h.take();
  const bad = frame(3, 'G1 X3').replace(/\*\d+/, '*1');
  h.write(frame(1, 'G1 X1') + frame(2, 'G1 X2') + bad + frame(4, 'G1 X4') + frame(5, 'G1 X5'));
  h.advance(1);
  assert.deepEqual(h.take(), ['Error:checksum mismatch, Last Line: 2', 'Resend: 3', 'ok', 'ok', 'ok']);
  assert.deepEqual(h.printer.executed, ['M110 N0', 'G1 X1', 'G1 X2']);
  assert.equal(h.printer.stats.checksumErrors, 1);
  assert.equal(h.printer.stats.resendsRequested, 1);
  assert.ok(h.printer.stats.bytesDiscarded > 0, 'lines 4 and 5 were flushed from the receive buffer');
  // The host replays from 3 and everything lands once, in order.
  h.write(frame(3, 'G1 X3') + frame(4, 'G1 X4') + frame(5, 'G1 X5'));
  h.advance(1);
  assert.deepEqual(h.take(), ['ok', 'ok', 'ok']);
  assert.deepEqual(h.printer.executedJobLines(), ['G1 X1', 'G1 X2', 'G1 X3', 'G1 X4', 'G1 X5']);
  h.close();
});

test('a line number out of sequence: the Marlin error text and a resend of the next expected line', () => {
  const h = harness({ baud: '0' });
  h.write('N0 M110 N0*125\n' + frame(1, 'M400') + frame(3, 'M400'));
  h.advance(1);
  const tail = h.lines.slice(-5);
  assert.deepEqual(tail, ['Error:Line Number is not Last Line Number+1, Last Line: 1', 'Resend: 2', 'ok', 'ok', 'ok']);
  assert.equal(h.printer.stats.sequenceErrors, 1);
  h.close();
});

test('Marlin takes the LAST * as the start of the checksum, so a * in the payload passes', () => {
  const h = harness({ baud: '0' });
  const body = 'N1 M117 a*b';
  h.write('N0 M110 N0*125\n' + `${body}*${xorChecksum(body)}\n`);
  h.advance(1);
  assert.deepEqual(h.printer.executed, ['M110 N0', 'M117 a*b']);
  assert.equal(h.printer.stats.checksumErrors, 0);
  h.close();
});

test('lines without N and *, empty lines and comments: run without checks, blank ones get no ok', () => {
  const h = harness({ baud: '0' });
  h.advance(1);
  h.take();
  h.write('M105\n\n; just a comment\nG90 ; absolute\n');
  h.advance(1);
  const replies = h.take();
  assert.equal(replies.length, 2);
  assert.deepEqual(h.printer.executed, ['M105', 'G90']);
  h.write('M105*12\n');
  h.advance(1);
  assert.equal(h.take()[0], 'Error:No Line Number with checksum, Last Line: 0');
  h.close();
});

test('M115 reports FIRMWARE_NAME and Cap lines; ADVANCED_OK follows the option, and so does the ok format', () => {
  const plain = harness({ baud: '0' });
  plain.write('N0 M110 N0*125\nN1 M115*39\n');
  plain.advance(1);
  assert.ok(plain.lines.some((l) => l.startsWith('FIRMWARE_NAME:Marlin')));
  for (const cap of ['Cap:AUTOREPORT_TEMP:1', 'Cap:EMERGENCY_PARSER:1', 'Cap:ADVANCED_OK:0']) {
    assert.ok(plain.lines.includes(cap), cap);
  }
  plain.close();

  const adv = harness({ baud: '0', advanced_ok: '1', slots: '4', planner: '16' });
  adv.write('N0 M110 N0*125\nN1 M115*39\n' + frame(2, 'G1 X10 F600'));
  adv.advance(1);
  assert.ok(adv.lines.includes('Cap:ADVANCED_OK:1'));
  const oks = adv.lines.filter((l) => l.startsWith('ok'));
  assert.match(oks[0]!, /^ok N0 P16 B\d$/);
  assert.match(oks[2]!, /^ok N2 P15 B\d$/);
  adv.write('M400\n');
  adv.advance(2000);
  assert.equal(adv.lines.at(-1), 'ok P16 B3', 'no N for a line sent without one');
  adv.close();
});

test('M105 answers on the ok line in the documented format', () => {
  const h = harness({ baud: '0', speed: 'max' });
  h.write('N0 M110 N0*125\n' + frame(1, 'M104 S210') + frame(2, 'M140 S60') + frame(3, 'M105'));
  h.advance(1);
  const last = h.lines.at(-1)!;
  assert.match(last, /^ok T:210\.0 \/210\.0 B:60\.0 \/60\.0 @:\d+ B@:\d+$/);
  h.close();
});

test('M155 S1 autoreports temperatures every second, each line starting with a space; S0 stops it', () => {
  const h = harness({ baud: '0' });
  h.write('N0 M110 N0*125\n' + frame(1, 'M155 S1'));
  h.advance(3500);
  const reports = h.take().filter((l) => l.startsWith(' T:'));
  assert.equal(reports.length, 3);
  assert.match(reports[0]!, /^ T:25\.0 \/0\.0 B:25\.0 \/0\.0 @:0 B@:0$/);
  h.write(frame(2, 'M155 S0'));
  h.advance(5000);
  assert.deepEqual(h.take(), ['ok']);
  h.close();
});

test('a long command prints echo:busy: processing every 2 s and its ok only when done', () => {
  const h = harness({ baud: '0' });
  h.write('N0 M110 N0*125\n');
  h.advance(1);
  h.take();
  const t0 = h.clock.now();
  h.write(frame(1, 'G4 S5'));
  h.waitFor(/^ok$/);
  assert.ok(h.clock.now() - t0 >= 5000, 'G4 S5 takes 5 simulated seconds');
  assert.deepEqual(h.lines.slice(-3), ['echo:busy: processing', 'echo:busy: processing', 'ok']);
  h.close();
});

test('a 100 mm move at F6000 takes about one simulated second (M400 returns when it is done)', () => {
  const h = harness({ baud: '0' });
  h.write('N0 M110 N0*125\n');
  h.advance(1);
  const t0 = h.clock.now();
  h.write(frame(1, 'G1 X100 F6000') + frame(2, 'M400'));
  h.advance(1);
  assert.equal(h.lines.filter((l) => l === 'ok').length, 2, 'the move is acknowledged when planned');
  h.waitFor(/^ok$/, 5000);
  const took = h.clock.now() - t0;
  assert.ok(took >= 1000 && took <= 1002, `took ${took} simulated ms`);
  h.close();
});

test('M84 and M18 answer once the queued moves are done (Marlin runs the planner dry first); M84 S only sets the timeout', () => {
  for (const off of ['M84', 'M18']) {
    const h = harness({ baud: '0' });
    h.write('N0 M110 N0*125\n');
    h.advance(1);
    h.take();
    const t0 = h.clock.now();
    h.write(frame(1, 'G1 Z10 F600') + frame(2, off));
    h.advance(1);
    assert.equal(h.take().length, 1, `the move is acknowledged when planned, ${off} not yet`);
    h.waitFor(/^ok$/, 5000);
    const took = h.clock.now() - t0;
    assert.ok(took >= 1000 && took <= 1002, `${off} took ${took} simulated ms`);
    h.close();
  }
  const s = harness({ baud: '0' });
  s.write('N0 M110 N0*125\n');
  s.advance(1);
  s.take();
  s.write(frame(1, 'G1 Z10 F600') + frame(2, 'M84 S120'));
  s.advance(1);
  assert.equal(s.take().length, 2, 'M84 S120 answers at once');
  s.close();
});

test('ok means planned: with 16 planner blocks the 17th move waits for the first block to finish', () => {
  const h = harness({ baud: '0', slots: '4', planner: '16' });
  h.write('N0 M110 N0*125\n');
  h.advance(1);
  h.take();
  let text = '';
  for (let i = 1; i <= 20; i++) text += frame(i, `G1 X${i * 10} F600`); // 10 mm at 10 mm/s: 1 s each
  h.write(text);
  h.advance(100);
  assert.equal(h.take().length, 16);
  assert.deepEqual(h.printer.queueDepth.planner, 16);
  h.advance(1000);
  assert.equal(h.take().length, 1, 'one block done, one more planned');
  h.close();
});

test('unknown commands get echo:Unknown command and still an ok', () => {
  const h = harness({ baud: '0' });
  h.write('N0 M110 N0*125\n' + frame(1, 'G999 X1'));
  h.advance(1);
  assert.deepEqual(h.lines.slice(-2), ['echo:Unknown command: "G999 X1"', 'ok']);
  h.close();
});

test('M112 acts through the emergency parser at once, even behind a long command, and the printer halts', () => {
  const h = harness({ baud: '0' });
  h.write('N0 M110 N0*125\n' + frame(1, 'G4 S30') + frame(2, 'G1 X5'));
  h.advance(3000);
  h.take();
  h.write(frame(3, 'M112'));
  h.advance(1);
  assert.deepEqual(h.take(), ['Error:Printer halted. kill() called!']);
  assert.equal(h.printer.isHalted, true);
  h.write(frame(4, 'M105'));
  h.advance(40_000);
  assert.deepEqual(h.take(), [], 'a halted printer answers nothing');
  assert.deepEqual(h.printer.executed, ['M110 N0']);
  h.close();

  const text = harness({ baud: '0' });
  text.write('N0 M110 N0*125\n' + frame(1, 'M117 M112 is the emergency stop'));
  text.advance(10);
  assert.equal(text.printer.isHalted, false, 'M112 inside a message is not a command');
  assert.deepEqual(text.printer.executed, ['M110 N0', 'M117 M112 is the emergency stop']);
  text.close();
});

test('M109 heats with the thermal model, with busy and temperature lines, and oks once at temperature', () => {
  const h = harness({ baud: '0' });
  h.write('N0 M110 N0*125\n' + frame(1, 'M109 S210'));
  h.advance(1);
  h.take();
  h.waitFor(/^ok$/, 120_000);
  const during = h.take();
  assert.ok(during.includes('echo:busy: processing'));
  assert.ok(during.some((l) => /^ T:\d+\.\d \/210\.0 .* W:\?$/.test(l)));
  assert.ok(h.clock.now() > 20_000, 'heating from room temperature takes a while');
  assert.ok(Math.abs(h.printer.temperatures().hotend - 210) <= 1);
  h.close();
});

test('the record holds every executed command without N and checksum, in order', () => {
  const h = harness({ baud: '0', speed: 'max' });
  const file = ['G28', 'M104 S200', 'G1 X10 Y10 F3000', 'G1 X20 E1.5', 'M105', 'M106 S255', 'G1 Z0.2'];
  let text = 'N0 M110 N0*125\n';
  file.forEach((line, i) => (text += frame(i + 1, line)));
  h.write(text);
  h.advance(100);
  assert.deepEqual(h.printer.executed, ['M110 N0', ...file]);
  assert.deepEqual(
    h.printer.executedJobLines(),
    file.filter((l) => l !== 'M105'),
  );
  assert.deepEqual(h.printer.executedMotion(), ['G1 X10 Y10 F3000', 'G1 X20 E1.5', 'G1 Z0.2']);
  assert.equal(h.printer.executedCount, file.length + 1);
  h.close();
});

test('without record=1 only the newest commands are kept, in a fixed ring: a printer left printing stays small', () => {
  const h = harness({ baud: '0', speed: 'max', record: '0' });
  const n = RECENT_COMMANDS * 3 + 17;
  let text = 'N0 M110 N0*125\n';
  for (let i = 1; i <= n; i++) text += frame(i, `G1 X${i % 200}.${i}`);
  h.write(text);
  h.advance(1000);
  assert.equal(h.printer.executedCount, n + 1, 'every command ran');
  const want = Array.from({ length: RECENT_COMMANDS }, (_, k) => n - RECENT_COMMANDS + 1 + k).map((i) => `G1 X${i % 200}.${i}`);
  assert.deepEqual(h.printer.executed, want);
  h.close();
});

test('the full record is opt-in: a printer built with the default options keeps only the ring', () => {
  assert.equal(DEFAULT_SIMULATOR_OPTIONS.record, false);
  const record = new CommandRecord(false, 3);
  for (const c of ['a', 'b', 'c', 'd', 'e']) record.add(c);
  assert.deepEqual(record.list(), ['c', 'd', 'e']);
  const all = new CommandRecord(true, 3);
  for (const c of ['a', 'b', 'c', 'd', 'e']) all.add(c);
  assert.deepEqual(all.list(), ['a', 'b', 'c', 'd', 'e']);
});
