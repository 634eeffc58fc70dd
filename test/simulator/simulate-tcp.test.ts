// `printfarm simulate --tcp` as a real process: hosts connect over TCP like to a ser2net bridge; one client a port, unplug drops the link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { EventBus } from '../../src/events/event-bus.js';
import { PrinterSession } from '../../src/printers/printer-session.js';
import { xorOf } from '../../src/protocol/framing.js';
import { TcpTransport } from '../../src/transport/tcp.transport.js';
import { until, within } from '../e2e/e2e-harness.js';

interface SimProcess {
  child: ChildProcess;
  ports: number[];
  output: () => string;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

async function startSimulate(args: string[], count: number): Promise<SimProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'simulate', ...args], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const code = await exited;
    clearTimeout(killer);
    return code;
  };
  const listening = (): RegExpMatchArray[] => [...stdout.matchAll(/^virtual printer marlin listening on tcp:\/\/127\.0\.0\.1:(\d+)$/gm)];
  try {
    await until(() => listening().length >= count || child.exitCode !== null, 30_000, 'the listening lines');
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}; stdout: ${stdout}; stderr: ${stderr}`);
  }
  if (child.exitCode !== null) throw new Error(`simulate exited ${child.exitCode}: ${stdout}${stderr}`);
  return { child, ports: listening().map((m) => Number(m[1])), output: () => stdout + stderr, exited, stop };
}

/** A raw TCP link as the host's transport sees it, with every received line kept. */
async function openLink(port: number): Promise<{ t: TcpTransport; lines: string[]; closed: Promise<Error | null> }> {
  const t = new TcpTransport({ host: '127.0.0.1', port });
  const lines: string[] = [];
  let closed!: (e: Error | null) => void;
  const closedP = new Promise<Error | null>((r) => (closed = r));
  await t.open({ onLine: (l) => lines.push(l), onDrain: () => {}, onClose: (e) => closed(e) });
  return { t, lines, closed: closedP };
}

const framed = (n: number, cmd: string): string => {
  const body = `N${n} ${cmd}`;
  return `${body}*${xorOf(body)}\n`;
};

test('simulate --tcp serves printers on ephemeral ports, one client each, and exits 0 on SIGTERM', { timeout: 60_000 }, async () => {
  const sim = await startSimulate(['--tcp', '0', '--count', '2'], 2);
  try {
    assert.equal(sim.ports.length, 2);
    assert.notEqual(sim.ports[0], sim.ports[1]);
    assert.ok(sim.ports.every((p) => p > 0));

    const link = await openLink(sim.ports[0]!);
    link.t.write('N0 M110 N0*125\n' + framed(1, 'M115'));
    await until(() => link.lines.includes('Cap:ADVANCED_OK:0') && link.lines.at(-1) === 'ok', 10_000, 'M115 reply');
    assert.ok(link.lines.includes('ok'));
    assert.ok(link.lines.some((l) => l.startsWith('FIRMWARE_NAME:Marlin')));

    // A second host on the same port is closed at once, without a byte, and the first keeps its printer.
    const second = connect({ host: '127.0.0.1', port: sim.ports[0]! });
    let secondData = 0;
    second.on('data', (d: Buffer) => (secondData += d.length));
    second.on('error', () => undefined);
    await within(new Promise<void>((r) => second.once('close', () => r())), 10_000, 'the second connection to close');
    assert.equal(secondData, 0);
    await until(() => /refused .* a client is already connected/.test(sim.output()), 10_000, 'the refusal log line');
    const before = link.lines.length;
    link.t.write(framed(2, 'M105'));
    await until(() => link.lines.slice(before).some((l) => l.startsWith('ok')), 10_000, 'ok after the refused connection');
    await link.t.close();

    // A full printer session over the other port: handshake and firmware detection as with a real bridge.
    const session = new PrinterSession({
      printerId: 'prt_tcp',
      url: `tcp://127.0.0.1:${sim.ports[1]}`,
      bus: new EventBus(),
      autoReconnect: false,
      drainQuietMs: 100,
      drainMaxMs: 1000,
    });
    try {
      await within(session.connect(), 20_000, 'session connect');
      assert.equal(session.currentStatus, 'idle');
      assert.match(session.snapshot().firmware?.name ?? '', /Marlin/);
      assert.equal((await within(session.sendCommand('M105'), 10_000, 'M105')).ok, true);
    } finally {
      await session.disconnect();
    }

    assert.equal(await sim.stop(), 0);
    assert.match(sim.output(), /stopped/);
  } finally {
    await sim.stop();
  }
});

test('simulate --tcp with unplug_after_lines drops the link, and the next connection gets a fresh printer', { timeout: 60_000 }, async () => {
  const sim = await startSimulate(['--tcp', '0', '--unplug-after-lines', '3', '--speed', 'max'], 1);
  try {
    const link = await openLink(sim.ports[0]!);
    let out = 'N0 M110 N0*125\n';
    for (let n = 1; n <= 6; n++) out += framed(n, `G1 X${n} F3000`);
    link.t.write(out);
    const err = await within(link.closed, 10_000, 'the link to drop');
    assert.ok(err instanceof Error);
    assert.match(err.message, /link lost/);
    await link.t.close();
    assert.match(sim.output(), /cable was pulled/);

    // The port takes a new client (the unplugged one is gone): its board boots afresh and answers.
    await until(() => /disconnected/.test(sim.output()), 10_000, 'the server to notice the drop');
    const again = await openLink(sim.ports[0]!);
    again.t.write('N0 M110 N0*125\n');
    await until(() => again.lines.includes('ok'), 10_000, 'ok from the replugged printer');
    assert.ok(again.lines.includes('start'));
    await again.t.close();
    assert.equal(await sim.stop(), 0);
  } finally {
    await sim.stop();
  }
});

test('simulate refuses --tcp together with --pty, and a bad --count', { timeout: 30_000 }, async () => {
  for (const args of [['--tcp', '0', '--pty', '/tmp/x'], ['--tcp', '0', '--count', '0'], ['--pty', '/tmp/x', '--count', '2']]) {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'simulate', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.match(stderr, /--(pty|tcp|count)/);
  }
});
