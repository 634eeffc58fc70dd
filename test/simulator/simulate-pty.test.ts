// `printfarm simulate --pty PATH` as a real process: a host opens PATH with serialport, talks to the virtual printer and sees an unplug.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import { xorOf } from '../../src/protocol/framing.js';
import { createTransport } from '../../src/transport/open-transport.js';
import type { Transport } from '../../src/transport/transport.js';

const hasSocat = spawnSync('socat', ['-V'], { stdio: 'ignore' }).status === 0;
const linkExists = (p: string): boolean => {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

/** `printfarm simulate --pty <tmp>/printer ARGS` as its own process group, its output gathered, until it listens. */
async function startSimulate(args: readonly string[]) {
  const dir = await mkdtemp(join(tmpdir(), 'printfarm-sim-'));
  const path = join(dir, 'printer');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'simulate', '--pty', path, ...args], {
    // npm test runs from the repository root; detached so a failed run can kill socat with the whole group.
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const sim = {
    dir,
    path,
    child,
    exited,
    output: () => output,
    /** Kills the whole group if the test left it running, and removes the directory. */
    async cleanUp(): Promise<void> {
      if (child.exitCode === null && child.signalCode === null) {
        process.kill(-child.pid!, 'SIGKILL');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    const deadline = Date.now() + 30_000;
    while (!output.includes('listening on')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no listening line; output: ${output}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } catch (err) {
    await sim.cleanUp();
    throw err;
  }
  return sim;
}

test('simulate --pty serves a virtual printer on a pseudo-terminal and cleans up on SIGTERM', {
  skip: hasSocat ? false : 'socat is not installed (apt-get install socat)',
  timeout: 40_000,
}, async () => {
  const { dir, path, child, exited, output, cleanUp } = await startSimulate(['--profile', 'marlin', '--speed', 'max']);
  let port: SerialPort | null = null;
  try {
    assert.match(output(), new RegExp(`virtual printer marlin listening on ${path.replaceAll('/', '\\/')}`));
    assert.ok(existsSync(path));

    const host = new SerialPort({ path, baudRate: 250000, autoOpen: false });
    port = host;
    await new Promise<void>((ok, fail) => host.open((err) => (err ? fail(err) : ok())));
    let received = '';
    host.on('data', (d: Buffer) => (received += d.toString('latin1')));
    host.write('N0 M110 N0*125\nN1 M115*39\n');
    const until = Date.now() + 10_000;
    while (!/Cap:ADVANCED_OK:0\nok\n/.test(received)) {
      if (Date.now() > until) throw new Error(`no reply; got ${JSON.stringify(received)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.match(received, /^ok$/m);
    assert.match(received, /FIRMWARE_NAME:Marlin/);
    await new Promise<void>((ok) => host.close(() => ok()));
    port = null;

    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.equal(linkExists(path), false, 'the pty link is removed');
    assert.deepEqual(await readdir(dir), [], 'nothing else is left behind');
  } finally {
    if (port?.isOpen) await new Promise<void>((ok) => port!.close(() => ok()));
    await cleanUp();
  }
});

test('simulate --pty with unplug_after_lines hangs up the host end and exits 0', {
  skip: hasSocat ? false : 'socat is not installed (apt-get install socat)',
  timeout: 40_000,
}, async () => {
  const { path, exited, output, cleanUp } = await startSimulate(['--speed', 'max', '--unplug-after-lines', '3']);
  let transport: Transport | null = null;
  try {
    // The host side is the product's own serial transport (real serialport binding and line parser).
    const host = createTransport(`serial://${path}?baud=250000`);
    transport = host;
    const hungUp = new Promise<Error | null>((done) => {
      host.open({ onLine: () => undefined, onDrain: () => undefined, onClose: done }).catch(done);
    });
    const framed = (n: number, cmd: string): string => `N${n} ${cmd}*${xorOf(`N${n} ${cmd}`)}\n`;
    // Like a real host: the job lines, then an M105 poll every half second until the link drops.
    const safeWrite = (data: string): void => {
      try {
        host.write(data);
      } catch {
        // Not open yet, or already closed: onClose reports which.
      }
    };
    const poll = setInterval(() => safeWrite('M105\n'), 500);
    setTimeout(() => safeWrite('N0 M110 N0*125\n' + [1, 2, 3, 4, 5].map((n) => framed(n, `G1 X${n}`)).join('')), 200);
    let timer: NodeJS.Timeout | undefined;
    const err = await Promise.race([
      hungUp,
      new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`the host end stayed open; output: ${output()}`)), 15_000))),
    ]).finally(() => clearInterval(poll));
    clearTimeout(timer);
    assert.ok(err instanceof Error, 'the host sees the link drop as a failure, not as its own close');
    assert.match(err.message, /link lost/);
    transport = null;
    assert.equal(await exited, 0);
    assert.match(output(), /unplugged after 3 lines/);
    assert.equal(linkExists(path), false, 'the pty link is removed');
  } finally {
    await transport?.close().catch(() => undefined);
    await cleanUp();
  }
});

/** Opens `path` like a host does and collects what the printer says. */
async function openHost(path: string): Promise<{ port: SerialPort; received: () => string; waitFor(re: RegExp, what: string): Promise<void>; close(): Promise<void> }> {
  const port = new SerialPort({ path, baudRate: 250000, autoOpen: false });
  await new Promise<void>((ok, fail) => port.open((err) => (err ? fail(err) : ok())));
  let received = '';
  port.on('data', (d: Buffer) => (received += d.toString('latin1')));
  return {
    port,
    received: () => received,
    async waitFor(re, what) {
      const until = Date.now() + 10_000;
      while (!re.test(received)) {
        if (Date.now() > until) throw new Error(`no ${what}; got ${JSON.stringify(received)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise<void>((ok) => (port.isOpen ? port.close(() => ok()) : ok())),
  };
}

test('simulate --pty: closing and reopening the port resets the board like DTR: a halt after M112 is gone', {
  skip: hasSocat ? false : 'socat is not installed (apt-get install socat)',
  timeout: 40_000,
}, async () => {
  const { path, child, exited, output, cleanUp } = await startSimulate(['--profile', 'marlin', '--speed', 'max']);
  const hosts: Array<Awaited<ReturnType<typeof openHost>>> = [];
  try {

    const first = await openHost(path);
    hosts.push(first);
    await first.waitFor(/^start$/m, 'boot banner on the first open');
    first.port.write('M104 S200\nM105\n');
    await first.waitFor(/ok T:[\d.]+ \/200\.0 /, 'the hotend target in the M105 answer');
    first.port.write('M112\n');
    await first.waitFor(/Error:Printer halted\. kill\(\) called!/, 'the halt message');
    const before = first.received().length;
    first.port.write('M105\n');
    await new Promise((r) => setTimeout(r, 500));
    assert.doesNotMatch(first.received().slice(before), /ok/, 'a halted board answers nothing');
    await first.close();

    const second = await openHost(path);
    hosts.push(second);
    await second.waitFor(/^start$/m, 'a boot banner after reopening the port');
    second.port.write('M105\n');
    await second.waitFor(/ok T:[\d.]+ \/0\.0 B:[\d.]+ \/0\.0 /, 'an M105 answer from the powered-on board, targets off');
    assert.doesNotMatch(second.received(), /halted/);
    await second.close();

    child.kill('SIGTERM');
    assert.equal(await exited, 0, output());
    assert.equal(linkExists(path), false, 'the pty link is removed');
  } finally {
    for (const h of hosts) await h.close();
    await cleanUp();
  }
});
