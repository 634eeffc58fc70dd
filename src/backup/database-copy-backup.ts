// A backup of a farm on PostgreSQL, in the same archive format as a SQLite one: the database copied (and verified
// table by table) into the archive's SQLite file, the secret key, and with files the content from wherever it lives.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ContentStore } from '../files/content-store.js';
import { FILES_DIR, FileStore, TMP_DIR } from '../files/file-store.js';
import { copyStoredFiles } from '../files/files-into-database.js';
import { copyDatabase } from '../storage/db-copy.js';
import { DATABASE_FILE, openDatabase, type DbHandle } from '../storage/db.js';
import { finishDatabaseCopy, listFiles, writeBackupArchive, type BackupRequest, type BackupResult } from './create-backup.js';
import type { MemberSource } from './tar-archive.js';

export interface DatabaseCopyBackupRequest {
  /** The farm's database (PostgreSQL; any engine works), read in one snapshot. */
  handle: DbHandle;
  /** The key member: its name in the archive and the key file's text (base64 of the key, as in DATA_DIR/secret.key). */
  secretKey: { path: string; text: string };
  /**
   * Where the files' content lives (the database's chunks or a shared --files-dir), opened on a scratch folder it may
   * write its local copies into; only called with `withFiles`.
   */
  openFiles(scratch: string): ContentStore;
  toFile: string;
  withFiles: boolean;
  reason: BackupRequest['reason'];
  nowMs: number;
}

export interface DatabaseCopyBackupResult extends BackupResult {
  /** Ids of stored files whose content was not found (their rows are in the archive, their bytes are not). */
  missingFiles: string[];
}

/** Content chunks stay out of the archive's database: with files they become files/ members, as in a SQLite farm's archive. */
const CHUNK_TABLE = 'file_chunks';

export async function createDatabaseCopyBackup(req: DatabaseCopyBackupRequest): Promise<DatabaseCopyBackupResult> {
  let missingFiles: string[] = [];
  const result = await writeBackupArchive(req, async (work) => {
    const dbCopy = path.join(work, DATABASE_FILE);
    const target = openDatabase(dbCopy, new Date(req.nowMs).toISOString());
    try {
      const copy = await copyDatabase(req.handle, target, { skipRows: [CHUNK_TABLE] });
      const bad = copy.checks.filter((c) => !c.ok).map((c) => `${c.table} (${c.sourceRows} rows, copied ${c.targetRows})`);
      if (bad.length > 0) throw new Error(`the copy of the database does not match it: ${bad.join(', ')}`);
      if (req.withFiles) {
        // The files the copied rows name (the archive's, not a later state), laid out as a data directory's store
        // (work/files/aa/bb/…), each checked against its SHA-256 on the way.
        const scratch = path.join(work, 'scratch');
        await mkdir(scratch, { recursive: true });
        const report = await copyStoredFiles(target.db, req.openFiles(scratch), new FileStore(work));
        missingFiles = report.missing;
      }
    } finally {
      await target.close();
    }
    const schemaVersion = finishDatabaseCopy(dbCopy);
    const members: MemberSource[] = [{ path: DATABASE_FILE, file: dbCopy }];
    const keyFile = path.join(work, 'key', req.secretKey.path);
    await mkdir(path.dirname(keyFile), { recursive: true, mode: 0o700 });
    await writeFile(keyFile, req.secretKey.text, { mode: 0o600 });
    members.push({ path: req.secretKey.path, file: keyFile });
    if (req.withFiles) {
      for (const rel of await listFiles(work, FILES_DIR, new Set([`${FILES_DIR}/${TMP_DIR}`]))) members.push({ path: rel, file: path.join(work, rel) });
    }
    return { schemaVersion, members };
  });
  return { ...result, missingFiles };
}
