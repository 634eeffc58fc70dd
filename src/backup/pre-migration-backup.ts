// Before migrations run on an existing database: a full backup archive into DATA_DIR/backups/, the way back if the upgrade goes wrong.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import BetterSqlite3 from 'better-sqlite3';
import { betterSqliteNativeBinding } from '../native-addons.js';
import { createBackup, type BackupContents } from './create-backup.js';
import { backupsFolder, preMigrationBackupPath } from './backup-folder.js';

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
 * returns the archive's path; null when there is nothing to migrate (a new or current database, or a newer one,
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
    return r.file;
  } finally {
    sqlite.close();
  }
}
