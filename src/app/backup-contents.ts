// What a backup of a data directory carries besides the database: the secret key and the file store (minus uploads in
// progress and the local copies of content kept in the database, which the database itself carries).
import type { BackupContents } from '../backup/create-backup.js';
import { CACHE_DIR } from '../files/database-file-store.js';
import { FILES_DIR, TMP_DIR } from '../files/file-store.js';
import { SECRET_KEY_FILE } from '../printers/secret-box.js';
import { migrations } from '../storage/migrations/index.js';

/** Without secret.key the printer credentials sealed in the database cannot be opened, so every backup carries it. */
export const BACKUP_KEY_FILES: readonly string[] = [SECRET_KEY_FILE];

/** The newest schema version this program knows: a backup of a newer one is refused by restore. */
export const KNOWN_SCHEMA_VERSION = migrations.length;

export function backupContents(dataDir: string): BackupContents {
  return { dataDir, keyFiles: BACKUP_KEY_FILES, filesDir: FILES_DIR, transientDirs: [TMP_DIR, CACHE_DIR] };
}
