// Copies a farm's stored files from one content store into another: from a directory store into the database store is
// what a farm moving from one box on SQLite to PostgreSQL needs after its rows were copied, so every node can read the
// files its history names (printfarm db copy); any store into a directory store serves the other directions.
import type { Db } from '../storage/db.js';
import type { ContentStore } from './content-store.js';
import type { DatabaseFileStore } from './database-file-store.js';
import type { FileStore } from './file-store.js';

/** A store that takes a local file by its hash (the database store, a directory store). */
export type FileTarget = Pick<ContentStore, 'hasContent' | 'writeThumbnail'> & {
  storeFile(filePath: string, sha256: string, size: number): Promise<void>;
};

export interface FilesIntoDatabaseReport {
  /** Files whose content (and thumbnail) was copied now. */
  copied: number;
  bytes: number;
  /** Already whole in the database (a copy run again). */
  present: number;
  /** Ids of stored files whose content is not in the directory (or has another size): left as they are. */
  missing: string[];
}

/** One file at a time, each checked against its sha256 while it is copied; pruned files (no content) are skipped. */
export function copyFilesIntoDatabase(db: Db, from: FileStore, to: DatabaseFileStore): Promise<FilesIntoDatabaseReport> {
  return copyStoredFiles(db, from, to);
}

/** As copyFilesIntoDatabase, between any two stores; `db` holds the files' records (the target's, after a copy). */
export async function copyStoredFiles(db: Db, from: ContentStore, to: FileTarget): Promise<FilesIntoDatabaseReport> {
  const rows = await db.selectFrom('files').select(['id', 'sha256', 'size', 'thumbnail_type']).where('deleted_at', 'is', null).orderBy('id').execute();
  const report: FilesIntoDatabaseReport = { copied: 0, bytes: 0, present: 0, missing: [] };
  for (const row of rows) {
    const size = Number(row.size);
    if (await to.hasContent(row.sha256, size)) {
      report.present++;
      continue;
    }
    if (!(await from.hasContent(row.sha256, size))) {
      report.missing.push(row.id);
      continue;
    }
    await to.storeFile(await from.localCopy({ sha256: row.sha256, size }), row.sha256, size);
    const thumbnail = row.thumbnail_type ? await from.readThumbnail(row.sha256, row.thumbnail_type) : null;
    if (row.thumbnail_type && thumbnail) await to.writeThumbnail(row.sha256, row.thumbnail_type, thumbnail);
    report.copied++;
    report.bytes += size;
  }
  return report;
}
