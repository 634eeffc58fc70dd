// `printfarm restore --database URL` composed: the archive onto the PostgreSQL farm, its files into the farm's store,
// its secret key into the data directory for the nodes to be started with.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { restoreToDatabase, type DatabaseRestoreResult } from '../backup/restore-to-database.js';
import { SECRET_KEY_FILE } from '../printers/secret-box.js';
import { openPostgres } from '../storage/open-postgres.js';
import { KNOWN_SCHEMA_VERSION } from './backup-contents.js';
import { farmFileStore } from './shared-farm-backup.js';

export interface SharedFarmRestoreRequest {
  file: string;
  url: string;
  /** Holds the staging folder while restoring, and receives the archive's secret.key (an existing one is kept). */
  dataDir: string;
  filesDir: string | null;
  force: boolean;
  nowMs: number;
}

export interface SharedFarmRestoreResult extends DatabaseRestoreResult {
  warnings: string[];
  /** What to do next (how to start the nodes). */
  advice: string[];
}

export async function restoreSharedFarm(req: SharedFarmRestoreRequest): Promise<SharedFarmRestoreResult> {
  mkdirSync(req.dataDir, { recursive: true });
  // A new database is migrated to this program's schema first; the archive's rows then replace the migration's own.
  const target = await openPostgres(req.url, new Date(req.nowMs).toISOString(), { poolSize: 2 });
  let r: DatabaseRestoreResult;
  try {
    r = await restoreToDatabase({
      file: req.file,
      target,
      stagingParent: req.dataDir,
      force: req.force,
      knownSchemaVersion: KNOWN_SCHEMA_VERSION,
      keyFile: SECRET_KEY_FILE,
      openFiles: (scratch) => farmFileStore(target.db, req.filesDir, scratch),
      nowMs: req.nowMs,
    });
  } finally {
    await target.close();
  }
  const warnings: string[] = [];
  const advice: string[] = [];
  if (r.files.missing.length > 0) warnings.push(`${r.files.missing.length} stored files are not in the backup (taken without --with-files?): their jobs cannot be printed again`);
  const keyFile = path.join(req.dataDir, SECRET_KEY_FILE);
  if (r.secretKey === null) {
    warnings.push(`the backup holds no ${SECRET_KEY_FILE}: secrets sealed with it (printer api_key values) cannot be opened`);
  } else if (!existsSync(keyFile)) {
    writeFileSync(keyFile, r.secretKey, { mode: 0o600, flag: 'wx' });
    advice.push(`The backup's secret key is in ${keyFile}: start every node with PRINTFARM_SECRET_KEY="$(cat ${keyFile})".`);
  } else if (readFileSync(keyFile, 'utf8').trim() !== r.secretKey.trim()) {
    // Kept (another farm's key may live there); the backup's goes beside it, for the nodes to be started with.
    const beside = `${keyFile}.from-backup`;
    writeFileSync(beside, r.secretKey, { mode: 0o600 });
    warnings.push(`${keyFile} differs from the backup's key and was kept; the backup's key is in ${beside}`);
    advice.push(`Start every node with PRINTFARM_SECRET_KEY="$(cat ${beside})": the restored printer credentials are sealed with it.`);
  } else {
    advice.push(`Start every node with PRINTFARM_SECRET_KEY="$(cat ${keyFile})" (the backup's key).`);
  }
  return { ...r, warnings, advice };
}
