// Picks the file-content store from the settings: a shared --files-dir when given, else the database on PostgreSQL
// (every node reads it) and the data directory on SQLite (one box).
import type { Db, DbEngine } from '../storage/db.js';
import type { ContentStore } from './content-store.js';
import { DatabaseFileStore } from './database-file-store.js';
import { FileStore } from './file-store.js';

/** `chunkBytes`: tests use small chunks so a small file spans several rows. */
export type FileStorage = { kind: 'data-dir' } | { kind: 'shared-dir'; dir: string } | { kind: 'database'; chunkBytes?: number };

export function defaultFileStorage(engine: DbEngine, filesDir?: string): FileStorage {
  if (filesDir) return { kind: 'shared-dir', dir: filesDir };
  return engine === 'postgres' ? { kind: 'database' } : { kind: 'data-dir' };
}

export function openContentStore(storage: FileStorage, s: { db: Db; dataDir: string; engine: DbEngine }): ContentStore {
  switch (storage.kind) {
    case 'data-dir':
      return new FileStore(s.dataDir);
    case 'shared-dir':
      return new FileStore(s.dataDir, storage.dir);
    case 'database':
      // Chunks in SQLite land in the data directory's database file: this box's disk and its reserve.
      return new DatabaseFileStore(s.db, s.dataDir, s.engine === 'sqlite', storage.chunkBytes);
  }
}
