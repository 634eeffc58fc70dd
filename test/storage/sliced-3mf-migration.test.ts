// Migration 23 (sliced 3MF): on both engines a files row may be format 3mf and carries printer_model_id and plates;
// SQLite rebuilds its files table, so a farm's stored files must come through it whole, with their constraints.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { migrate } from '../../src/storage/migrate.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';
import { describeOnPostgres } from '../helpers/pg-suite.js';

const NOW = '2026-11-28T00:00:00.000Z';
const V23 = migrations.findIndex((m) => m.name === 'sliced-3mf');

const row = (id: string, format: string) => ({
  id,
  sha256: id.padEnd(64, '0'),
  size: 100,
  original_name: `${id}.${format}`,
  line_count: 3,
  sent_lines_total: 2,
  sent_bytes_total: 20,
  extruders: '[]',
  created_at: NOW,
  format,
});

/** What any engine must do once migrated: take a 3mf row with its plates, refuse an unknown format and a second copy. */
async function checkMigrated(h: DbHandle): Promise<void> {
  await h.db
    .insertInto('files')
    .values({ ...row('file_3mf', '3mf'), printer_model_id: 'C12', plates: '[{"index":1}]' } as never)
    .execute();
  const got = await h.db.selectFrom('files').select(['format', 'printer_model_id', 'plates']).where('id', '=', 'file_3mf').executeTakeFirstOrThrow();
  assert.deepEqual(got, { format: '3mf', printer_model_id: 'C12', plates: '[{"index":1}]' });
  await assert.rejects(h.db.insertInto('files').values(row('file_zip', 'zip') as never).execute(), /CHECK|check constraint/i);
  await assert.rejects(h.db.insertInto('files').values({ ...row('file_3mf', '3mf'), id: 'file_again' } as never).execute(), /UNIQUE|duplicate key/i);
}

describe('migration 23 on SQLite', () => {
  it('keeps every stored file, its columns and constraints, and takes 3mf rows', async () => {
    assert.ok(V23 > 0, 'the migration is listed');
    const dir = mkdtempSync(path.join(tmpdir(), 'printfarm-3mf-migration-'));
    const file = path.join(dir, 'farm.sqlite');
    try {
      const raw = new BetterSqlite3(file);
      migrate(raw, migrations.slice(0, V23), NOW);
      const insert = raw.prepare(
        'INSERT INTO files (id, sha256, size, original_name, line_count, sent_lines_total, sent_bytes_total, extruders, created_at, format, last_used_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      for (const [id, format, deleted] of [['file_a', 'gcode', null], ['file_b', 'bgcode', NOW]] as const) {
        const r = row(id, format);
        insert.run(r.id, r.sha256, r.size, r.original_name, r.line_count, r.sent_lines_total, r.sent_bytes_total, r.extruders, r.created_at, r.format, NOW, deleted);
      }
      const before = raw.prepare('SELECT * FROM files ORDER BY id').all();
      raw.close();

      const h = openDatabase(file, NOW);
      try {
        assert.deepEqual(h.migrated, migrations.slice(V23).map((m) => m.version));
        const after = await h.db.selectFrom('files').selectAll().orderBy('id').execute();
        assert.deepEqual(
          after,
          (before as Record<string, unknown>[]).map((b) => ({ ...b, printer_model_id: null, plates: '[]' })),
          'every column of every file as it was, and the new ones empty',
        );
        const indexes = await h.db.selectFrom('sqlite_master' as never).select('name' as never).where('tbl_name' as never, '=', 'files' as never).where('type' as never, '=', 'index' as never).execute();
        assert.ok((indexes as { name: string }[]).some((i) => i.name === 'files_created'), 'files_created index kept');
        await checkMigrated(h);
      } finally {
        await h.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeOnPostgres('migration 23 on PostgreSQL', NOW, (open) => {
  it('takes 3mf rows with their plates and still refuses another format', async () => {
    const h = await open();
    try {
      await checkMigrated(h);
    } finally {
      await h.close();
    }
  });
});
