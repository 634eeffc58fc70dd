// A fresh migrated database for a test: SQLite in memory (or a given file), or, when PRINTFARM_TEST_PG_URL holds the
// maintenance URL of a throw-away PostgreSQL cluster (npm run test:postgres), a new database on it, dropped on close.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase, type DbHandle, type SqliteHandle } from '../../src/storage/db.js';
import { openPostgres } from '../../src/storage/open-postgres.js';
import type { Migration } from '../../src/storage/migrations/migration.js';

export const TEST_PG_URL_VARIABLE = 'PRINTFARM_TEST_PG_URL';

/** The maintenance URL of the test cluster, or null: the tests run on SQLite. */
export function testPgUrl(): string | null {
  const url = process.env[TEST_PG_URL_VARIABLE];
  return url ? url : null;
}

/** The engine the tests of this run use. */
export const testEngine = (): 'sqlite' | 'postgres' => (testPgUrl() ? 'postgres' : 'sqlite');

/** For `test(name, { skip: sqliteOnly('why') }, …)`: a reason to skip on the PostgreSQL run, false on SQLite. */
export function sqliteOnly(why: string): string | false {
  return testPgUrl() ? `SQLite only: ${why}` : false;
}

/** The URL of database `name` on the cluster of `maintenanceUrl` (same host, user and options). */
export function pgDatabaseUrl(maintenanceUrl: string, name: string): string {
  const u = new URL(maintenanceUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

async function onMaintenance<T>(maintenanceUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: maintenanceUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Creates an empty database on the test cluster; returns its URL and how to drop it. */
export async function createPgTestDatabase(maintenanceUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `pf_test_${randomBytes(6).toString('hex')}`;
  await onMaintenance(maintenanceUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  return {
    url: pgDatabaseUrl(maintenanceUrl, name),
    drop: () => onMaintenance(maintenanceUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

export interface TestDatabaseOptions {
  /** A SQLite file instead of memory: the test is about the file (restart, backup), so it stays on SQLite. */
  file?: string;
  migrations?: readonly Migration[];
}

/** A migrated database of this run's engine; close() also drops a PostgreSQL one. */
export async function openTestDatabase(nowIso: string = new Date().toISOString(), options: TestDatabaseOptions = {}): Promise<DbHandle> {
  const maintenance = testPgUrl();
  if (!maintenance || options.file !== undefined) {
    return openDatabase(options.file ?? ':memory:', nowIso, options.migrations ? { migrations: options.migrations } : {});
  }
  const created = await createPgTestDatabase(maintenance);
  let handle: DbHandle;
  try {
    handle = await openPostgres(created.url, nowIso, { ...(options.migrations ? { migrations: options.migrations } : {}), poolSize: 5 });
  } catch (err) {
    await created.drop();
    throw err;
  }
  const close = handle.close.bind(handle);
  let closing: Promise<void> | undefined;
  handle.close = () => (closing ??= close().then(() => created.drop()));
  return handle;
}

/**
 * The raw SQLite connection of a handle, for a test that reads or writes the file directly (PRAGMAs, triggers,
 * planting a row kysely would refuse). On the PostgreSQL run such a test must skip (sqliteOnly) or use `handle.db`.
 */
export function sqliteOf(handle: DbHandle): SqliteHandle['sqlite'] {
  if (handle.engine !== 'sqlite') throw new Error('this test reads SQLite directly (handle.sqlite): skip it on PostgreSQL or go through handle.db');
  return handle.sqlite;
}

/**
 * Runs one SQL statement with `?` placeholders through kysely, on either engine (the statement must be portable):
 * what tests use to look at rows directly instead of `handle.sqlite.prepare(...)`.
 */
export async function dbRows<T = Record<string, unknown>>(handle: DbHandle, text: string, ...params: unknown[]): Promise<T[]> {
  const parts = text.split('?');
  if (parts.length !== params.length + 1) throw new Error(`dbRows: ${parts.length - 1} placeholders, ${params.length} values`);
  const strings = Object.assign([...parts], { raw: [...parts] }) as unknown as TemplateStringsArray;
  return (await sql<T>(strings, ...params).execute(handle.db)).rows;
}

/** The first row of dbRows (undefined when none). */
export async function dbRow<T = Record<string, unknown>>(handle: DbHandle, text: string, ...params: unknown[]): Promise<T | undefined> {
  return (await dbRows<T>(handle, text, ...params))[0];
}
