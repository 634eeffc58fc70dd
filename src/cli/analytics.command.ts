// `printfarm analytics rebuild`: recomputes the analytics roll-ups of the data directory's database from its jobs.
import { parseArgs } from 'node:util';
import { rebuildAnalyticsRollups, type RebuildResult } from '../analytics/rollups-rebuild.js';
import { ConfigError, envVarFor, resolveStorageConfig } from '../config.js';
import { CliUsageError, type CliCommand } from './command.js';
import { withExistingDatabase } from './existing-database.js';

const USAGE = `Usage: printfarm analytics rebuild [--data-dir DIR]

Recomputes the daily and hourly analytics roll-ups from the jobs in the database of DIR, in one
transaction (a running server keeps answering meanwhile). The server keeps them up to date by itself;
rebuild after restoring jobs from elsewhere or editing the database by hand.

  --data-dir DIR   the server's data directory   ${envVarFor('data-dir')}   default ./data`;

/** The data directory of `analytics rebuild`, checked before the database is touched. */
export function parseAnalyticsArgs(args: string[], environment: NodeJS.ProcessEnv = process.env): { dataDir: string } {
  const [sub, ...rest] = args;
  if (sub !== 'rebuild') throw new CliUsageError(sub ? `unknown sub-command "${sub}" (only: rebuild)` : 'missing sub-command (only: rebuild)');
  let values: { 'data-dir'?: string };
  try {
    ({ values } = parseArgs({ args: rest, options: { 'data-dir': { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new CliUsageError(`${(err as Error).message.split('\n')[0]} (see printfarm analytics --help)`);
  }
  try {
    return { dataDir: resolveStorageConfig({ 'data-dir': values['data-dir'], env: undefined }, environment).dataDir };
  } catch (err) {
    if (err instanceof ConfigError) throw new CliUsageError(err.message);
    throw err;
  }
}

/** Rebuilds; refuses a data directory without a database (almost always a mistyped --data-dir). */
export function runAnalyticsRebuild(dataDir: string): Promise<RebuildResult> {
  return withExistingDatabase(dataDir, new Date().toISOString(), (handle) => rebuildAnalyticsRollups(handle.db));
}

export const analyticsCommand: CliCommand = {
  name: 'analytics',
  usage: USAGE,
  async run(args) {
    const { dataDir } = parseAnalyticsArgs(args);
    const started = Date.now();
    const r = await runAnalyticsRebuild(dataDir);
    console.log(`Rebuilt the analytics roll-ups of ${r.jobs} jobs (${r.dayRows} day rows, ${r.hourRows} hour rows) in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    return 0;
  },
};
