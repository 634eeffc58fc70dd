// `printfarm analytics rebuild`: recomputes the analytics roll-ups of a data directory's database, or of a PostgreSQL farm's, from its jobs.
import { parseArgs } from 'node:util';
import { rebuildAnalyticsRollups, type RebuildResult } from '../analytics/rollups-rebuild.js';
import { ConfigError, DATABASE_URL_VARIABLE, envVarFor, resolveStorageConfig } from '../config.js';
import { CliUsageError, type CliCommand } from './command.js';
import { openExistingPostgres } from './db-copy-ends.js';
import { withExistingDatabase } from './existing-database.js';

const USAGE = `Usage: printfarm analytics rebuild [--data-dir DIR | --database URL]

Recomputes the daily and hourly analytics roll-ups from the jobs in the database of DIR (or of the
PostgreSQL farm at URL), in one transaction (running servers keep answering meanwhile). The server keeps
them up to date by itself; rebuild after restoring jobs from elsewhere or editing the database by hand.

  --data-dir DIR   the server's data directory   ${envVarFor('data-dir')}   default ./data
  --database URL   a PostgreSQL farm, at this program's schema version   ${DATABASE_URL_VARIABLE}`;

export interface AnalyticsArgs {
  dataDir: string;
  /** A PostgreSQL farm; null: the data directory's SQLite database. */
  databaseUrl: string | null;
}

/** Where `analytics rebuild` works, checked before the database is touched. */
export function parseAnalyticsArgs(args: string[], environment: NodeJS.ProcessEnv = process.env): AnalyticsArgs {
  const [sub, ...rest] = args;
  if (sub !== 'rebuild') throw new CliUsageError(sub ? `unknown sub-command "${sub}" (only: rebuild)` : 'missing sub-command (only: rebuild)');
  let values: { 'data-dir'?: string; database?: string };
  try {
    ({ values } = parseArgs({ args: rest, options: { 'data-dir': { type: 'string' }, database: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new CliUsageError(`${(err as Error).message.split('\n')[0]} (see printfarm analytics --help)`);
  }
  try {
    const { dataDir, databaseUrl } = resolveStorageConfig({ 'data-dir': values['data-dir'], database: values.database, env: undefined }, environment);
    return { dataDir, databaseUrl };
  } catch (err) {
    if (err instanceof ConfigError) throw new CliUsageError(err.message);
    throw err;
  }
}

/** Rebuilds; refuses a data directory without a database (almost always a mistyped --data-dir), and a database holding no farm. */
export async function runAnalyticsRebuild(target: AnalyticsArgs | string): Promise<RebuildResult> {
  const where: AnalyticsArgs = typeof target === 'string' ? { dataDir: target, databaseUrl: null } : target;
  if (where.databaseUrl !== null) {
    const handle = await openExistingPostgres(where.databaseUrl, 'the database');
    try {
      return await rebuildAnalyticsRollups(handle.db);
    } finally {
      await handle.close();
    }
  }
  return withExistingDatabase(where.dataDir, new Date().toISOString(), (handle) => rebuildAnalyticsRollups(handle.db));
}

export const analyticsCommand: CliCommand = {
  name: 'analytics',
  usage: USAGE,
  async run(args) {
    const parsed = parseAnalyticsArgs(args);
    const started = Date.now();
    const r = await runAnalyticsRebuild(parsed);
    console.log(`Rebuilt the analytics roll-ups of ${r.jobs} jobs (${r.dayRows} day rows, ${r.hourRows} hour rows) in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    return 0;
  },
};
