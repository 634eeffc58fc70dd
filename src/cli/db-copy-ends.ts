// Opens the two ends of `printfarm db copy`: a SQLite farm (its data directory locked, read from a private snapshot
// migrated to this program's schema) or a PostgreSQL database (checked to be at this program's schema first).
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { betterSqliteNativeBinding } from '../native-addons.js';
import { DataDirInUseError, lockDataDir, type DataDirLock } from '../storage/data-dir-lock.js';
import { DATABASE_FILE, openDatabase, type DbHandle, type PostgresHandle } from '../storage/db.js';
import { migrations } from '../storage/migrations/index.js';
import { isPostgresUrl, openPostgres, redactPostgresUrl } from '../storage/open-postgres.js';
import { CliUsageError } from './command.js';

export type Endpoint = { engine: 'sqlite'; file: string; dataDir: string } | { engine: 'postgres'; url: string };

/** `sqlite:PATH` (a data directory, or a file ending in .sqlite) or a postgres:// URL. */
export function parseEndpoint(flag: '--from' | '--to', text: string): Endpoint {
  if (isPostgresUrl(text)) return { engine: 'postgres', url: text };
  const m = /^sqlite:(.+)$/i.exec(text);
  if (!m) throw new CliUsageError(`${flag} must be sqlite:PATH (a data directory or a .sqlite file) or postgres://user@host:port/db, got "${text}"`);
  const p = path.resolve(m[1]!);
  const isFile = p.endsWith('.sqlite') || (existsSync(p) && statSync(p).isFile());
  return isFile ? { engine: 'sqlite', file: p, dataDir: path.dirname(p) } : { engine: 'sqlite', file: path.join(p, DATABASE_FILE), dataDir: p };
}

export function describeEndpoint(e: Endpoint): string {
  return e.engine === 'sqlite' ? `sqlite:${e.file}` : redactPostgresUrl(e.url);
}

export function sameEndpoint(a: Endpoint, b: Endpoint): boolean {
  if (a.engine === 'sqlite' && b.engine === 'sqlite') return a.file === b.file;
  if (a.engine === 'postgres' && b.engine === 'postgres') return a.url === b.url;
  return false;
}

export interface OpenEnd {
  handle: DbHandle;
  /** The data directory of a SQLite end (its files), null on PostgreSQL. */
  dataDir: string | null;
  close(): Promise<void>;
}

/** Holds the data directory's lock for the whole copy: no server may start on it (or write to it) meanwhile. */
function lockEnd(dataDir: string, which: 'source' | 'target', ignoreLock: boolean): DataDirLock | null {
  try {
    return lockDataDir(dataDir);
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) throw err;
    if (which === 'source' && ignoreLock) return null;
    const hint = which === 'source' ? ' (or pass --ignore-lock: the copy then reads one consistent snapshot, and writes made after it are not copied)' : '';
    throw new Error(`the ${which} data directory ${dataDir} is in use by another printfarm process (pid ${err.holderPid ?? 'unknown'}): stop that server first${hint}`);
  }
}

/** A consistent private copy of the source file (SQLite's online backup), checked and migrated: the original is never changed. */
async function snapshotSqlite(file: string, scratch: string): Promise<DbHandle> {
  const copy = path.join(scratch, 'source.sqlite');
  const nativeBinding = betterSqliteNativeBinding();
  try {
    const sqlite = new BetterSqlite3(file, { fileMustExist: true, timeout: 5000, ...(nativeBinding ? { nativeBinding } : {}) });
    try {
      await sqlite.backup(copy);
    } finally {
      sqlite.close();
    }
    const check = new BetterSqlite3(copy, nativeBinding ? { nativeBinding } : {});
    try {
      const problems = (check.pragma('quick_check') as Array<{ quick_check: string }>).map((r) => r.quick_check).filter((r) => r !== 'ok');
      if (problems.length > 0) throw new Error(`it is damaged (${problems.slice(0, 3).join('; ')})`);
      const hasSchema = check.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
      if (!hasSchema) throw new Error('it is a SQLite file but not a printfarm database (no schema_version table)');
    } finally {
      check.close();
    }
  } catch (err) {
    throw new Error(`cannot read the source ${file}: ${(err as Error).message}; nothing was copied`);
  }
  // An older schema is migrated in the snapshot only; a newer one is refused (SchemaTooNewError names the versions).
  return openDatabase(copy);
}

async function pgSchemaVersion(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ v: string | null }>(
      "SELECT CASE WHEN to_regclass('schema_version') IS NULL THEN NULL ELSE (SELECT MAX(version)::text FROM schema_version) END AS v",
    );
    return Number(r.rows[0]?.v ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * A farm's PostgreSQL database, opened only when it is at this program's schema (never migrated or initialised here:
 * an offline command must not change the schema under nodes of another version). `what` names it in the refusal.
 */
export async function openExistingPostgres(url: string, what: string): Promise<PostgresHandle> {
  const version = await pgSchemaVersion(url);
  if (version !== migrations.length) {
    throw new Error(
      `${what} ${redactPostgresUrl(url)} is at schema version ${version}, this program at ${migrations.length}: ` +
        (version === 0 ? 'it holds no printfarm farm' : 'start a node of this version on it once (it migrates), or use the version that wrote it'),
    );
  }
  return openPostgres(url, undefined, { poolSize: 2 });
}

/** The source: never written to. A SQLite one is read from a snapshot; a PostgreSQL one must be at this program's schema. */
export async function openSource(e: Endpoint, options: { ignoreLock: boolean }): Promise<OpenEnd> {
  if (e.engine === 'postgres') {
    const handle = await openExistingPostgres(e.url, 'the source');
    return { handle, dataDir: null, close: () => handle.close() };
  }
  if (!existsSync(e.file)) throw new Error(`no database at ${e.file}: check the path after sqlite:`);
  const lock = lockEnd(e.dataDir, 'source', options.ignoreLock);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'printfarm-db-copy-'));
  try {
    const handle = await snapshotSqlite(e.file, scratch);
    return {
      handle,
      dataDir: e.dataDir,
      async close() {
        await handle.close();
        rmSync(scratch, { recursive: true, force: true });
        lock?.release({ keepUncleanMark: lock.uncleanStop });
      },
    };
  } catch (err) {
    rmSync(scratch, { recursive: true, force: true });
    lock?.release({ keepUncleanMark: lock.uncleanStop });
    throw err;
  }
}

/** The target, migrated to this program's schema (a new SQLite file or PostgreSQL database is created empty). */
export async function openTarget(e: Endpoint): Promise<OpenEnd> {
  if (e.engine === 'postgres') {
    const handle = await openPostgres(e.url, undefined, { poolSize: 2 });
    return { handle, dataDir: null, close: () => handle.close() };
  }
  mkdirSync(e.dataDir, { recursive: true });
  const lock = lockEnd(e.dataDir, 'target', false);
  try {
    const handle = openDatabase(e.file);
    return {
      handle,
      dataDir: e.dataDir,
      async close() {
        await handle.close();
        lock?.release();
      },
    };
  } catch (err) {
    lock?.release();
    throw err;
  }
}
