// After an unclean stop: SQLite's quick_check of the database file, and the newest backup in DATA_DIR/backups/ that verifies.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { betterSqliteNativeBinding } from '../native-addons.js';
import { listBackups } from './backup-folder.js';
import { isGoodBackup } from './restore-backup.js';

/**
 * The problems PRAGMA quick_check reports (empty: the file is sound). A file SQLite cannot even read as a database
 * counts as one problem, not as an exception.
 */
export function quickCheck(file: string): string[] {
  const nativeBinding = betterSqliteNativeBinding();
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new BetterSqlite3(file, { fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
    const rows = db.pragma('quick_check') as Array<{ quick_check: string }>;
    return rows.map((r) => r.quick_check).filter((r) => r !== 'ok');
  } catch (err) {
    return [(err as Error).message];
  } finally {
    db?.close();
  }
}

/** The newest archive of DATA_DIR/backups/ that passes restore's verification, or null when none does. */
export async function latestGoodBackup(dataDir: string, knownSchemaVersion: number): Promise<string | null> {
  const backups = await listBackups(dataDir);
  if (backups.length === 0) return null;
  // Scratch space outside the data directory: its disk may be the one that failed.
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'printfarm-verify-'));
  try {
    for (const b of backups) if (await isGoodBackup(b.file, scratch, knownSchemaVersion)) return b.file;
    return null;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
