// The PostgreSQL engine's migrations: the same tables and columns as SQLite, one migration when several nodes open an
// empty database at once, and a schema newer than the program refused as on SQLite.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openDatabase } from '../../src/storage/db.js';
import { SchemaTooNewError } from '../../src/storage/migrate.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { openPostgres } from '../../src/storage/open-postgres.js';
import { pgForSuite, pgSkipReason } from '../helpers/pg-for-tests.js';

/** SQLite's declared types and what the same column is on PostgreSQL. */
const PG_TYPE_OF: Record<string, string> = { INTEGER: 'bigint', REAL: 'double precision', TEXT: 'text', BLOB: 'bytea' };

interface Column {
  table: string;
  column: string;
  type: string;
  notNull: boolean;
}

function sqliteColumns(): Column[] {
  const h = openDatabase(':memory:');
  try {
    const tables = h.sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as Array<{ name: string }>;
    return tables.flatMap(({ name }) =>
      (h.sqlite.prepare(`PRAGMA table_info(${JSON.stringify(name)})`).all() as Array<{ name: string; type: string; notnull: number; pk: number }>).map((c) => ({
        table: name,
        column: c.name,
        type: PG_TYPE_OF[c.type] ?? `unmapped ${c.type}`,
        // A PRIMARY KEY column is NOT NULL on PostgreSQL whatever it declares (SQLite's rowid alias is too).
        notNull: c.notnull === 1 || c.pk > 0,
      })),
    );
  } finally {
    void h.close();
  }
}

async function pgColumns(url: string): Promise<Column[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
      "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public'",
    );
    return r.rows.map((row) => ({ table: row.table_name, column: row.column_name, type: row.data_type, notNull: row.is_nullable === 'NO' }));
  } finally {
    await c.end();
  }
}

const byName = (a: Column, b: Column): number => `${a.table}.${a.column}`.localeCompare(`${b.table}.${b.column}`);

describe('PostgreSQL schema', { skip: pgSkipReason() }, () => {
  const cluster = pgForSuite();

  it('has the same tables and columns (type, NOT NULL) as SQLite after every migration', async () => {
    const db = await cluster().createDatabase();
    try {
      const h = await openPostgres(db.url);
      await h.close();
      assert.deepEqual((await pgColumns(db.url)).sort(byName), sqliteColumns().sort(byName));
    } finally {
      await db.drop();
    }
  });

  it('three nodes opening one empty database at once migrate it exactly once', async () => {
    const db = await cluster().createDatabase();
    try {
      const handles = await Promise.all([openPostgres(db.url), openPostgres(db.url), openPostgres(db.url)]);
      const runs = handles.map((h) => h.migrated.length).sort((a, b) => a - b);
      assert.deepEqual(runs, [0, 0, migrations.length], 'one node applied every migration, the others none');
      const rows = await handles[0]!.db.selectFrom('schema_version').select('version').orderBy('version').execute();
      assert.deepEqual(rows.map((r) => r.version), migrations.map((m) => m.version));
      await Promise.all(handles.map((h) => h.close()));
    } finally {
      await db.drop();
    }
  });

  it('refuses a schema newer than this program, and changes nothing', async () => {
    const db = await cluster().createDatabase();
    try {
      const h = await openPostgres(db.url);
      await h.db.insertInto('schema_version').values({ version: migrations.length + 1, name: 'from-the-future', applied_at: new Date().toISOString() }).execute();
      await h.close();
      await assert.rejects(openPostgres(db.url), (err: Error) => {
        assert.ok(err instanceof SchemaTooNewError);
        assert.match(err.message, new RegExp(`schema version ${migrations.length + 1}, newer than this program knows \\(${migrations.length}\\)`));
        return true;
      });
    } finally {
      await db.drop();
    }
  });

  it('reads BIGINT and NUMERIC as numbers, like SQLite INTEGER', async () => {
    const db = await cluster().createDatabase();
    try {
      const h = await openPostgres(db.url);
      const r = await h.db
        .selectFrom('schema_version')
        .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum('version').as('total'), eb.fn.max('version').as('top')])
        .executeTakeFirstOrThrow();
      await h.close();
      assert.deepEqual(r, { n: migrations.length, total: (migrations.length * (migrations.length + 1)) / 2, top: migrations.length });
    } finally {
      await db.drop();
    }
  });
});
