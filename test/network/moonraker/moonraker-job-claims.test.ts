// When a report concerns the job we started on Klipper (MoonrakerJob.claims): one row per report, from our start on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MoonrakerJob } from '../../../src/printers/moonraker/moonraker-job.js';
import type { PrintState, PrintView } from '../../../src/printers/moonraker/moonraker-state.js';

const view = (filename: string, state: PrintState): PrintView => ({
  state,
  filename,
  message: '',
  filePosition: 0,
  fileSize: 1000,
  progress: 0,
  printDuration: 0,
  totalDuration: 0,
  filamentUsed: 0,
});

const rows: Array<[string, boolean, string, PrintState, boolean]> = [
  // why,                                                        start answered, file,        state,       ours
  ['the previous print still shown', true, 'old.gcode', 'complete', false],
  ['ours printing, before the start answered', false, 'j1.gcode', 'printing', true],
  ['ours loaded, not started yet (Klipper answers the start first)', true, 'j1.gcode', 'standby', false],
  ['ours already over between two reports', true, 'j1.gcode', 'complete', true],
  ['ours cancelled between two reports', true, 'j1.gcode', 'cancelled', true],
  ['ours failed at once', true, 'j1.gcode', 'error', true],
  ['ours complete, but the start not answered yet', false, 'j1.gcode', 'complete', false],
];

for (const [why, acked, file, state, ours] of rows) {
  test(`${why}: ${ours ? 'ours' : 'not ours yet'}`, () => {
    const job = new MoonrakerJob('j1', '/tmp/j1.gcode', 'j1.gcode', { wall: 0, monotonic: 0 }, 1000, { filename: 'old.gcode', state: 'complete' }, () => 0);
    job.startAcked = acked;
    assert.equal(job.claims(view(file, state)), ours);
    assert.equal(job.armed, ours);
  });
}

test('once armed, every report of our file is ours: a reset to standby is then the print dropped', () => {
  const job = new MoonrakerJob('j1', '/tmp/j1.gcode', 'j1.gcode', { wall: 0, monotonic: 0 }, 1000, { filename: 'old.gcode', state: 'complete' }, () => 0);
  job.startAcked = true;
  assert.equal(job.claims(view('j1.gcode', 'standby')), false);
  assert.equal(job.claims(view('j1.gcode', 'printing')), true);
  assert.equal(job.claims(view('j1.gcode', 'standby')), true);
  assert.equal(job.claims(view('other.gcode', 'printing')), false);
});
