// The other firmware families: first-* rule, rs without ok, silent drops, ok-on-receipt with skip, Klipper's laxness.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xorChecksum } from '../../src/simulator/line-check.js';
import { frame, harness } from './sim-harness.js';

/** A line whose payload holds a `*`, framed with the checksum over everything before the LAST `*`. */
function starInPayload(n: number): string {
  const body = `N${n} M117 a*b`;
  return `${body}*${xorChecksum(body)}\n`;
}

test('Prusa uses the FIRST *: a * in the payload is a checksum mismatch, resent like Marlin', () => {
  const h = harness({ profile: 'prusa', baud: '0' });
  h.write('N0 M110 N0*125\n');
  h.advance(1);
  h.take();
  h.write(starInPayload(1));
  h.advance(1);
  assert.deepEqual(h.take(), ['Error:checksum mismatch, Last Line: 0', 'Resend: 1', 'ok']);
  h.write('N1 M115*39\n');
  h.advance(1);
  assert.ok(h.lines.some((l) => l.startsWith('FIRMWARE_NAME:Prusa-Firmware')));
  h.close();
});

test('Smoothieware uses the first * and answers a bad line with rs N<n> and no ok', () => {
  const h = harness({ profile: 'smoothieware', baud: '0' });
  h.advance(1);
  assert.deepEqual(h.take(), ['Smoothie', 'ok']);
  h.write('N0 M110 N0*125\n' + starInPayload(1));
  h.advance(1);
  // Both lines were read before M110 ran, so the resend request overtakes its ok.
  assert.deepEqual(h.take(), ['rs N1', 'ok']);
  assert.ok(h.raw().includes('\r\n'), 'Smoothieware ends lines with CRLF');
  h.close();
});

test('RepRapFirmware silently drops a bad line: no resend, no ok', () => {
  const h = harness({ profile: 'reprapfirmware', baud: '0' });
  h.write('N0 M110 N0*125\n');
  h.advance(1);
  h.take();
  h.write(frame(1, 'G1 X1').replace(/\*\d+/, '*0'));
  h.advance(1000);
  assert.deepEqual(h.take(), []);
  assert.equal(h.printer.stats.checksumErrors, 1);
  h.write(frame(1, 'M105'));
  h.advance(1);
  assert.match(h.take()[0]!, /^ok T:25\.0 \/0\.0 B:25\.0 \/0\.0$/);
  h.close();
});

test('Repetier: ok <n> on receipt, skip for a duplicate, Resend:<n> + ok for a gap, 16-bit line numbers', () => {
  const h = harness({ profile: 'repetier', baud: '0' });
  h.write('N0 M110 N0*125\n' + frame(1, 'G4 S1'));
  h.advance(1);
  assert.deepEqual(h.take().slice(-2), ['ok 0', 'ok 1'], 'acknowledged before G4 finishes');
  h.write(frame(1, 'G4 S1'));
  h.advance(1);
  assert.deepEqual(h.take(), ['skip 1']);
  h.write(frame(3, 'M400'));
  h.advance(1);
  assert.deepEqual(h.take(), ['Resend:2', 'ok']);
  h.write(frame(2, 'M400') + frame(3, 'M400'));
  h.advance(2000);
  assert.deepEqual(h.take().filter((l) => l !== 'wait'), ['ok 2', 'ok 3']);
  // Past 65535 the numbers wrap: 65536 follows 65535.
  h.write('N65535 M110 N65535*' + xorChecksum('N65535 M110 N65535') + '\n' + frame(65536, 'M400'));
  h.advance(1);
  assert.deepEqual(h.take(), ['ok 65535', 'ok 65536']);
  h.advance(1500);
  assert.ok(h.take().includes('wait'), 'an idle Repetier says wait');
  h.close();
});

test('Klipper ignores line numbers and checksums, answers errors with !! / info with //, and its own M105/M115', () => {
  const h = harness({ profile: 'klipper', baud: '0', speed: 'max' });
  h.advance(1);
  h.take();
  h.write(frame(7, 'G1 X1').replace(/\*\d+/, '*0') + frame(3, 'M104 S200') + 'M105\n');
  h.advance(1);
  assert.deepEqual(h.printer.executed, ['G1 X1', 'M104 S200', 'M105']);
  assert.deepEqual(h.take(), ['ok', 'ok', 'ok B:25.0 /0.0 T0:200.0 /200.0']);
  h.write('G1 Xabc\n');
  h.advance(1);
  assert.deepEqual(h.take(), ["!! Unable to parse move 'G1 Xabc'", 'ok']);
  h.write('G999\nM115\nPRINT_START\n');
  h.advance(1);
  assert.deepEqual(h.take(), ['// Unknown command:"G999"', 'ok', 'ok FIRMWARE_NAME:Klipper FIRMWARE_VERSION:v0.12.0-virtual', 'ok']);
  h.close();
});

test('Klipper honours a bare M112 at once; with N and * it waits its turn in the queue', () => {
  const bare = harness({ profile: 'klipper', baud: '0' });
  bare.write('G4 S10\nM112\n');
  bare.advance(1);
  assert.ok(bare.printer.isHalted);
  assert.ok(bare.lines.includes('!! Shutdown due to M112 command'));
  bare.close();

  const framed = harness({ profile: 'klipper', baud: '0' });
  framed.write('G4 S10\n' + frame(2, 'M112'));
  framed.advance(5000);
  assert.equal(framed.printer.isHalted, false);
  framed.advance(6000);
  assert.equal(framed.printer.isHalted, true);
  framed.close();
});
