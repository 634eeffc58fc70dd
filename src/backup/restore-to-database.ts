// Restores a backup archive (of either engine) onto a PostgreSQL database: verified in a staging folder exactly as a
// restore into a data directory, then its database copied in with the verified copy and its files into the farm's store.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FileStore } from '../files/file-store.js';
import { copyStoredFiles, type FileTarget, type FilesIntoDatabaseReport } from '../files/files-into-database.js';
import { copyDatabase, TargetNotEmptyError } from '../storage/db-copy.js';
import { DATABASE_FILE, openDatabase, type DbHandle } from '../storage/db.js';
import type { TableCheck } from '../storage/table-checksums.js';
import type { BackupManifest } from './backup-manifest.js';
import { RestoreRefusedError, verifyBackup } from './restore-backup.js';

export interface DatabaseRestoreRequest {
  file: string;
  /** The farm's database; every node on it must be stopped. */
  target: DbHandle;
  /** A folder the archive is extracted into (a private sub-folder, removed afterwards). */
  stagingParent: string;
  /** Replace the farm data the target holds. */
  force: boolean;
  knownSchemaVersion: number;
  /** The key member's name in the archive (secret.key). */
  keyFile: string;
  /** Where the archive's files go (the database's chunks, or a shared --files-dir), with a scratch folder for it. */
  openFiles(scratch: string): FileTarget;
  nowMs: number;
}

export interface DatabaseRestoreResult {
  manifest: BackupManifest;
  checks: TableCheck[];
  files: FilesIntoDatabaseReport;
  /** The archive's key file text (the key every node must be started with), null when the archive has none. */
  secretKey: string | null;
  ms: number;
}

/** A node that beat within this long is taken to be running: restoring under it would mix two farms. */
export const RUNNING_NODE_MS = 60_000;

async function refuseRunningNodes(target: DbHandle, nowMs: number): Promise<void> {
  const since = new Date(nowMs - RUNNING_NODE_MS).toISOString();
  const running = await target.db.selectFrom('nodes').select(['name', 'address']).where('state', '=', 'online').where('last_seen_at', '>', since).execute();
  if (running.length > 0) {
    throw new RestoreRefusedError(
      `nodes are running on the target database (${running.map((n) => n.name + (n.address ? ` at ${n.address}` : '')).join(', ')}): stop every node before restoring`,
    );
  }
}

export async function restoreToDatabase(req: DatabaseRestoreRequest): Promise<DatabaseRestoreResult> {
  const started = performance.now();
  await refuseRunningNodes(req.target, req.nowMs);
  const staging = await mkdtemp(path.join(req.stagingParent, '.restore-'));
  try {
    const manifest = await verifyBackup(req.file, staging, req.knownSchemaVersion);
    // An older archive is migrated here, in the staging copy, and reaches the target at this program's schema.
    const source = openDatabase(path.join(staging, DATABASE_FILE), new Date(req.nowMs).toISOString());
    let checks: TableCheck[];
    try {
      const copy = await copyDatabase(source, req.target, { force: req.force });
      checks = copy.checks;
      if (!copy.ok) {
        const bad = checks.filter((c) => !c.ok).map((c) => c.table);
        throw new Error(`the restored database does not match the backup's (${bad.join(', ')}): do not use it; restore again`);
      }
    } catch (err) {
      if (err instanceof TargetNotEmptyError) throw new RestoreRefusedError(`${err.message.replace('pass --force', 'add --force')}`);
      throw err;
    } finally {
      await source.close();
    }
    // The archive's files/ folder is a data directory's store: each file goes into the farm's store, hash-checked.
    const files = await copyStoredFiles(req.target.db, new FileStore(staging), req.openFiles(staging));
    const keyPath = path.join(staging, req.keyFile);
    const secretKey = existsSync(keyPath) ? await readFile(keyPath, 'utf8') : null;
    return { manifest, checks, files, secretKey, ms: performance.now() - started };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
