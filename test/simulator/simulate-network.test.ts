// `printfarm simulate --moonraker/--octoprint PORT` as a real process: a farm's network driver finds the printer idle there.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { EventBus } from '../../src/events/event-bus.js';
import { ExtrusionIndexCache } from '../../src/printers/extrusion-index-cache.js';
import { openPrinterLink } from '../../src/printers/open-printer-link.js';
import { silentLogger } from '../../src/logger.js';
import { bambuStandInUnavailable } from '../../src/simulator/bambu/bambu-standin.js';
import { until } from '../e2e/e2e-harness.js';

async function runSimulate(args: string[]): Promise<{ url: string; stop: () => Promise<number | null>; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'simulate', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  await until(() => /stand-in listening on (\S+)/.test(out) || child.exitCode !== null, 30_000, 'the listening line').catch(async (err) => {
    await stop();
    throw new Error(`${(err as Error).message}: ${out}`);
  });
  const url = /stand-in listening on (\S+)/.exec(out)?.[1];
  if (!url) throw new Error(`simulate exited: ${out}`);
  return { url, stop, output: () => out };
}

for (const [kind, key] of [
  ['moonraker', 'moon-key'],
  ['octoprint', 'octo-key'],
  ['prusalink', 'maker:secret-pass'],
] as const) {
  test(`simulate --${kind} serves a printer the ${kind} driver connects to`, { timeout: 60_000 }, async () => {
    const sim = await runSimulate([`--${kind}`, '0', '--api-key', key, '--speed', '20']);
    assert.match(sim.url, new RegExp(`^${kind}://127\\.0\\.0\\.1:\\d+$`));
    const link = openPrinterLink({ id: `prt_${kind}`, url: sim.url, apiKey: key }, { bus: new EventBus(), logger: silentLogger, extrusionIndexes: new ExtrusionIndexCache() });
    try {
      await link.connect();
      assert.equal(link.currentStatus, 'idle');
      assert.equal(link.snapshot().offline_reason ?? null, null);
    } finally {
      await link.disconnect();
      assert.equal(await sim.stop(), 0);
    }
    assert.match(sim.output(), new RegExp(`${kind} stand-in on .* stopped`));
  });
}

test('simulate --bambu serves a Bambu printer (Mosquitto + vsftpd) the bambu driver connects to', { timeout: 60_000, skip: bambuStandInUnavailable() ?? false }, async () => {
  const sim = await runSimulate(['--bambu', '0', '--api-key', 'code1234', '--speed', '20']);
  assert.match(sim.url, /^bambu:\/\/127\.0\.0\.1:\d+\?serial=\w+&ftp_port=\d+&fingerprint=[0-9a-f]{64}$/);
  const link = openPrinterLink({ id: 'prt_bambu', url: sim.url, apiKey: 'code1234' }, { bus: new EventBus(), logger: silentLogger, extrusionIndexes: new ExtrusionIndexCache() });
  try {
    await link.connect();
    assert.equal(link.currentStatus, 'idle');
  } finally {
    await link.disconnect();
    assert.equal(await sim.stop(), 0);
  }
  assert.match(sim.output(), /bambu stand-in on .* stopped/);
});

test('simulate refuses two targets, an unknown fault and network options without a network printer', { timeout: 60_000 }, async () => {
  for (const [args, expected] of [
    [['--moonraker', '0', '--octoprint', '0'], /exactly one of/],
    [['--octoprint', '0', '--fault', 'melted'], /unknown octoprint fault "melted"/],
    [['--tcp', '0', '--api-key', 'k'], /--api-key goes with a network printer/],
    [['--moonraker', '70000'], /--moonraker must be an integer from 0 to 65535/],
  ] as const) {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'simulate', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.match(stderr, expected);
  }
});
