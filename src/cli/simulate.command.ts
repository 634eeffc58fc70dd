// `printfarm simulate --pty PATH`: a virtual printer on one end of a socat pseudo-terminal pair, for any host to open PATH.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SerialPort } from 'serialport';
import { parseSimulatorOptions, SIMULATOR_OPTION_NAMES } from '../simulator/simulator-options.js';
import { VirtualPrinter } from '../simulator/virtual-printer.js';
import { CliUsageError, type CliCommand } from './command.js';

const usage = `Usage: printfarm simulate --pty PATH [--profile marlin] [--baud 250000] [--OPTION VALUE ...]

Runs a virtual printer behind a pseudo-terminal: a host (printfarm serve, or any other program) opens PATH as if it
were /dev/ttyACM0. Needs socat (apt-get install socat). Runs until SIGINT/SIGTERM, then removes PATH.

Options (same names as the sim:// URL query; dashes or underscores):
  ${SIMULATOR_OPTION_NAMES.join(', ')}
e.g. printfarm simulate --pty /tmp/printer0 --profile prusa --speed 10 --error-rate 0.001`;

function parseArgs(args: string[]): { pty: string; params: Record<string, string> } {
  let pty: string | undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) throw new CliUsageError(`unexpected argument "${arg}" (see --help)`);
    const eq = arg.indexOf('=');
    const name = (eq >= 0 ? arg.slice(2, eq) : arg.slice(2)).replaceAll('-', '_');
    let value: string | undefined = eq >= 0 ? arg.slice(eq + 1) : args[i + 1];
    if (eq < 0) i++;
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new CliUsageError(`--${name} needs a value`);
    if (name === 'pty') pty = value;
    else if (!SIMULATOR_OPTION_NAMES.includes(name)) {
      throw new CliUsageError(`unknown option --${name} (known: pty, ${SIMULATOR_OPTION_NAMES.join(', ')})`);
    } else params[name] = value;
  }
  if (pty === undefined || pty === '') throw new CliUsageError('--pty PATH is required');
  return { pty: resolve(pty), params };
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

async function run(args: string[]): Promise<number> {
  const { pty, params } = parseArgs(args);
  let options;
  try {
    options = parseSimulatorOptions(params);
  } catch (err) {
    throw new CliUsageError((err as Error).message);
  }
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

  let onSignal: (signal: string) => void = () => {};
  const reason = await new Promise<string>((done) => {
    onSignal = done;
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    socat.once('exit', () => done('socat exited'));
    port.once('close', () => done('the pseudo-terminal closed'));
  });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);

  printer.close();
  await new Promise<void>((done) => (port.isOpen ? port.close(() => done()) : done()));
  if (socat.exitCode === null && socat.signalCode === null) {
    socat.kill('SIGTERM');
    await new Promise<void>((done) => socat.once('exit', () => done()));
  }
  removeLink(pty);
  removeLink(simPath);
  const clean = reason === 'SIGINT' || reason === 'SIGTERM';
  if (clean) console.log(`virtual printer on ${pty} stopped`);
  else console.error(`printfarm simulate: stopped: ${reason}`);
  return clean ? 0 : 1;
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
