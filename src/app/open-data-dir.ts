// Opens a data directory's database the safe way: quick_check after an unclean stop, a backup before migrations, a rollback hint if one fails.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { latestGoodBackup, quickCheck } from '../backup/database-health.js';
import { backupBeforeMigration } from '../backup/pre-migration-backup.js';
import type { Logger } from '../logger.js';
import { DATABASE_FILE, openDatabase, type SqliteHandle } from '../storage/db.js';
import { MigrationFailedError } from '../storage/migrate.js';
import type { Migration } from '../storage/migrations/migration.js';
import { migrations as allMigrations } from '../storage/migrations/index.js';
import { backupContents } from './backup-contents.js';

/** The database cannot be used as it is; the message (one paragraph) says what to do. */
export class DataDirDatabaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirDatabaseError';
  }
}

export interface OpenDataDirOptions {
  dataDir: string;
  nowMs: number;
  logger: Logger;
  /** The last process on this directory ended without releasing its lock (storage/data-dir-lock.ts). */
  uncleanStop: boolean;
  /** The program's migrations by default (tests add one that fails). */
  migrations?: readonly Migration[];
}

const restoreCommand = (backup: string, dataDir: string): string => `printfarm restore ${backup} --data-dir ${dataDir} --force`;

export async function openDataDirDatabase(o: OpenDataDirOptions): Promise<SqliteHandle> {
  const file = path.join(o.dataDir, DATABASE_FILE);
  const migrations = o.migrations ?? allMigrations;
  if (o.uncleanStop && existsSync(file)) {
    o.logger.warn('the last run on this data directory did not stop cleanly: checking the database (PRAGMA quick_check)', { file });
    const problems = quickCheck(file);
    if (problems.length > 0) {
      const good = await latestGoodBackup(o.dataDir, migrations.length);
      const way = good
        ? `the latest good backup is ${good}; stop here and restore it with: ${restoreCommand(good, o.dataDir)}`
        : `no good backup was found in ${path.join(o.dataDir, 'backups')}; restore one taken with \`printfarm backup\` (printfarm restore FILE --data-dir ${o.dataDir} --force)`;
      o.logger.error('the database is damaged; refusing to start', { file, problems: problems.slice(0, 5), ...(good ? { restore_command: restoreCommand(good, o.dataDir) } : {}) });
      throw new DataDirDatabaseError(`the database ${file} is damaged (PRAGMA quick_check: ${problems.slice(0, 3).join('; ')}): ${way}`);
    }
    o.logger.info('database quick_check passed after the unclean stop', { file });
  }

  const backup = await backupBeforeMigration(file, backupContents(o.dataDir), migrations.length, o.nowMs);
  if (backup) o.logger.info('backed up the database before migrating it', { backup });
  try {
    return openDatabase(file, new Date(o.nowMs).toISOString(), { migrations });
  } catch (err) {
    if (!(err instanceof MigrationFailedError)) throw err;
    const rollback = backup
      ? `run the previous printfarm version on it, or go back to the copy taken just before with: ${restoreCommand(backup, o.dataDir)}`
      : 'run the previous printfarm version on it';
    o.logger.error('a schema migration failed; the database was left as it was', {
      error: err.message,
      schema_version: err.fromVersion,
      ...(backup ? { backup, restore_command: restoreCommand(backup, o.dataDir) } : {}),
    });
    throw new DataDirDatabaseError(`${err.message}: ${rollback}`);
  }
}
