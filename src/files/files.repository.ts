// Rows of the files table: function-style queries taking `db`.
import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../storage/db.js';
import type { FileTable } from '../storage/schema.js';

export type FileRow = Selectable<FileTable>;

export async function insertFile(db: Db, row: Insertable<FileTable>): Promise<void> {
  await db.insertInto('files').values(row).execute();
}

export async function findFileById(db: Db, id: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findFileBySha256(db: Db, sha256: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('sha256', '=', sha256).executeTakeFirst();
}

/** The organization's file_url_hosts (empty: any host). */
export async function fileUrlHostsOf(db: Db): Promise<string[]> {
  const row = await db.selectFrom('organization').select('file_url_hosts').orderBy('created_at').limit(1).executeTakeFirst();
  return row ? (JSON.parse(row.file_url_hosts) as string[]) : [];
}

export async function countFiles(db: Db): Promise<number> {
  const row = await db.selectFrom('files').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
