// `printfarm keys create`: mints an API key offline (recovery, provisioning) straight into the data directory's database.
import { parseArgs } from 'node:util';
import { mintKeyOffline } from '../auth/bootstrap.js';
import { firstUnknownScope, KNOWN_SCOPES, parseScopeList } from '../auth/scopes.js';
import { systemClock, type Clock } from '../clock.js';
import { ConfigError, DATABASE_URL_VARIABLE, envVarFor, resolveStorageConfig } from '../config.js';
import { CliUsageError, type CliCommand } from './command.js';
import { withExistingDatabase } from './existing-database.js';
import type { DbHandle } from '../storage/db.js';
import { openPostgres } from '../storage/open-postgres.js';

const USAGE = `Usage: printfarm keys create --name NAME --scopes SCOPE[,SCOPE...] [--data-dir DIR | --database URL] [--env ENV]

Mints an API key directly in the database of DIR, without a running server (for example when
the admin key is lost). The key is printed once on standard output; only its hash is stored.

  --name NAME      what the key is for (1 to 100 characters)
  --scopes LIST    comma-separated, e.g. admin:* or printers:read,jobs:*
                   known: ${KNOWN_SCOPES.join(', ')}
  --data-dir DIR   the server's data directory   ${envVarFor('data-dir')}   default ./data
  --database URL   the farm's PostgreSQL database instead   ${DATABASE_URL_VARIABLE}
  --env ENV        live, test or dev: must match the server's --env   ${envVarFor('env')}   default live`;

const OPTIONS = {
  name: { type: 'string' },
  scopes: { type: 'string' },
  'data-dir': { type: 'string' },
  database: { type: 'string' },
  env: { type: 'string' },
} as const;

export interface KeysCreateArgs {
  name: string;
  scopes: string[];
  dataDir: string;
  /** The farm's PostgreSQL database (--database / PRINTFARM_DATABASE_URL), or null: the data directory's SQLite file. */
  databaseUrl: string | null;
  env: 'live' | 'test' | 'dev';
}

/** Parses and checks everything before the database is touched, so a typo never leaves a half-made key. */
export function parseKeysCreateArgs(args: string[], environment: NodeJS.ProcessEnv = process.env): KeysCreateArgs {
  let values: Partial<Record<keyof typeof OPTIONS, string>>;
  try {
    ({ values } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new CliUsageError(`${(err as Error).message.split('\n')[0]} (see printfarm keys --help)`);
  }
  const name = values.name?.trim();
  if (!name) throw new CliUsageError('--name is required (what the key is for)');
  if (name.length > 100) throw new CliUsageError('--name must be at most 100 characters long');
  if (values.scopes === undefined) throw new CliUsageError('--scopes is required, e.g. --scopes admin:*');
  const scopes = parseScopeList(values.scopes);
  if (scopes.length === 0) throw new CliUsageError('--scopes must name at least one scope');
  const unknown = firstUnknownScope(scopes);
  if (unknown) throw new CliUsageError(`unknown scope "${unknown.scope}"; known: ${KNOWN_SCOPES.join(', ')}`);
  try {
    const config = resolveStorageConfig({ 'data-dir': values['data-dir'], env: values.env, database: values.database }, environment);
    return { name, scopes, dataDir: config.dataDir, databaseUrl: config.databaseUrl, env: config.env };
  } catch (err) {
    if (err instanceof ConfigError) throw new CliUsageError(err.message);
    throw err;
  }
}

/** Mints the key; refuses a data directory without a database, which is almost always a mistyped --data-dir. */
export async function runKeysCreate(parsed: KeysCreateArgs, clock: Clock = systemClock): Promise<string> {
  const mint = async (handle: DbHandle): Promise<string> =>
    (await mintKeyOffline({ db: handle.db, clock, env: parsed.env }, { name: parsed.name, scopes: parsed.scopes })).key;
  const nowIso = new Date(clock.now()).toISOString();
  if (parsed.databaseUrl === null) return withExistingDatabase(parsed.dataDir, nowIso, mint);
  // A PostgreSQL farm: the key goes into the shared database (every node accepts it), never into a stray SQLite file.
  const handle = await openPostgres(parsed.databaseUrl, nowIso);
  try {
    return await mint(handle);
  } finally {
    await handle.close();
  }
}

export const keysCommand: CliCommand = {
  name: 'keys',
  usage: USAGE,
  async run(args) {
    const [sub, ...rest] = args;
    if (sub !== 'create') throw new CliUsageError(sub ? `unknown sub-command "${sub}" (only: create)` : 'missing sub-command (only: create)');
    const parsed = parseKeysCreateArgs(rest);
    const key = await runKeysCreate(parsed);
    console.error(`Created a ${parsed.env} API key "${parsed.name}" with scopes ${parsed.scopes.join(', ')}. It is shown only this once:`);
    console.log(key);
    return 0;
  },
};
