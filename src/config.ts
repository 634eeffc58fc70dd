// Server configuration from flags and PRINTFARM_* environment variables, validated once at start (bad values stop the start).
import path from 'node:path';

export type RunEnvironment = 'live' | 'test' | 'dev';

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  env: RunEnvironment;
}

export const CONFIG_DEFAULTS: ServerConfig = { host: '0.0.0.0', port: 8080, dataDir: './data', env: 'live' };

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const ENVIRONMENTS: readonly RunEnvironment[] = ['live', 'test', 'dev'];

/** The environment variable that stands for a flag: --data-dir → PRINTFARM_DATA_DIR. */
export const envVarFor = (flag: string): string => `PRINTFARM_${flag.replace(/-/g, '_').toUpperCase()}`;

/**
 * Flags win over environment variables, which win over defaults.
 * `flags` holds raw strings as typed (undefined when absent).
 */
export function resolveServerConfig(
  flags: Partial<Record<'host' | 'port' | 'data-dir' | 'env', string>>,
  environment: NodeJS.ProcessEnv = process.env,
): ServerConfig {
  const pick = (flag: keyof typeof flags): string | undefined => {
    const fromFlag = flags[flag];
    if (fromFlag !== undefined) return fromFlag;
    const fromEnv = environment[envVarFor(flag)];
    return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
  };

  const host = pick('host') ?? CONFIG_DEFAULTS.host;
  if (!/^[A-Za-z0-9.:\-\[\]]+$/.test(host)) throw new ConfigError(`invalid --host "${host}": expected an IP address or host name`);

  const portText = pick('port');
  let port = CONFIG_DEFAULTS.port;
  if (portText !== undefined) {
    if (!/^\d+$/.test(portText) || Number(portText) > 65535) {
      throw new ConfigError(`invalid --port "${portText}": expected a whole number from 0 to 65535`);
    }
    port = Number(portText);
  }

  const dataDirText = pick('data-dir') ?? CONFIG_DEFAULTS.dataDir;
  if (dataDirText.trim() === '') throw new ConfigError('invalid --data-dir: must not be empty');

  const envText = pick('env') ?? CONFIG_DEFAULTS.env;
  if (!ENVIRONMENTS.includes(envText as RunEnvironment)) {
    throw new ConfigError(`invalid --env "${envText}": expected one of ${ENVIRONMENTS.join(', ')}`);
  }

  return { host, port, dataDir: path.resolve(dataDirText), env: envText as RunEnvironment };
}
