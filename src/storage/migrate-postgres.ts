// Applies pending migrations on PostgreSQL: each migration's `pg` text, all in one transaction, under an advisory lock so
// several nodes starting together on one empty database migrate it exactly once; refuses a newer schema like SQLite does.
import type pg from 'pg';
import type { Migration } from './migrations/migration.js';
import { MigrationFailedError, SchemaTooNewError } from './migrate.js';

/** Any fixed 64-bit number: the advisory lock every printfarm node takes around migrating (it names no table). */
export const MIGRATION_LOCK_KEY = 7_270_020_001;

export async function currentPgSchemaVersion(client: pg.ClientBase): Promise<number> {
  const r = await client.query<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_version');
  return r.rows[0]?.v ?? 0;
}

/** Returns the versions applied now (empty when the schema was already current, e.g. another node migrated it). */
export async function migratePostgres(client: pg.ClientBase, migrations: readonly Migration[], nowIso: string): Promise<number[]> {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration list broken: entry ${i} has version ${m.version}`);
  });
  // A session lock, not a transaction one: the CREATE TABLE of schema_version itself must not race (two nodes creating
  // it at once: one fails on the catalog's unique index), and the second node must read the version after the first committed.
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS schema_version (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    const found = await currentPgSchemaVersion(client);
    const known = migrations.length;
    if (found > known) throw new SchemaTooNewError(found, known);
    const pending = migrations.slice(found);
    if (pending.length === 0) return [];
    // One transaction for the whole run, as on SQLite (PostgreSQL's DDL is transactional too).
    await client.query('BEGIN');
    try {
      for (const m of pending) {
        try {
          await client.query(m.pg);
        } catch (err) {
          throw new MigrationFailedError(found, m, err);
        }
        await client.query('INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, nowIso]);
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
    return pending.map((m) => m.version);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
  }
}
