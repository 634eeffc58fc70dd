// `printfarm simulate --pty PATH | --tcp PORT`: virtual printers behind a socat pseudo-terminal or raw TCP ports, for any host to open.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SerialPort } from 'serialport';
import { parseSimulatorOptions, SIMULATOR_OPTION_NAMES, type SimulatorOptions } from '../simulator/simulator-options.js';
import { startTcpBridge } from '../simulator/tcp-bridge.js';
import { VirtualPrinter } from '../simulator/virtual-printer.js';
import { CliUsageError, type CliCommand } from './command.js';

const usage = `Usage: printfarm simulate --pty PATH [--profile marlin] [--baud 250000] [--OPTION VALUE ...]
       printfarm simulate --tcp PORT [--count N] [--host 127.0.0.1] [--OPTION VALUE ...]

--pty PATH   a virtual printer behind a pseudo-terminal: a host (printfarm serve, or any other program) opens PATH as
             if it were /dev/ttyACM0. Needs socat (apt-get install socat). PATH is removed on exit.
--tcp PORT   N virtual printers (--count, default 1) on ports PORT..PORT+N-1 (0: ephemeral ports), raw G-code as a
             ser2net or ESP3D bridge serves it; the host connects to tcp://HOST:PORT. One client a port; each
             connection powers a fresh printer on. Prints one line a printer:
             "virtual printer PROFILE listening on tcp://HOST:PORT".
Runs until SIGINT/SIGTERM (exit 0).

Options (same names as the sim:// URL query; dashes or underscores):
  ${SIMULATOR_OPTION_NAMES.join(', ')}
e.g. printfarm simulate --pty /tmp/printer0 --profile prusa --speed 10 --error-rate 0.001
     printfarm simulate --tcp 2300 --count 4 --speed max`;

const MAX_COUNT = 1000;

type Target = { kind: 'pty'; path: string } | { kind: 'tcp'; host: string; port: number; count: number };

function intArg(name: string, raw: string, min: number, max: number): number {
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new CliUsageError(`--${name} must be an integer from ${min} to ${max}, not "${raw}"`);
  return n;
}

function parseArgs(args: string[]): { target: Target; options: SimulatorOptions } {
  const own = new Map<string, string>();
  const params: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) throw new CliUsageError(`unexpected argument "${arg}" (see --help)`);
    const eq = arg.indexOf('=');
    const name = (eq >= 0 ? arg.slice(2, eq) : arg.slice(2)).replaceAll('-', '_');
    let value: string | undefined = eq >= 0 ? arg.slice(eq + 1) : args[i + 1];
    if (eq < 0) i++;
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new CliUsageError(`--${name} needs a value`);
    if (['pty', 'tcp', 'count', 'host'].includes(name)) {
      if (own.has(name)) throw new CliUsageError(`--${name} is given twice`);
      own.set(name, value);
    } else if (!SIMULATOR_OPTION_NAMES.includes(name)) {
      throw new CliUsageError(`unknown option --${name} (known: pty, tcp, count, host, ${SIMULATOR_OPTION_NAMES.join(', ')})`);
    } else params[name] = value;
  }
  let options: SimulatorOptions;
  try {
    options = parseSimulatorOptions(params);
  } catch (err) {
    throw new CliUsageError((err as Error).message);
  }
  const pty = own.get('pty');
  const tcp = own.get('tcp');
  if ((pty === undefined) === (tcp === undefined)) throw new CliUsageError('give exactly one of --pty PATH or --tcp PORT');
  if (pty !== undefined) {
    for (const n of ['count', 'host']) if (own.has(n)) throw new CliUsageError(`--${n} goes with --tcp, not --pty`);
    if (pty === '') throw new CliUsageError('--pty needs a path');
    return { target: { kind: 'pty', path: resolve(pty) }, options };
  }
  const port = intArg('tcp', tcp!, 0, 65535);
  const count = own.has('count') ? intArg('count', own.get('count')!, 1, MAX_COUNT) : 1;
  if (port !== 0 && port + count - 1 > 65535) throw new CliUsageError(`--tcp ${port} --count ${count} runs past port 65535`);
  const host = own.get('host') ?? '127.0.0.1';
  if (host === '') throw new CliUsageError('--host needs an address');
  return { target: { kind: 'tcp', host, port, count }, options };
}

/** Resolves with the signal's name on the first SIGINT or SIGTERM, or with `other`'s reason; then stops listening. */
async function untilStopped(other: (stop: (reason: string) => void) => void): Promise<string> {
  let onSignal: (signal: string) => void = () => {};
  const reason = await new Promise<string>((done) => {
    onSignal = done;
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    other(done);
  });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  return reason;
}

async function runTcp(target: Extract<Target, { kind: 'tcp' }>, options: SimulatorOptions): Promise<number> {
  const bridge = await startTcpBridge({
    host: target.host,
    basePort: target.port,
    count: target.count,
    simulator: options,
    log: (line) => console.error(`printfarm simulate: ${line}`),
  });
  const shown = target.host.includes(':') ? `[${target.host}]` : target.host;
  for (const port of bridge.ports) console.log(`virtual printer ${options.profile} listening on tcp://${shown}:${port}`);
  await untilStopped(() => {});
  await bridge.close();
  console.log(`${bridge.ports.length} virtual printer(s) on tcp://${shown} stopped`);
  return 0;
}

function removeLink(path: string): void {
  try {
    if (lstatSync(path).isSymbolicLink()) rmSync(path, { force: true });
  } catch {
    // Already gone.
  }
}

async function startSocat(hostPath: string, simPath: string): Promise<ChildProcess> {
  const probe = spawnSync('socat', ['-V'], { stdio: 'ignore' });
  if (probe.error !== undefined) throw new Error('socat is not installed: install socat: apt-get install socat');
  const child = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${hostPath}`, `pty,raw,echo=0,link=${simPath}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    log = (log + chunk).slice(-4000);
  });
  const deadline = Date.now() + 5000;
  while (!(log.includes('starting data transfer loop') && existsSync(hostPath) && existsSync(simPath))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`socat could not create the pseudo-terminal: ${log.trim() || '(no output)'}`);
    }
    await sleep(10);
  }
  return child;
}

async function openPort(path: string): Promise<SerialPort> {
  const port = new SerialPort({ path, baudRate: 250000, autoOpen: false });
  await new Promise<void>((done, fail) => port.open((err) => (err ? fail(err) : done())));
  return port;
}

async function runPty(pty: string, options: SimulatorOptions): Promise<number> {
  const simPath = `${pty}.sim`;
  for (const p of [pty, simPath]) {
    if (existsSync(p) || isDanglingLink(p)) throw new Error(`${p} already exists: remove it or choose another --pty`);
  }

  const socat = await startSocat(pty, simPath);
  let port: SerialPort;
  try {
    port = await openPort(simPath);
  } catch (err) {
    socat.kill('SIGTERM');
    throw new Error(`could not open the simulator end ${simPath}: ${(err as Error).message}`);
  }

  const printer = new VirtualPrinter(options);
  printer.onOutput((bytes) => port.write(bytes));
  // A backlog on the modelled cable holds the pty, so the host's writes block as on a real USB link.
  printer.onDrain(() => port.resume());
  port.on('data', (data: Buffer) => {
    if (!printer.hostWrite(data)) port.pause();
  });

  console.log(`virtual printer ${options.profile} listening on ${pty}`);

  const UNPLUGGED = 'unplugged';
  const reason = await untilStopped((done) => {
    socat.once('exit', () => done('socat exited'));
    port.once('close', () => done('the pseudo-terminal closed'));
    // Closing our end makes socat see EOF and quit, which hangs up the host's end: the host sees the cable go.
    printer.onUnplug(() => done(UNPLUGGED));
  });

  printer.close();
  await new Promise<void>((done) => (port.isOpen ? port.close(() => done()) : done()));
  if (socat.exitCode === null && socat.signalCode === null) {
    socat.kill('SIGTERM');
    await new Promise<void>((done) => socat.once('exit', () => done()));
  }
  removeLink(pty);
  removeLink(simPath);
  if (reason === UNPLUGGED) {
    console.log(`virtual printer on ${pty} unplugged after ${options.unplugAfterLines} lines (unplug_after_lines): stopped`);
    return 0;
  }
  const clean = reason === 'SIGINT' || reason === 'SIGTERM';
  if (clean) console.log(`virtual printer on ${pty} stopped`);
  else console.error(`printfarm simulate: stopped: ${reason}`);
  return clean ? 0 : 1;
}

async function run(args: string[]): Promise<number> {
  const { target, options } = parseArgs(args);
  return target.kind === 'pty' ? runPty(target.path, options) : runTcp(target, options);
}

function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

export const simulateCommand: CliCommand = {
  name: 'simulate',
  usage,
  run,
};
