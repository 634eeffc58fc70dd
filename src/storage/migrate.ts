// Applies pending migrations in order, all in one transaction (a failure leaves the database as it was); refuses a newer schema.
import type BetterSqlite3 from 'better-sqlite3';
import type { Migration } from './migrations/migration.js';

export class SchemaTooNewError extends Error {
  constructor(found: number, known: number) {
    super(
      `the database is at schema version ${found}, newer than this program knows (${known}): ` +
        'it was written by a newer printfarm; run that version or restore a backup',
    );
    this.name = 'SchemaTooNewError';
  }
}

/** A migration threw: nothing of this run was kept, the database is still at `fromVersion`. */
export class MigrationFailedError extends Error {
  constructor(
    readonly fromVersion: number,
    readonly failed: { version: number; name: string },
    readonly error: unknown,
  ) {
    super(
      `migration ${failed.version} (${failed.name}) failed: ${(error as Error).message ?? String(error)}; ` +
        `nothing was changed, the database is still at schema version ${fromVersion}`,
    );
    this.name = 'MigrationFailedError';
  }
}

export function currentSchemaVersion(sqlite: BetterSqlite3.Database): number {
  const row = sqlite.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null };
  return row.v ?? 0;
}

/** Returns the versions applied now (empty when the schema was already current). */
export function migrate(sqlite: BetterSqlite3.Database, migrations: readonly Migration[], nowIso: string): number[] {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration list broken: entry ${i} has version ${m.version}`);
  });
  sqlite.exec(
    'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT',
  );
  const found = currentSchemaVersion(sqlite);
  const known = migrations.length;
  if (found > known) throw new SchemaTooNewError(found, known);

  const pending = migrations.slice(found);
  if (pending.length === 0) return [];
  const record = sqlite.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)');
  // One transaction for the whole run: a program upgraded over several versions either gets all of them or none,
  // never a schema between two releases that no program version was written for.
  sqlite.transaction(() => {
    for (const m of pending) {
      try {
        sqlite.exec(m.sql);
      } catch (err) {
        throw new MigrationFailedError(found, m, err);
      }
      record.run(m.version, m.name, nowIso);
    }
  })();
  return pending.map((m) => m.version);
}
