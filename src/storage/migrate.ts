// Applies pending migrations in order, each in its own transaction; refuses a database written by a newer program.
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

  const applied: number[] = [];
  const record = sqlite.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)');
  for (const m of migrations.slice(found)) {
    sqlite.transaction(() => {
      sqlite.exec(m.sql);
      record.run(m.version, m.name, nowIso);
    })();
    applied.push(m.version);
  }
  return applied;
}
