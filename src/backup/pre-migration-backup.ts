// Before migrations run on an existing database: a full backup archive into DATA_DIR/backups/, the way back if the upgrade goes wrong.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import BetterSqlite3 from 'better-sqlite3';
import { betterSqliteNativeBinding } from '../native-addons.js';
import { createBackup, type BackupContents } from './create-backup.js';
import { backupsFolder, preMigrationBackupPath, pruneBackups } from './backup-folder.js';

/** Kept when the database does not say (older than the backup settings, or no organization yet): a week, as nightly. */
export const DEFAULT_PRE_MIGRATION_KEEP = 7;

/** The organization's backup_keep read from a database not migrated yet, or the default when it has none. */
function storedBackupKeep(sqlite: BetterSqlite3.Database): number {
  const columns = sqlite.prepare("SELECT name FROM pragma_table_info('organization')").pluck().all() as string[];
  if (!columns.includes('backup_keep')) return DEFAULT_PRE_MIGRATION_KEEP;
  const row = sqlite.prepare('SELECT backup_keep AS keep FROM organization LIMIT 1').get() as { keep: number } | undefined;
  return row?.keep ?? DEFAULT_PRE_MIGRATION_KEEP;
}

/** The schema version of an existing database file, without migrating it (0: not initialised yet). */
export function storedSchemaVersion(file: string): number {
  const nativeBinding = betterSqliteNativeBinding();
  const sqlite = new BetterSqlite3(file, { fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
  try {
    const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
    if (!table) return 0;
    return (sqlite.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
  } finally {
    sqlite.close();
  }
}

/**
 * When `file` exists and is older than `targetVersion`, backs it up (with its key files, not the file store) and
 * returns the archive's path, keeping the newest `backup_keep` pre-migration archives as nightly ones are kept; null when there is nothing to migrate (a new or current database, or a newer one,
 * which the migrator refuses anyway). A backup that cannot be written throws: no migration without a way back.
 */
export async function backupBeforeMigration(file: string, contents: BackupContents, targetVersion: number, nowMs: number): Promise<string | null> {
  if (!existsSync(file)) return null;
  const version = storedSchemaVersion(file);
  if (version === 0 || version >= targetVersion) return null;
  await mkdir(backupsFolder(contents.dataDir), { recursive: true, mode: 0o700 });
  const nativeBinding = betterSqliteNativeBinding();
  const sqlite = new BetterSqlite3(file, { fileMustExist: true, timeout: 5000, ...(nativeBinding ? { nativeBinding } : {}) });
  try {
    const r = await createBackup({
      sqlite,
      contents,
      toFile: preMigrationBackupPath(contents.dataDir, version, nowMs),
      withFiles: false,
      reason: 'pre-migration',
      nowMs,
    });
    // Only once the new one is complete: the one just written is the newest, so it always stays.
    await pruneBackups(contents.dataDir, 'pre-migration', storedBackupKeep(sqlite));
    return r.file;
  } finally {
    sqlite.close();
  }
}
