// Commands that work on the SQLite file of a data directory (backup, restore) refuse when the farm's database is PostgreSQL.
import { DATABASE_URL_VARIABLE } from '../config.js';
import { CliUsageError } from './command.js';

/** Throws a usage error naming pg_dump/pg_restore when PostgreSQL is configured (databaseUrl from resolveStorageConfig). */
export function refuseOnPostgres(command: 'backup' | 'restore', databaseUrl: string | null): void {
  if (databaseUrl === null) return;
  const instead = command === 'backup' ? 'back it up with pg_dump' : 'restore it with pg_restore (or psql for a plain dump)';
  throw new CliUsageError(
    `printfarm ${command} works on the SQLite file of a data directory, but ${DATABASE_URL_VARIABLE} selects a PostgreSQL ` +
      `database: ${instead} instead (the secret key is PRINTFARM_SECRET_KEY, keep it with the dump)`,
  );
}
