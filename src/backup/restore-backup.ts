// Verifies a backup archive (checksums, SQLite integrity, schema version) and installs it into a data directory.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import { betterSqliteNativeBinding } from '../native-addons.js';
import { LOCK_FILE, lockDataDir } from '../storage/data-dir-lock.js';
import { DATABASE_FILE } from '../storage/db.js';
import { currentSchemaVersion } from '../storage/migrate.js';
import { BackupInvalidError, compareMembers, decodeManifest, MANIFEST_PATH, type BackupManifest } from './backup-manifest.js';
import { extractTarGz } from './tar-archive.js';

export class RestoreRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefusedError';
  }
}

/** Runs SQLite's full integrity check and reads the schema version of a database file that must exist. */
function checkDatabase(file: string): { problems: string[]; schemaVersion: number } {
  const nativeBinding = betterSqliteNativeBinding();
  const db = new BetterSqlite3(file, { fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
  try {
    const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    const problems = rows.map((r) => r.integrity_check).filter((r) => r !== 'ok');
    return { problems, schemaVersion: problems.length === 0 ? currentSchemaVersion(db) : -1 };
  } finally {
    db.close();
  }
}

/**
 * Extracts `file` into the empty directory `stagingDir` and checks it: every member against the manifest, the
 * database's PRAGMA integrity_check, and its schema version (the manifest's, and not newer than `knownSchemaVersion`).
 * Throws BackupInvalidError naming what is wrong.
 */
export async function verifyBackup(file: string, stagingDir: string, knownSchemaVersion: number): Promise<BackupManifest> {
  let found;
  try {
    found = await extractTarGz(file, stagingDir);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT' && e.path === file) throw new BackupInvalidError(`no such file: ${file}`);
    throw new BackupInvalidError(`${file} is not a readable printfarm backup: ${e.message}`);
  }
  if (!found.some((m) => m.path === MANIFEST_PATH)) throw new BackupInvalidError(`${file} has no ${MANIFEST_PATH}: not a printfarm backup`);
  const manifest = decodeManifest(await readFile(path.join(stagingDir, MANIFEST_PATH)));
  const problems = compareMembers(manifest, found.filter((m) => m.path !== MANIFEST_PATH));
  if (problems.length > 0) throw new BackupInvalidError(`${file} is damaged: ${problems.slice(0, 5).join('; ')}`);
  if (!manifest.members.some((m) => m.path === DATABASE_FILE)) throw new BackupInvalidError(`${file} holds no ${DATABASE_FILE}`);
  if (manifest.schema_version > knownSchemaVersion) {
    throw new BackupInvalidError(
      `${file} holds schema version ${manifest.schema_version}, newer than this program knows (${knownSchemaVersion}): ` +
        `restore it with printfarm ${manifest.app_version} or newer`,
    );
  }
  const db = checkDatabase(path.join(stagingDir, DATABASE_FILE));
  if (db.problems.length > 0) throw new BackupInvalidError(`the database in ${file} fails PRAGMA integrity_check: ${db.problems.slice(0, 3).join('; ')}`);
  if (db.schemaVersion !== manifest.schema_version) {
    throw new BackupInvalidError(`the database in ${file} is at schema version ${db.schemaVersion}, the manifest says ${manifest.schema_version}`);
  }
  return manifest;
}

/** Checks a backup without installing it (the start's search for the latest good backup). */
export async function isGoodBackup(file: string, scratchParent: string, knownSchemaVersion: number): Promise<boolean> {
  const scratch = path.join(scratchParent, `.verify-${randomBytes(4).toString('hex')}`);
  await mkdir(scratch, { recursive: true });
  try {
    await verifyBackup(file, scratch, knownSchemaVersion);
    return true;
  } catch {
    return false;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export interface RestoreRequest {
  file: string;
  dataDir: string;
  /** Replace what a non-empty data directory holds. */
  force: boolean;
  knownSchemaVersion: number;
  /** Files a complete backup carries besides the database (the secret key): their absence is reported. */
  keyFiles: readonly string[];
}

export interface RestoreResult {
  manifest: BackupManifest;
  /** Printers handed to this box (their node's id cleared: the server restored here takes them at its start). */
  printersReleased: number;
  /** What the operator should know: a key file the archive lacked. */
  warnings: string[];
  ms: number;
}

/**
 * A farm restored into a data directory is driven by this one box, whatever nodes drove its printers before (the
 * boxes of a PostgreSQL farm, or the same box under a node id the new directory does not have): each printer's node
 * is cleared, and the server started here takes them, as a farm upgraded from one box. Older schemas have no owner.
 */
function releasePrinters(databaseFile: string): number {
  const nativeBinding = betterSqliteNativeBinding();
  const db = new BetterSqlite3(databaseFile, { fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
  try {
    const columns = db.prepare("SELECT name FROM pragma_table_info('printers')").pluck().all() as string[];
    if (!columns.includes('node_id')) return 0;
    return db.prepare('UPDATE printers SET node_id = NULL WHERE node_id IS NOT NULL').run().changes;
  } finally {
    db.close();
  }
}

/** What an empty data directory may still hold: the lock file (ours, or of a start that failed) and a mount point's lost+found. */
const NOT_CONTENT = new Set([LOCK_FILE, 'lost+found']);

/** SQLite's companions of the database file: a stale WAL from the farm being replaced would be applied to the restored one. */
const SQLITE_COMPANIONS = ['-wal', '-shm', '-journal'];

/**
 * Restores `file` into `dataDir`: refuses a non-empty directory unless `force`, and a directory a server is running on
 * (its lock). Everything is extracted and verified in a staging folder inside dataDir first, so a bad archive changes
 * nothing; then the members are renamed into place.
 */
export async function restoreBackup(req: RestoreRequest): Promise<RestoreResult> {
  const started = performance.now();
  await mkdir(req.dataDir, { recursive: true });
  const present = (await readdir(req.dataDir)).filter((f) => !NOT_CONTENT.has(f));
  if (present.length > 0 && !req.force) {
    throw new RestoreRefusedError(
      `${req.dataDir} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}): ` +
        'restore into an empty directory, or add --force to replace the farm stored there',
    );
  }
  let lock;
  try {
    lock = lockDataDir(req.dataDir);
  } catch (err) {
    throw new RestoreRefusedError(`${(err as Error).message}; stop the server before restoring`);
  }
  const staging = path.join(req.dataDir, `.restore-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(staging, { mode: 0o700 });
    const manifest = await verifyBackup(req.file, staging, req.knownSchemaVersion);
    const database = path.join(req.dataDir, DATABASE_FILE);
    for (const suffix of ['', ...SQLITE_COMPANIONS]) await rm(database + suffix, { force: true });
    for (const member of manifest.members) {
      const target = path.join(req.dataDir, ...member.path.split('/'));
      await mkdir(path.dirname(target), { recursive: true });
      await rename(path.join(staging, ...member.path.split('/')), target);
    }
    const printersReleased = releasePrinters(database);
    const listed = new Set(manifest.members.map((m) => m.path));
    const warnings = req.keyFiles
      .filter((k) => !listed.has(k))
      .map((k) => `the backup holds no ${k}: secrets sealed with it (printer api_key values) cannot be opened${existsSync(path.join(req.dataDir, k)) ? `; the ${k} already in ${req.dataDir} was kept` : ''}`);
    return { manifest, printersReleased, warnings, ms: performance.now() - started };
  } finally {
    await rm(staging, { recursive: true, force: true });
    lock.release();
  }
}
