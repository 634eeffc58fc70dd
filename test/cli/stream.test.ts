// `printfarm stream` and `printfarm console` run as child processes against sim:// printers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeGcode } from '../printers/gcode-fixture.js';
import { runCli } from './console-and-stream-cli.js';

test('printfarm stream completes a file over sim:// and exits 0 with a summary', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-cli-'));
  try {
    const file = path.join(dir, 'part.gcode');
    const fx = await writeGcode(file, 600);
    const r = await runCli(['stream', '--url', 'sim://cli1?speed=max', file]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /connected: Marlin/);
    assert.match(r.stdout, new RegExp(`lines +${fx.stripped.length} acknowledged of ${fx.stripped.length} sent`));
    assert.match(r.stdout, new RegExp(`bytes +${Buffer.byteLength(fx.text)} of ${Buffer.byteLength(fx.text)}`));
    for (const key of ['seconds', 'lines/s', 'resends', 'timeouts']) assert.match(r.stdout, new RegExp(`^${key} +[\\d.]+$`, 'm'));
    assert.match(r.stdout, /result +completed/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('printfarm stream exits 1 with the reason when the print fails, 2 on bad flags', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-cli-'));
  try {
    const file = path.join(dir, 'part.gcode');
    await writeGcode(file, 600);
    const r = await runCli(['stream', '--url', 'sim://cli2?speed=max&runaway_after_lines=200', file]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /result +failed: .*(runaway|halted).*\(firmware_error\)/i);
    const missing = await runCli(['stream', '--url', 'sim://cli3?speed=max', path.join(dir, 'nope.gcode')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read G-code file/);
    const bad = await runCli(['stream', file]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--url is required/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('printfarm console sends typed commands, prints their replies, and leaves on end of input', async () => {
  const r = await runCli(['console', '--url', 'sim://con1?speed=max'], 'M105\nM115\nG28\nFOO42\n');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /connected: Marlin/);
  assert.match(r.stdout, /< .*T:\d/);
  assert.match(r.stdout, /< FIRMWARE_NAME:Marlin/);
  assert.match(r.stdout, /Unknown command/i);
});

test('printfarm stream shows the phase from the start: connecting, heating with temperatures, an ETA from the slicer', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-cli-'));
  try {
    const file = path.join(dir, 'heat.gcode');
    const moves = Array.from({ length: 60 }, (_, i) => `G1 X${(i % 50) + 1} F6000`);
    await writeFile(file, [';FLAVOR:Marlin', ';TIME:1234', 'M104 S200', 'M109 S200 ; wait', ...moves, ''].join('\n'));
    // speed=30: heating from room temperature takes about a second of real time, long enough to be seen.
    const r = await runCli(['stream', '--url', 'sim://cli-heat?speed=30', file]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /^progress connecting +0\.0% +0 lines +ETA 20m 34s \(slicer\)$/m);
    assert.match(r.stderr, /^progress heating: \d+\/200 °C +\d+\.\d% +\d+\/62 lines +ETA \d+m \d\ds \(slicer\)$/m);
    assert.match(r.stderr, /^progress completed +100\.0% +62\/62 lines/m);
    // --estimate wins over the file's header; a bad value is a usage error.
    const est = await runCli(['stream', '--url', 'sim://cli-heat2?speed=max', '--estimate', '600', file]);
    assert.equal(est.code, 0, est.stderr);
    assert.match(est.stderr, /^progress connecting .*ETA 10m 00s \(slicer\)$/m);
    const bad = await runCli(['stream', '--url', 'sim://x', '--estimate', 'soon', file]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--estimate needs a number of seconds/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
