// Software endstops: a move past the bed is cut at the limit (Marlin family) or refused with the firmware's error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSimulatorOptions } from '../../src/simulator/simulator-options.js';
import { harness } from './sim-harness.js';

const FAST = { speed: 'max', baud: '0' };

test('Marlin cuts G1 X5000 at the 220 mm soft endstop: M114 reports X:220.00, M211 shows the limits', () => {
  const h = harness({ ...FAST });
  h.advance(10);
  h.take();
  h.write('G1 X5000 Y-30 F6000\nM114\nM211\n');
  h.waitFor(/^echo:Soft endstops/);
  const lines = h.take();
  assert.ok(lines.some((l) => /^X:220\.00 Y:0\.00 Z:0\.00/.test(l)), lines.join('\n'));
  assert.ok(lines.includes('echo:Soft endstops: ON  Min:  X0.00 Y0.00 Z0.00   Max:  X220.00 Y220.00 Z250.00'), lines.join('\n'));
  // M211 S0 switches them off: the same move then goes all the way (the old behaviour, now only on request).
  h.write('M211 S0\nG1 X5000\nM114\n');
  h.waitFor(/^X:/);
  assert.ok(h.take().some((l) => /^X:5000\.00/.test(l)));
  h.close();
});

test('Klipper refuses the move with !! Move out of range and its ok; the position stays', () => {
  const h = harness({ ...FAST, profile: 'klipper' });
  h.advance(10);
  h.take();
  h.write('G1 X5000\nM114\n');
  h.waitFor(/^X:/);
  const lines = h.take();
  assert.deepEqual(lines.slice(0, 2), ['!! Move out of range: 5000.000 0.000 0.000 [0.000]', 'ok']);
  assert.ok(lines.some((l) => /^X:0\.00/.test(l)), lines.join('\n'));
  h.close();
});

test('RepRapFirmware refuses with an Error: line; a bed option changes the limits; soft_endstops=0 turns them off', () => {
  const h = harness({ ...FAST, profile: 'reprapfirmware', bed: '300x300x400' });
  h.advance(10);
  h.take();
  h.write('G1 X250\nG1 X301\nM114\n');
  h.waitFor(/^X:/);
  const lines = h.take();
  assert.ok(lines.includes('Error: G1: target position outside machine limits'), lines.join('\n'));
  assert.ok(lines.some((l) => /^X:250\.00/.test(l)), 'the move inside the 300 mm bed ran; the one past it did not');
  h.close();
  assert.equal(parseSimulatorOptions({ soft_endstops: '0' }).softEndstops, false);
  assert.throws(() => parseSimulatorOptions({ bed: '220x220' }), /simulator option "bed"/);
});
