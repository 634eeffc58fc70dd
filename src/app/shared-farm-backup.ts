// Backups of a farm on PostgreSQL, composed from this program's parts: the node's secret key (checked against the
// database's), and the store the files' content lives in (the database's chunks, or the shared --files-dir).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createDatabaseCopyBackup, type DatabaseCopyBackupResult } from '../backup/database-copy-backup.js';
import type { BackupRequest } from '../backup/create-backup.js';
import type { ContentStore } from '../files/content-store.js';
import { DatabaseFileStore } from '../files/database-file-store.js';
import { FileStore } from '../files/file-store.js';
import type { FileTarget } from '../files/files-into-database.js';
import { SECRET_KEY_ENV, SECRET_KEY_FILE, secretBoxFromEnv } from '../printers/secret-box.js';
import type { DbHandle } from '../storage/db.js';

/**
 * The text of this node's key, as its key file holds it: PRINTFARM_SECRET_KEY when set, else DATA_DIR/secret.key (never
 * created here: a new key could open nothing). The database's check value must match it, or the archive would carry a
 * key its sealed credentials cannot be opened with.
 */
export async function farmSecretKeyText(db: DbHandle['db'], dataDir: string, envValue: string | undefined = process.env[SECRET_KEY_ENV]): Promise<string> {
  let text: string;
  let from: string;
  if (envValue !== undefined && envValue !== '') {
    text = envValue.trim() + '\n';
    from = SECRET_KEY_ENV;
  } else {
    const file = path.join(dataDir, SECRET_KEY_FILE);
    if (!existsSync(file)) throw new Error(`no secret key: set ${SECRET_KEY_ENV} (the one the nodes are started with) or give the --data-dir of a node that has ${SECRET_KEY_FILE}`);
    text = readFileSync(file, 'utf8');
    from = file;
  }
  const box = secretBoxFromEnv(text);
  const row = await db.selectFrom('database_identity').select('secret_key_check').where('id', '=', 1).executeTakeFirst();
  if (row && row.secret_key_check !== box.identityCheck()) {
    throw new Error(`the secret key of ${from} is not the one this database's printer credentials are sealed with: use the key the nodes are started with`);
  }
  return text;
}

/** Where a farm on the database keeps the files' content: the shared directory when the nodes use --files-dir, else the database. */
export function farmFileStore(db: DbHandle['db'], filesDir: string | null, scratch: string): ContentStore & FileTarget {
  return filesDir ? new FileStore(scratch, filesDir) : new DatabaseFileStore(db, scratch, false);
}

export interface SharedFarmBackupRequest {
  handle: DbHandle;
  dataDir: string;
  filesDir: string | null;
  toFile: string;
  withFiles: boolean;
  reason: BackupRequest['reason'];
  nowMs: number;
  secretKeyEnv?: string | undefined;
}

export async function backupSharedFarm(req: SharedFarmBackupRequest): Promise<DatabaseCopyBackupResult> {
  const text = await farmSecretKeyText(req.handle.db, req.dataDir, 'secretKeyEnv' in req ? req.secretKeyEnv : process.env[SECRET_KEY_ENV]);
  return createDatabaseCopyBackup({
    handle: req.handle,
    secretKey: { path: SECRET_KEY_FILE, text },
    openFiles: (scratch) => farmFileStore(req.handle.db, req.filesDir, scratch),
    toFile: req.toFile,
    withFiles: req.withFiles,
    reason: req.reason,
    nowMs: req.nowMs,
  });
}
