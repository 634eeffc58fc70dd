// A simulator that has run for a month still streams: wire time is integer µs, and the firmware loop cannot spin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ByteClock } from '../../src/simulator/serial-link.js';
import { ManualScheduler, msToUs } from '../../src/simulator/sim-scheduler.js';

const RUNNER = path.resolve('test/simulator/long-uptime-run.ts');
const DAY_US = 86_400_000_000;

/** Runs the 30-day stream in a child; a hang (the old float clock spun at 100% CPU) is killed and reported. */
function runAtUptime(baud: string): Promise<{ code: number | null; signal: string | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, baud], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    // A hang guard, not a performance bound: a healthy run takes about a second.
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, out });
    });
  });
}

for (const baud of ['115200', '250000', '0']) {
  test(`at a simulated uptime of 30 days the simulator streams 10,000 lines (baud ${baud})`, async () => {
    const r = await runAtUptime(baud);
    assert.equal(r.signal, null, `the simulator hung (killed): ${r.out}`);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /^done 10000 checksum_errors=0$/m);
  });
}

test('ByteClock: bytesWithin is the exact inverse of span, at any uptime', () => {
  const rows: Array<{ bits: number; k: number }> = [
    { bits: 115_200, k: 1 },
    { bits: 115_200, k: 7 },
    { bits: 115_200, k: 12_345 },
    { bits: 250_000, k: 3 },
    { bits: 1_000_000, k: 999 },
    { bits: 115_200 * 7.3, k: 4_321 },
  ];
  for (const { bits, k } of rows) {
    const wire = new ByteClock(bits, 0);
    const span = wire.span(k);
    assert.ok(Number.isInteger(span), `span(${k}) at ${bits} is whole µs`);
    assert.equal(wire.bytesWithin(span, 1e9), k, `at span(${k}) exactly ${k} bytes arrived (${bits} bit/s)`);
    assert.equal(wire.bytesWithin(span - 1, 1e9), k - 1, `1 µs earlier the ${k}th byte is still on the wire`);
    // The same differences taken against a start of 30 days: integers do not lose the byte.
    const t0 = 30 * DAY_US + 123;
    assert.equal(wire.bytesWithin(t0 + span - t0, 1e9), k);
  }
});

test('the manual clock keeps whole microseconds from a 30-day start', () => {
  const clock = new ManualScheduler(30 * 86_400_000 + 0.123456);
  assert.equal(clock.nowUs(), 30 * DAY_US + 123);
  let ran = 0;
  clock.atUs(clock.nowUs() + 87, () => ran++);
  clock.advance(0.086);
  assert.equal(ran, 0);
  clock.advance(0.001);
  assert.equal(ran, 1);
  assert.equal(msToUs(0.0868), 87);
});
