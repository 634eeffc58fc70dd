// Takes one backup archive of a data directory: SQLite's online backup of the live database, the key files, optionally the file store.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import { betterSqliteNativeBinding } from '../native-addons.js';
import { DATABASE_FILE } from '../storage/db.js';
import { currentSchemaVersion } from '../storage/migrate.js';
import { VERSION } from '../version.js';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, encodeManifest, MANIFEST_PATH, type BackupManifest } from './backup-manifest.js';
import { writeTarGz, type MemberSource } from './tar-archive.js';

/** What of a data directory goes into a backup besides the database (the composition root names them). */
export interface BackupContents {
  dataDir: string;
  /** Files beside the database that the data cannot be used without (the secret key), relative to dataDir. */
  keyFiles: readonly string[];
  /** The file store folder, relative to dataDir, and its sub-folders that hold only transient files. */
  filesDir: string;
  transientDirs: readonly string[];
}

export interface BackupRequest {
  /** A connection to the database to copy: the server's own, or a second one opened while the server runs. */
  sqlite: BetterSqlite3.Database;
  contents: BackupContents;
  toFile: string;
  withFiles: boolean;
  reason: 'manual' | 'nightly' | 'pre-migration';
  nowMs: number;
  /**
   * Pages copied per step of SQLite's backup. Small steps keep the server's own event loop free (its writes go into the
   * copy as they happen); a separate process copies all at once, since each write of the server would restart it.
   */
  pagesPerStep?: number;
}

export interface BackupResult {
  file: string;
  bytes: number;
  schemaVersion: number;
  members: number;
  databaseBytes: number;
  ms: number;
}

export async function listFiles(root: string, rel: string, skip: ReadonlySet<string>): Promise<string[]> {
  const out: string[] = [];
  let entries;
  try {
    entries = await readdir(path.join(root, rel), { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const child = `${rel}/${e.name}`;
    if (e.isDirectory() && !skip.has(child)) out.push(...(await listFiles(root, child, skip)));
    else if (e.isFile()) out.push(child);
  }
  return out;
}

/** Copies the live database into `file` with SQLite's backup API: a consistent snapshot whatever writes meanwhile. */
async function snapshotDatabase(sqlite: BetterSqlite3.Database, file: string, pagesPerStep: number): Promise<number> {
  await sqlite.backup(file, { progress: () => pagesPerStep });
  return finishDatabaseCopy(file);
}

/** Makes a database copy one self-contained file (no WAL) and checks it; returns its schema version. */
export function finishDatabaseCopy(file: string): number {
  const nativeBinding = betterSqliteNativeBinding();
  const copy = new BetterSqlite3(file, { fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
  try {
    // A single file needs no WAL beside it; the restored server switches WAL on again when it opens it.
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`the database copy fails SQLite's quick_check (${String(check)}): the live database may be damaged`);
    return currentSchemaVersion(copy);
  } finally {
    copy.close();
  }
}

/** What goes into an archive, gathered into `work` (a private folder removed afterwards); the database member first. */
export interface ArchiveFill {
  schemaVersion: number;
  members: MemberSource[];
}

/** The archive's name and manifest facts, as every backup request carries them. */
export type ArchiveRequest = Pick<BackupRequest, 'toFile' | 'withFiles' | 'reason' | 'nowMs'>;

/** Writes the archive to `toFile` (replacing one there only once the new one is complete). */
export async function createBackup(req: BackupRequest): Promise<BackupResult> {
  const { contents } = req;
  return writeBackupArchive(req, async (work) => {
    const dbCopy = path.join(work, DATABASE_FILE);
    const schemaVersion = await snapshotDatabase(req.sqlite, dbCopy, req.pagesPerStep ?? 0x7fffffff);
    const members: MemberSource[] = [{ path: DATABASE_FILE, file: dbCopy }];
    for (const key of contents.keyFiles) {
      const file = path.join(contents.dataDir, key);
      if (existsSync(file)) members.push({ path: key, file });
    }
    if (req.withFiles) {
      const skip = new Set(contents.transientDirs.map((d) => `${contents.filesDir}/${d}`));
      for (const rel of await listFiles(contents.dataDir, contents.filesDir, skip)) members.push({ path: rel, file: path.join(contents.dataDir, rel) });
    }
    return { schemaVersion, members };
  });
}

/** The archive of any source: the members `fill` gathers, then the manifest; written as FILE.partial-* and renamed. */
export async function writeBackupArchive(req: ArchiveRequest, fill: (work: string) => Promise<ArchiveFill>): Promise<BackupResult> {
  const started = performance.now();
  const target = path.resolve(req.toFile);
  if (!existsSync(path.dirname(target))) throw new Error(`the folder of ${target} does not exist`);
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const work = `${target}.work-${tag}`;
  const partial = `${target}.partial-${tag}`;
  await mkdir(work, { mode: 0o700 });
  try {
    const { schemaVersion, members } = await fill(work);
    const written = await writeTarGz(partial, members, (done) => {
      const manifest: BackupManifest = {
        format: BACKUP_FORMAT,
        format_version: BACKUP_FORMAT_VERSION,
        app_version: VERSION,
        schema_version: schemaVersion,
        created_at: new Date(req.nowMs).toISOString(),
        reason: req.reason,
        with_files: req.withFiles,
        members: done.map((m) => ({ path: m.path, size: m.size, sha256: m.sha256 })),
      };
      return { path: MANIFEST_PATH, bytes: encodeManifest(manifest) };
    });
    await rename(partial, target);
    return {
      file: target,
      bytes: (await stat(target)).size,
      schemaVersion,
      members: written.length,
      databaseBytes: written[0]!.size,
      ms: performance.now() - started,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
    await rm(partial, { force: true });
  }
}
