// `printfarm simulate --pty PATH | --tcp PORT | --moonraker/--octoprint/--prusalink/--bambu PORT`: virtual printers behind a socat
// pseudo-terminal, raw TCP ports, or a network printer's own API, for any host to open.
import { resolve } from 'node:path';
import { parseSimulatorOptions, SIMULATOR_OPTION_NAMES, type SimulatorOptions } from '../simulator/simulator-options.js';
import { startPtyBridge, type PtyBridgeEnd } from '../simulator/pty-bridge.js';
import { startTcpBridge } from '../simulator/tcp-bridge.js';
import { DEFAULT_STANDIN_KEY, STANDIN_FAULTS, startNetworkStandIn } from '../simulator/network-standins.js';
import { NETWORK_KINDS, type NetworkKind } from '../printers/network-url.js';
import { CliUsageError, type CliCommand } from './command.js';

const usage = `Usage: printfarm simulate --pty PATH [--profile marlin] [--baud 250000] [--OPTION VALUE ...]
       printfarm simulate --tcp PORT [--count N] [--host 127.0.0.1] [--OPTION VALUE ...]
       printfarm simulate --moonraker PORT | --octoprint PORT | --prusalink PORT | --bambu PORT [--api-key KEY] [--fault NAME,...]
                          [--host 127.0.0.1] [--OPTION VALUE ...]

--pty PATH   a virtual printer behind a pseudo-terminal: a host (printfarm serve, or any other program) opens PATH as
             if it were /dev/ttyACM0. Each open powers a fresh printer on, as the DTR line resets a real board (a
             halt after M112 is gone); closing the port switches it off. Needs socat (apt-get install socat). PATH is
             removed on exit.
--tcp PORT   N virtual printers (--count, default 1) on ports PORT..PORT+N-1 (0: ephemeral ports), raw G-code as a
             ser2net or ESP3D bridge serves it; the host connects to tcp://HOST:PORT. One client a port; each
             connection powers a fresh printer on. Prints one line a printer:
             "virtual printer PROFILE listening on tcp://HOST:PORT".
--moonraker PORT, --octoprint PORT, --prusalink PORT
             a printer on the network: that API (HTTP and, for Moonraker and OctoPrint, its websocket) on PORT (0: an
             ephemeral port), backed by one virtual printer that prints the uploaded file itself. --api-key sets the
             credential it demands (Moonraker without one trusts every client; OctoPrint and PrusaLink default to
             "${DEFAULT_STANDIN_KEY}"). --fault switches faults on from the start: moonraker ${STANDIN_FAULTS.moonraker.join(', ')};
             octoprint ${STANDIN_FAULTS.octoprint.join(', ')}; prusalink ${STANDIN_FAULTS.prusalink.join(', ')}. PrusaLink
             takes the key as X-Api-Key (a wrong one is 403, as Prusa-Link answers), or "maker:password" for the firmware's
             HTTP Digest without qop (the password also works as X-Api-Key there). crash_recovery holds the next print in BUSY
             (recovery) once, for a moment. Prints "<kind> stand-in listening on <connection_url>".
--bambu PORT a Bambu Lab printer in LAN mode on 127.0.0.1: Mosquitto (TLS MQTT on PORT, user bblp, the --api-key as the
             access code) and vsftpd (implicit FTPS on a free port, named in the URL as ftp_port), both Debian's and
             started here with a generated self-signed certificate (its fingerprint is in the URL); needs root for
             vsftpd's logins. It prints plain G-code uploads (not the plates of a .gcode.3mf).
Runs until SIGINT/SIGTERM (exit 0).

Options (same names as the sim:// URL query; dashes or underscores):
  ${SIMULATOR_OPTION_NAMES.join(', ')}
e.g. printfarm simulate --pty /tmp/printer0 --profile prusa --speed 10 --error-rate 0.001
     printfarm simulate --tcp 2300 --count 4 --speed max`;

const MAX_COUNT = 1000;

type Target =
  | { kind: 'pty'; path: string }
  | { kind: 'tcp'; host: string; port: number; count: number }
  | { kind: 'network'; network: NetworkKind; host: string; port: number; apiKey: string | null; faults: string[] };

const OWN = ['pty', 'tcp', 'count', 'host', ...NETWORK_KINDS, 'api_key', 'fault'];

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
    if (OWN.includes(name)) {
      if (own.has(name)) throw new CliUsageError(`--${name} is given twice`);
      own.set(name, value);
    } else if (!SIMULATOR_OPTION_NAMES.includes(name)) {
      throw new CliUsageError(`unknown option --${name} (known: ${OWN.join(', ')}, ${SIMULATOR_OPTION_NAMES.join(', ')})`);
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
  const targets = ['pty', 'tcp', ...NETWORK_KINDS].filter((n) => own.has(n));
  if (targets.length !== 1) throw new CliUsageError('give exactly one of --pty PATH, --tcp PORT, --moonraker PORT, --octoprint PORT, --prusalink PORT or --bambu PORT');
  const network = NETWORK_KINDS.find((k) => own.has(k));
  if (network === undefined) {
    for (const n of ['api_key', 'fault']) if (own.has(n)) throw new CliUsageError(`--${n.replace('_', '-')} goes with a network printer (--moonraker, --octoprint, --prusalink, --bambu)`);
  } else {
    if (own.has('count')) throw new CliUsageError(`--count goes with --tcp, not --${network}`);
    const faults = (own.get('fault') ?? '').split(',').map((f) => f.trim()).filter((f) => f !== '');
    for (const f of faults) {
      if (!STANDIN_FAULTS[network].includes(f)) throw new CliUsageError(`unknown ${network} fault "${f}" (known: ${STANDIN_FAULTS[network].join(', ') || 'none'})`);
    }
    const host = own.get('host') ?? '127.0.0.1';
    if (host === '') throw new CliUsageError('--host needs an address');
    const apiKey = own.get('api_key') ?? null;
    if (apiKey === '') throw new CliUsageError('--api-key needs a value');
    return { target: { kind: 'network', network, host, port: intArg(network, own.get(network)!, 0, 65535), apiKey, faults }, options };
  }
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

async function runPty(pty: string, options: SimulatorOptions): Promise<number> {
  const bridge = await startPtyBridge({ path: pty, simulator: options, log: (line) => console.error(`printfarm simulate: ${line}`) });
  console.log(`virtual printer ${options.profile} listening on ${pty}`);
  let ended: PtyBridgeEnd | null = null;
  await untilStopped((done) => {
    void bridge.ended.then((end) => {
      ended = end;
      done(end.reason);
    });
  });
  await bridge.close();
  const end = ended as PtyBridgeEnd | null;
  if (end?.reason === 'unplugged') {
    console.log(`virtual printer on ${pty} unplugged after ${options.unplugAfterLines} lines (unplug_after_lines): stopped`);
    return 0;
  }
  if (end?.reason === 'failed') {
    console.error(`printfarm simulate: stopped: ${end.message}`);
    return 1;
  }
  console.log(`virtual printer on ${pty} stopped`);
  return 0;
}

async function runNetwork(target: Extract<Target, { kind: 'network' }>, options: SimulatorOptions): Promise<number> {
  const standIn = await startNetworkStandIn(target.network, { port: target.port, host: target.host, apiKey: target.apiKey, faults: target.faults, simulator: options });
  const key = target.apiKey ?? (target.network === 'moonraker' ? null : DEFAULT_STANDIN_KEY);
  console.log(`${target.network} stand-in listening on ${standIn.connectionUrl}${key ? ` (api_key ${key})` : ''}`);
  await untilStopped(() => {});
  await standIn.close();
  console.log(`${target.network} stand-in on ${standIn.connectionUrl} stopped`);
  return 0;
}

async function run(args: string[]): Promise<number> {
  const { target, options } = parseArgs(args);
  if (target.kind === 'network') return runNetwork(target, options);
  return target.kind === 'pty' ? runPty(target.path, options) : runTcp(target, options);
}

export const simulateCommand: CliCommand = {
  name: 'simulate',
  usage,
  run,
};
