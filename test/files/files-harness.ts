// A files service on a real in-memory SQLite and a temp data directory, for the ingest tests.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../src/clock.js';
import { fileLimits, type FileLimits } from '../../src/files/file-limits.js';
import { createFilesService, type FilesService } from '../../src/files/files.service.js';
import { silentLogger } from '../../src/logger.js';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';

export interface FilesHarness {
  files: FilesService;
  handle: DbHandle;
  dataDir: string;
  /** Names left in the temp upload directory (should be none after any ingest). */
  tempFiles(): string[];
  close(): Promise<void>;
}

export function startFilesHarness(limits: Partial<FileLimits> = {}): FilesHarness {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'printfarm-files-'));
  const handle = openDatabase(':memory:');
  const files = createFilesService({ db: handle.db, dataDir, clock: new ManualClock(), logger: silentLogger }, fileLimits(limits));
  return {
    files,
    handle,
    dataDir,
    tempFiles: () => {
      try {
        return readdirSync(path.join(dataDir, 'files', 'tmp'));
      } catch {
        return [];
      }
    },
    async close() {
      await handle.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Rejects with the AppError fields, for assert.rejects matchers. */
export const appError = (status: number, code: string, message: RegExp) => (err: unknown) => {
  const e = err as { status?: number; code?: string; message?: string };
  if (e.status !== status || e.code !== code || !message.test(e.message ?? '')) {
    throw new Error(`expected ${status} ${code} ${message}, got ${e.status} ${e.code} "${e.message}"`);
  }
  return true;
};
