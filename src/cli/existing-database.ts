// Opens the database of a data directory for an offline command, refusing one without a database (a mistyped --data-dir).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { openDataDirDatabase } from '../app/open-data-dir.js';
import { createLogger } from '../logger.js';
import { DATABASE_FILE, type SqliteHandle } from '../storage/db.js';

/** Runs `work` on the data directory's database and closes it; no database there is an error, never a new empty one. */
export async function withExistingDatabase<T>(dataDir: string, nowIso: string, work: (handle: SqliteHandle) => Promise<T> | T): Promise<T> {
  const file = path.join(dataDir, DATABASE_FILE);
  if (!existsSync(file)) {
    throw new Error(`no database at ${file}: check --data-dir, or start \`printfarm serve --data-dir ${dataDir}\` once first`);
  }
  // An offline command may be the first to run a new version on the directory: it backs up before migrating too.
  const handle = await openDataDirDatabase({ dataDir, nowMs: Date.parse(nowIso), logger: createLogger(), uncleanStop: false });
  try {
    return await work(handle);
  } finally {
    await handle.close();
  }
}
