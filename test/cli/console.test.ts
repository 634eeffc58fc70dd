// `printfarm console` against a sim:// printer: console commands, unknown ! lines, and the way out of an emergency stop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './console-and-stream-cli.js';

const runConsole = (url: string, stdin: string) => runCli(['console', '--url', url], stdin);

test('console: an unknown !command is refused, never sent to the printer as G-code', async () => {
  const r = await runConsole('sim://con-bang?speed=max', '!frobnicate now\n!help\nM105\n');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /! unknown console command: !frobnicate \(!help lists them\)/);
  assert.doesNotMatch(r.stdout, /Unknown command/i, 'the firmware never saw it');
  assert.match(r.stdout, /!reconnect +reset the printer/);
  assert.match(r.stdout, /< .*T:\d/);
});

test('console: after M112 it says the printer halted and what to do; !reconnect brings the printer back', async () => {
  const r = await runConsole('sim://con-estop?speed=max', 'M112\nM105\n!reconnect\nM105\nG1 X5000\nM114\n');
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout;
  assert.match(out, /printer error: emergency stop/);
  assert.match(out, /the printer is halted: .*!reconnect to reset it/);
  // The M105 typed while halted is not sent (and does not hang the console).
  assert.match(out, /! not sent: the printer is halted/);
  const back = out.indexOf('resetting the printer and connecting again');
  assert.ok(back > 0, out);
  const after = out.slice(back);
  assert.match(after, /connected: Marlin/);
  assert.match(after, /< .*T:\d/, 'the printer answers again after the reset');
  // The simulator enforces the 220 mm bed like firmware with soft endstops: the carriage stops at X220.
  assert.match(after, /< X:220\.00/);
});
