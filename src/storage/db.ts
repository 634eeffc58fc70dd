// The database handle of either engine (SQLite embedded, PostgreSQL shared by several nodes); opens the one SQLite file (WAL, foreign keys, busy timeout), migrates it, and wraps it in kysely for typed queries.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { migrate } from './migrate.js';
import { migrations } from './migrations/index.js';
import type { Migration } from './migrations/migration.js';
import { betterSqliteNativeBinding } from '../native-addons.js';
import { SafeRollbackDialect } from './safe-rollback-dialect.js';

export type Db = Kysely<Database>;

/** What both engines offer: feature code uses `db` (kysely) only, so the same repositories serve both. */
interface HandleBase {
  db: Db;
  /** Versions migrated at this open (empty when already current). */
  migrated: number[];
  close(): Promise<void>;
}

export interface SqliteHandle extends HandleBase {
  engine: 'sqlite';
  /** The raw connection, for the storage, backup and SQLite CLI code only (file backups, PRAGMAs). */
  sqlite: BetterSqlite3.Database;
}

export interface PostgresHandle extends HandleBase {
  engine: 'postgres';
  /** The connection URL with any password removed, for log lines and messages. */
  location: string;
}

export type DbHandle = SqliteHandle | PostgresHandle;
export type DbEngine = DbHandle['engine'];

export const DATABASE_FILE = 'printfarm.sqlite';

export interface OpenOptions {
  /** The migrations to apply; the program's own list by default (tests add one that fails). */
  migrations?: readonly Migration[];
}

/** `file` is a path or ':memory:'. The directory is created if missing. */
export function openDatabase(file: string, nowIso: string = new Date().toISOString(), options: OpenOptions = {}): SqliteHandle {
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
  const nativeBinding = betterSqliteNativeBinding();
  const sqlite = new BetterSqlite3(file, nativeBinding ? { nativeBinding } : {});
  try {
    if (file !== ':memory:') sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('synchronous = NORMAL');
    const migrated = migrate(sqlite, options.migrations ?? migrations, nowIso);
    const db = new Kysely<Database>({ dialect: new SafeRollbackDialect(sqlite) });
    let closed = false;
    return {
      engine: 'sqlite',
      db,
      sqlite,
      migrated,
      async close() {
        if (closed) return;
        closed = true;
        // kysely's destroy closes the better-sqlite3 connection too; checkpoint first so the WAL file is folded in.
        if (file !== ':memory:') sqlite.pragma('wal_checkpoint(TRUNCATE)');
        await db.destroy();
      },
    };
  } catch (err) {
    sqlite.close();
    throw err;
  }
}
