// Server configuration from flags and PRINTFARM_* environment variables, validated once at start (bad values stop the start).
import os from 'node:os';
import path from 'node:path';
import type { LogLevel } from './logger.js';
import { MqttUrlError, parseMqttUrl, type MqttTarget } from './homeassistant/mqtt-target.js';

export type RunEnvironment = 'live' | 'test' | 'dev';

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  /**
   * A postgres:// URL (--database / PRINTFARM_DATABASE_URL): several appliances share that PostgreSQL database. Null:
   * the embedded SQLite file in the data directory.
   */
  databaseUrl: string | null;
  env: RunEnvironment;
  /** PRINTFARM_LOG_LEVEL (no flag). */
  logLevel: LogLevel;
  /** PRINTFARM_TRUST_PROXY=1 (no flag): client addresses come from X-Forwarded-For. */
  trustProxy: boolean;
  /** Multicast DNS: network printer discovery and this server's announcement; off with --no-mdns or PRINTFARM_MDNS=0. */
  mdns: boolean;
  /**
   * Worker threads the printer sessions are spread over (--workers / PRINTFARM_WORKERS); 0 keeps them on the main
   * thread with HTTP, the database and the scheduler.
   */
  workers: number;
  /** --node-name / PRINTFARM_NODE_NAME: what people read for this appliance in GET /v1/nodes (default: the host name). */
  nodeName?: string;
  /** --node-address / PRINTFARM_NODE_ADDRESS: the base URL other nodes reach this one at (default: first LAN IPv4 and the port). */
  nodeAddress?: string;
  /**
   * --files-dir / PRINTFARM_FILES_DIR: G-code files in a directory every node mounts (absolute); absent: the database
   * on PostgreSQL, the data directory on SQLite.
   */
  filesDir?: string;
  /** --mqtt / PRINTFARM_MQTT: the broker the farm publishes to for Home Assistant (docs/home-assistant.md); absent: none. */
  mqtt?: MqttTarget;
  /** --mqtt-ca / PRINTFARM_MQTT_CA: PEM file of the CA that signed an mqtts broker's certificate (absolute). */
  mqttCa?: string;
}

/** The most worker threads --workers accepts: more than the cores only adds switching. */
export const MAX_WORKERS = 64;

/** One fewer than the cores (the main thread keeps one), at least one. */
export const defaultWorkers = (): number => Math.max(1, (os.availableParallelism?.() ?? os.cpus().length) - 1);

export const CONFIG_DEFAULTS: ServerConfig = {
  host: '0.0.0.0',
  port: 8080,
  dataDir: './data',
  databaseUrl: null,
  env: 'live',
  logLevel: 'info',
  trustProxy: false,
  mdns: true,
  workers: defaultWorkers(),
};

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const ENVIRONMENTS: readonly RunEnvironment[] = ['live', 'test', 'dev'];
const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/** The environment variable that stands for a flag: --data-dir → PRINTFARM_DATA_DIR. */
export const envVarFor = (flag: string): string => `PRINTFARM_${flag.replace(/-/g, '_').toUpperCase()}`;

type Flag = 'host' | 'port' | 'data-dir' | 'env' | 'workers' | 'database' | 'files-dir' | 'node-name' | 'node-address' | 'mqtt' | 'mqtt-ca';

/** The variable of --database says what it holds (a URL), unlike the other flags' PRINTFARM_<FLAG>. */
export const DATABASE_URL_VARIABLE = 'PRINTFARM_DATABASE_URL';
/** The valued flags as typed, and the switch --no-mdns (true when given). */
export type ConfigFlags = Partial<Record<Flag, string>> & { 'no-mdns'?: boolean };

/** One setting as the user typed it, and where: the flag or the variable, so an error names what was really written. */
interface Typed {
  text: string;
  origin: string;
}

/** Flags win over environment variables; an empty variable counts as unset (`PRINTFARM_PORT=` in an env file). */
function typed(name: string, flags: ConfigFlags, environment: NodeJS.ProcessEnv): Typed | undefined {
  const fromFlag = flags[name as Flag] as string | undefined;
  if (fromFlag !== undefined) return { text: fromFlag, origin: `--${name}` };
  const variable = name === 'database' ? DATABASE_URL_VARIABLE : envVarFor(name);
  const fromEnv = environment[variable];
  return fromEnv === undefined || fromEnv === '' ? undefined : { text: fromEnv, origin: variable };
}

/** The one wording of every refusal: `invalid <what was typed> "<value>": <what is expected>`. */
const invalid = (t: Typed, expected: string): ConfigError => new ConfigError(`invalid ${t.origin} ${JSON.stringify(t.text)}: ${expected}`);

function oneOf<T extends string>(t: Typed | undefined, allowed: readonly T[], fallback: T): T {
  if (t === undefined) return fallback;
  if (!allowed.includes(t.text as T)) throw invalid(t, `expected one of ${allowed.join(', ')}`);
  return t.text as T;
}

/** The settings `printfarm keys create` shares with the server: where the database is and which keys it mints. */
export function resolveStorageConfig(
  flags: Pick<ConfigFlags, 'data-dir' | 'env' | 'database'>,
  environment: NodeJS.ProcessEnv = process.env,
): Pick<ServerConfig, 'dataDir' | 'env' | 'databaseUrl'> {
  const dataDir = typed('data-dir', flags, environment);
  if (dataDir !== undefined && dataDir.text.trim() === '') throw invalid(dataDir, 'must not be empty');
  const env = oneOf(typed('env', flags, environment), ENVIRONMENTS, CONFIG_DEFAULTS.env);
  const database = typed('database', flags, environment);
  if (database !== undefined && !/^postgres(ql)?:\/\/\S+$/i.test(database.text)) {
    throw invalid(database, 'expected a PostgreSQL URL postgres://user@host:port/database (leave it out for the SQLite file in the data directory)');
  }
  return { dataDir: path.resolve(dataDir?.text ?? CONFIG_DEFAULTS.dataDir), databaseUrl: database?.text ?? null, env };
}

/**
 * Every setting of `printfarm serve`, each checked: flags win over environment variables, which win over defaults.
 * `flags` holds raw strings as typed (undefined when absent).
 */
export function resolveServerConfig(flags: ConfigFlags, environment: NodeJS.ProcessEnv = process.env): ServerConfig {
  const hostText = typed('host', flags, environment);
  if (hostText !== undefined && !/^[A-Za-z0-9.:\-\[\]]+$/.test(hostText.text)) {
    throw invalid(hostText, 'expected an IP address or host name');
  }

  const portText = typed('port', flags, environment);
  if (portText !== undefined && (!/^\d+$/.test(portText.text) || Number(portText.text) > 65535)) {
    throw invalid(portText, 'expected a whole number from 0 to 65535');
  }

  const workersText = typed('workers', flags, environment);
  if (workersText !== undefined && (!/^\d{1,3}$/.test(workersText.text) || Number(workersText.text) > MAX_WORKERS)) {
    throw invalid(workersText, `expected a whole number from 0 (everything on the main thread) to ${MAX_WORKERS}`);
  }

  const nodeName = typed('node-name', flags, environment);
  if (nodeName !== undefined && (nodeName.text.trim() === '' || nodeName.text.length > 100)) throw invalid(nodeName, 'expected a name of 1 to 100 characters');
  const nodeAddress = typed('node-address', flags, environment);
  if (nodeAddress !== undefined && !/^https?:\/\/[^/\s]+\/?$/.test(nodeAddress.text)) {
    throw invalid(nodeAddress, 'expected the base URL other nodes reach this one at, like http://192.168.1.20:8080');
  }

  const mqtt = mqttSettings(flags, environment);
  const storage = resolveStorageConfig(flags, environment);
  const filesDir = typed('files-dir', flags, environment);
  if (filesDir !== undefined && filesDir.text.trim() === '') throw invalid(filesDir, 'must not be empty');
  const logLevel = oneOf(typed('log-level', {}, environment), LOG_LEVELS, CONFIG_DEFAULTS.logLevel);
  const trustProxy = typed('trust-proxy', {}, environment);
  if (trustProxy !== undefined && trustProxy.text !== '1' && trustProxy.text !== '0') {
    throw invalid(trustProxy, 'expected 1 (behind a reverse proxy) or 0');
  }
  const mdns = typed('mdns', {}, environment);
  if (mdns !== undefined && mdns.text !== '1' && mdns.text !== '0') {
    throw invalid(mdns, 'expected 1 (mDNS: discover network printers, announce this server) or 0');
  }

  return {
    host: hostText?.text ?? CONFIG_DEFAULTS.host,
    port: portText === undefined ? CONFIG_DEFAULTS.port : Number(portText.text),
    ...storage,
    ...(filesDir ? { filesDir: path.resolve(filesDir.text) } : {}),
    logLevel,
    trustProxy: trustProxy?.text === '1',
    // The flag turns it off whatever the variable says: a flag wins over its variable.
    mdns: flags['no-mdns'] === true ? false : mdns === undefined ? CONFIG_DEFAULTS.mdns : mdns.text === '1',
    workers: workersText === undefined ? CONFIG_DEFAULTS.workers : Number(workersText.text),
    ...(nodeName ? { nodeName: nodeName.text.trim() } : {}),
    ...(nodeAddress ? { nodeAddress: nodeAddress.text.replace(/\/$/, '') } : {}),
    ...mqtt,
  };
}

/** --mqtt (the broker URL, its password included) and --mqtt-ca; the CA without a broker is a mistake worth saying. */
function mqttSettings(flags: ConfigFlags, environment: NodeJS.ProcessEnv): Pick<ServerConfig, 'mqtt' | 'mqttCa'> {
  const url = typed('mqtt', flags, environment);
  const ca = typed('mqtt-ca', flags, environment);
  if (ca !== undefined && ca.text.trim() === '') throw invalid(ca, 'must not be empty');
  if (url === undefined) {
    if (ca !== undefined) throw invalid(ca, 'goes with --mqtt mqtts://…');
    return {};
  }
  let mqtt: MqttTarget;
  try {
    mqtt = parseMqttUrl(url.text);
  } catch (err) {
    if (err instanceof MqttUrlError) throw new ConfigError(`invalid ${url.origin}: ${err.message}`);
    throw err;
  }
  return { mqtt, ...(ca ? { mqttCa: path.resolve(ca.text) } : {}) };
}
