// Opens the database of a data directory for an offline command, refusing one without a database (a mistyped --data-dir).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DATABASE_FILE, openDatabase, type DbHandle } from '../storage/db.js';

/** Runs `work` on the data directory's database and closes it; no database there is an error, never a new empty one. */
export async function withExistingDatabase<T>(dataDir: string, nowIso: string, work: (handle: DbHandle) => Promise<T> | T): Promise<T> {
  const file = path.join(dataDir, DATABASE_FILE);
  if (!existsSync(file)) {
    throw new Error(`no database at ${file}: check --data-dir, or start \`printfarm serve --data-dir ${dataDir}\` once first`);
  }
  const handle = openDatabase(file, nowIso);
  try {
    return await work(handle);
  } finally {
    await handle.close();
  }
}
