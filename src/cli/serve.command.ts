// `printfarm serve`: parses flags, starts the server, prints the first admin key once, and shuts down cleanly on SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import { CONFIG_DEFAULTS, ConfigError, DATABASE_URL_VARIABLE, envVarFor, resolveServerConfig, type ServerConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { startServer, StartupError, type RunningServer } from '../server.js';
import { DEMO_MAX_PRINTERS, seedDemoFarm, startDemoStandIns } from '../demo/demo-farm.js';
import type { NetworkStandIn } from '../simulator/network-standins.js';
import { VERSION } from '../version.js';
import { CliUsageError, type CliCommand } from './command.js';

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  'files-dir': { type: 'string' },
  database: { type: 'string' },
  env: { type: 'string' },
  workers: { type: 'string' },
  'node-name': { type: 'string' },
  'node-address': { type: 'string' },
  demo: { type: 'string' },
  'demo-network': { type: 'boolean' },
  'no-mdns': { type: 'boolean' },
  mqtt: { type: 'string' },
  'mqtt-ca': { type: 'string' },
} as const;

/**
 * A stop signal ends the process within this time whatever happens: a supervisor (systemd, a test, a shell script
 * killing `npm start`) must be able to count on the port and the database being free soon after SIGTERM.
 */
export const STOP_DEADLINE_MS = 4_500;
/**
 * Ctrl-C under `npm start` delivers SIGINT twice: once from the terminal to the whole process group and once more
 * forwarded by npm. A repeat this soon is the same request, not an operator asking to skip the clean shutdown.
 */
const REPEATED_SIGNAL_MS = 1_000;

const USAGE = `Usage: printfarm serve [flags]

Runs the REST API (/v1), the dashboard (/) and /healthz in one process.

Flags (each also as an environment variable; a flag wins over the variable):
  --host HOST      address to listen on         ${envVarFor('host').padEnd(20)} default ${CONFIG_DEFAULTS.host}
  --port PORT      TCP port, 0 picks a free one ${envVarFor('port').padEnd(20)} default ${CONFIG_DEFAULTS.port}
  --data-dir DIR   database and key file        ${envVarFor('data-dir').padEnd(20)} default ${CONFIG_DEFAULTS.dataDir}
  --database URL   postgres://user@host:port/db ${DATABASE_URL_VARIABLE.padEnd(20)} default: SQLite in the data dir
                   several appliances share one farm through one PostgreSQL database
  --files-dir DIR  G-code files in a directory   ${envVarFor('files-dir').padEnd(20)} default: in the database on
                   every node mounts (several                            PostgreSQL, DIR/files on SQLite
                   boxes, one farm)
  --env ENV        live, test or dev            ${envVarFor('env').padEnd(20)} default ${CONFIG_DEFAULTS.env}
  --workers N      threads the printer sessions ${envVarFor('workers').padEnd(20)} default ${CONFIG_DEFAULTS.workers} (cores - 1)
                   are spread over; 0 keeps them on the main thread
  --node-name NAME this appliance's name among  ${envVarFor('node-name').padEnd(20)} default the host name
                   the nodes sharing a database (GET /v1/nodes)
  --node-address URL  the base URL other nodes  ${envVarFor('node-address').padEnd(20)} default http://<first LAN IPv4>:PORT
                   forward printer actions to
  --demo N         on a farm with no printers yet, add N virtual printers (1 to ${DEMO_MAX_PRINTERS}) with different
                   materials and one queued print each, to see the farm work
  --demo-network   with --demo: also a Moonraker, an OctoPrint and a PrusaLink printer, each a stand-in of that
                   API served by this process on 127.0.0.1 (ports PORT+1, PORT+2, PORT+3; ephemeral with --port 0)
  --mqtt URL       publish the farm to Home     ${envVarFor('mqtt').padEnd(20)} default: none
                   Assistant through this MQTT broker: mqtt://user:password@host[:port] (1883), or mqtts://…
                   (TLS, 8883); see docs/home-assistant.md
  --mqtt-ca FILE   PEM of the CA that signed    ${envVarFor('mqtt-ca').padEnd(20)} default: the system's CAs
                   the mqtts broker's certificate
  --no-mdns        no multicast DNS: do not look for network printers (GET /v1/printers/discover lists serial
                   ports only) and do not announce this server on the LAN; same as ${envVarFor('mdns')}=0

Only as environment variables:
  PRINTFARM_LOG_LEVEL    debug, info, warn, error or silent               default ${CONFIG_DEFAULTS.logLevel}
  PRINTFARM_TRUST_PROXY  1 behind a reverse proxy (client address from
                         the last X-Forwarded-For entry)                  default 0
  PRINTFARM_MDNS         0 to stop looking for network printers by mDNS   default 1

One server per data directory: a second start on DIR in use is refused (the lock is
released by the OS when the holding process ends, even on a crash).

The first start on an empty data directory creates an admin:* API key, prints it once
and writes it to DIR/initial-admin-key.txt (mode 0600).
SIGINT or SIGTERM: stop accepting, finish requests in flight (up to 3 s), close the database;
the process ends within 5 s of the signal.`;

/** parseArgs' own messages are long and talk about positionals; say what the operator typed wrong instead. */
function usageError(err: unknown): CliUsageError {
  const e = err as NodeJS.ErrnoException;
  const unknown = /'(-{1,2}[^']*)'/.exec(e.message ?? '')?.[1];
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) return new CliUsageError(`unknown flag ${unknown} (see printfarm serve --help)`);
  if (e.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    return new CliUsageError(`unexpected argument: ${e.message.split('.')[0]?.replace(/^Unexpected argument /, '')} (serve takes only flags)`);
  }
  return new CliUsageError(`${(e.message ?? String(err)).split('\n')[0]} (see printfarm serve --help)`);
}

type BooleanFlag = 'no-mdns' | 'demo-network';

function parseFlags(args: string[]): Partial<Record<Exclude<keyof typeof OPTIONS, BooleanFlag>, string>> & Partial<Record<BooleanFlag, boolean>> {
  try {
    return parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw usageError(err);
  }
}

/** `--demo N [--demo-network]`: how many virtual printers to add to an empty farm (0: none), and the network stand-ins. */
export function parseDemoFlag(args: string[]): { printers: number; network: boolean } {
  const flags = parseFlags(args);
  const text = flags.demo;
  if (text === undefined) {
    if (flags['demo-network']) throw new CliUsageError('--demo-network goes with --demo N');
    return { printers: 0, network: false };
  }
  if (!/^\d{1,3}$/.test(text) || Number(text) < 1 || Number(text) > DEMO_MAX_PRINTERS) {
    throw new CliUsageError(`invalid --demo "${text.slice(0, 20)}": expected a number of printers from 1 to ${DEMO_MAX_PRINTERS}`);
  }
  return { printers: Number(text), network: flags['demo-network'] === true };
}

export function parseServeArgs(args: string[], environment: NodeJS.ProcessEnv = process.env): ServerConfig {
  const { demo: _demo, 'demo-network': _network, ...values } = parseFlags(args);
  try {
    return resolveServerConfig(values, environment);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliUsageError(err.message);
    throw err;
  }
}

function printInitialKey(running: RunningServer): void {
  if (!running.initialAdminKey) return;
  const rule = '='.repeat(72);
  console.log(
    [
      rule,
      'First start: created the owner user and an admin:* API key. It is shown only this once:',
      '',
      `    ${running.initialAdminKey}`,
      '',
      `It is also in ${running.initialAdminKeyFile} (mode 0600).`,
      'Keep it safe, then delete that file. Lost it? `printfarm keys create` mints a new one offline.',
      rule,
    ].join('\n'),
  );
}

/**
 * Resolves with the signal that asked to stop; a later signal while stopping ends the process at once
 * (a repeat within REPEATED_SIGNAL_MS is taken as the same request).
 */
function listenForStopSignals(onForce: () => void): { signal: Promise<NodeJS.Signals>; dispose(): void } {
  let askedAt: number | undefined;
  let resolveSignal!: (signal: NodeJS.Signals) => void;
  const signal = new Promise<NodeJS.Signals>((resolve) => (resolveSignal = resolve));
  const handler = (sig: NodeJS.Signals): void => {
    const now = performance.now();
    if (askedAt !== undefined) {
      if (now - askedAt >= REPEATED_SIGNAL_MS) onForce();
      return;
    }
    askedAt = now;
    resolveSignal(sig);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

export const serveCommand: CliCommand = {
  name: 'serve',
  usage: USAGE,
  async run(args) {
    const config = parseServeArgs(args);
    const demo = parseDemoFlag(args);
    const logger = createLogger(config.logLevel);
    // Listen for signals before anything is printed: a supervisor may send SIGTERM the moment it sees the start line.
    const stop = listenForStopSignals(() => {
      console.error('printfarm serve: second stop signal, exiting without waiting');
      process.exit(1);
    });
    let running: RunningServer;
    try {
      running = await startServer(config, { logger });
    } catch (err) {
      stop.dispose();
      if (err instanceof StartupError) throw new Error(err.message);
      throw err;
    }
    printInitialKey(running);
    console.log(`printfarm ${VERSION} listening on ${running.boundUrl} (env ${config.env}, data dir ${config.dataDir})`);
    let standIns: NetworkStandIn[] = [];
    if (demo.printers > 0) {
      if (demo.network) {
        standIns = await startDemoStandIns(config.port);
        for (const s of standIns) console.log(`printfarm: demo ${s.kind} stand-in on ${s.connectionUrl}`);
      }
      const seeded = await seedDemoFarm(running.deps, demo.printers, standIns);
      if (seeded.printers > 0) console.log(`printfarm: demo farm: ${seeded.printers} printers, ${seeded.jobs} prints queued`);
      else console.log('printfarm: --demo ignored: the farm already has printers');
    }

    const signal = await stop.signal;
    let closed = false;
    // Unref'd: a clean stop ends the process long before; it fires only when close hangs or a stray handle lingers.
    setTimeout(() => {
      console.error(
        closed
          ? 'printfarm serve: something kept the process alive after shutdown; exiting'
          : `printfarm serve: shutdown did not finish within ${STOP_DEADLINE_MS} ms; exiting`,
      );
      process.exit(closed ? 0 : 1);
    }, STOP_DEADLINE_MS).unref();
    console.log(`printfarm: ${signal} received, shutting down (${running.inFlight()} requests in flight)`);
    await running.close();
    for (const s of standIns) await s.close();
    closed = true;
    console.log('printfarm: stopped, database closed');
    return 0;
  },
};
