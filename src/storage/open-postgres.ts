// Opens a PostgreSQL database shared by several nodes: a pg pool whose own type parsers read BIGINT and NUMERIC as
// numbers (so rows look as they do on SQLite), migrated under an advisory lock, wrapped in kysely.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import type { PostgresHandle } from './db.js';
import { migratePostgres } from './migrate-postgres.js';
import { migrations as allMigrations } from './migrations/index.js';
import type { Migration } from './migrations/migration.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * INTEGER columns are BIGINT here and SUM/COUNT answer int8 or numeric, which pg hands over as strings by default.
 * Every value printfarm keeps fits a double (ms timestamps, counters, bytes), so they are parsed to numbers. Set on the
 * pool, not on pg's global table: another pool in the same process (a test's admin client) keeps pg's defaults.
 */
const numberTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (text: string) => (text === null ? null : Number(text));
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** The URL without its password, for logs and messages. */
export function redactPostgresUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/i, '$1:***@');
}

export interface OpenPostgresOptions {
  migrations?: readonly Migration[];
  /** Connections of the pool (default 10). */
  poolSize?: number;
}

export async function openPostgres(url: string, nowIso: string = new Date().toISOString(), options: OpenPostgresOptions = {}): Promise<PostgresHandle> {
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, types: numberTypes });
  // An idle connection the server drops (restart, network) must not crash the process: the pool replaces it.
  pool.on('error', () => undefined);
  let migrated: number[];
  try {
    const client = await pool.connect();
    try {
      migrated = await migratePostgres(client, options.migrations ?? allMigrations, nowIso);
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end();
    throw err;
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  let closed = false;
  return {
    engine: 'postgres',
    db,
    location: redactPostgresUrl(url),
    migrated,
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy(); // ends the pool
    },
  };
}
