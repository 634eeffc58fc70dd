// Simulator options from a URL query or CLI flags: defaults, every kind of value, and errors that name the option.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SIMULATOR_OPTIONS, parseSimulatorOptions } from '../../src/simulator/simulator-options.js';

test('defaults: Marlin at 250000 baud, 128-byte RX, 4 slots, 16 planner blocks, real time, no faults', () => {
  const o = parseSimulatorOptions(new URLSearchParams());
  assert.deepEqual(o, DEFAULT_SIMULATOR_OPTIONS);
  assert.equal(o.profile, 'marlin');
  assert.equal(o.baud, 250000);
  assert.equal(o.rx, 128);
  assert.equal(o.slots, 4);
  assert.equal(o.planner, 16);
  assert.equal(o.speed, 1);
  assert.equal(o.errorRate, 0);
});

test('values from a query string and from a record parse the same way', () => {
  const q = 'profile=prusa&baud=115200&speed=max&rx=64&slots=8&planner=32&advanced_ok=1&latency_ms=16&autoreport=0' +
    '&error_rate=0.001&loss_rate=0.0005&drop_ok_every=100&duplicate_resend=1&reset_after_lines=10' +
    '&unplug_after_lines=20&runaway_after_lines=30&instant=1&seed=42&boot_ms=1500&boot_noise=1&record=0';
  const fromQuery = parseSimulatorOptions(new URLSearchParams(q));
  const fromRecord = parseSimulatorOptions(Object.fromEntries(new URLSearchParams(q)));
  assert.deepEqual(fromQuery, fromRecord);
  assert.equal(fromQuery.profile, 'prusa');
  assert.equal(fromQuery.speed, 'max');
  assert.equal(fromQuery.advancedOk, true);
  assert.equal(fromQuery.latencyMs, 16);
  assert.equal(fromQuery.errorRate, 0.001);
  assert.equal(fromQuery.dropOkEvery, 100);
  assert.equal(fromQuery.record, false);
  assert.equal(parseSimulatorOptions({ speed: '2.5' }).speed, 2.5);
  assert.equal(parseSimulatorOptions({ baud: '0' }).baud, 0);
});

test('unknown names and bad values throw an Error naming the option', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ bogus: '1' }, /unknown simulator option "bogus"/],
    [{ profile: 'sailfish' }, /"profile": "sailfish".*marlin, prusa/],
    [{ baud: 'fast' }, /"baud": "fast"/],
    [{ baud: '-1' }, /"baud"/],
    [{ speed: '0' }, /"speed": "0".*> 0 or "max"/],
    [{ speed: 'turbo' }, /"speed"/],
    [{ rx: '8' }, /"rx": "8".*16/],
    [{ slots: '0' }, /"slots"/],
    [{ advanced_ok: 'yes' }, /"advanced_ok": "yes".*0 or 1/],
    [{ error_rate: '2' }, /"error_rate"/],
    [{ loss_rate: 'NaN' }, /"loss_rate"/],
    [{ drop_ok_every: '1.5' }, /"drop_ok_every"/],
    [{ seed: '' }, /"seed"/],
  ];
  for (const [params, message] of cases) {
    assert.throws(() => parseSimulatorOptions(params), message, JSON.stringify(params));
  }
  assert.throws(() => parseSimulatorOptions(new URLSearchParams('baud=0&baud=1')), /"baud" is given twice/);
});
