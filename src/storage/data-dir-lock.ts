// One server per data directory: an exclusive SQLite lock on DIR/printfarm.lock, held by the OS until the process ends.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { betterSqliteNativeBinding } from '../native-addons.js';

/**
 * The lock is SQLite's own file lock (fcntl on Linux) on an otherwise empty database: the kernel drops it when the
 * process dies, even on SIGKILL or a power cut, so a crash never leaves a stale lock behind. It is a separate file
 * so `printfarm keys create` can still write to printfarm.sqlite while the server runs.
 */
export const LOCK_FILE = 'printfarm.lock';
/**
 * Who holds the lock, for the refusal message; removed when the lock is released, so one found at the next start
 * tells of a stop that was not clean. The lock itself never trusts this file.
 */
export const PID_FILE = 'printfarm.pid';

export interface DataDirLock {
  /**
   * The pid file was there when the lock was taken: the process that wrote it ended without releasing the lock
   * (killed, crashed, power cut), so the database may not have been closed cleanly.
   */
  uncleanStop: boolean;
  /**
   * Releases the lock (idempotent). `keepUncleanMark`: leave the pid file, so the next start still treats the last
   * stop as unclean (a start refused because the database is damaged must not make it look healthy).
   */
  release(options?: { keepUncleanMark?: boolean }): void;
}

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number | null,
  ) {
    super(
      `the data directory ${dataDir} is in use by another printfarm process (pid ${holderPid ?? 'unknown'}); ` +
        'stop that one or choose another --data-dir',
    );
    this.name = 'DataDirInUseError';
  }
}

function readHolderPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Takes the data directory's lock or throws DataDirInUseError naming the holder; `dataDir` must exist. */
export function lockDataDir(dataDir: string): DataDirLock {
  const nativeBinding = betterSqliteNativeBinding();
  // timeout 0: a held lock answers SQLITE_BUSY at once instead of after better-sqlite3's default 5 s wait.
  const sqlite = new BetterSqlite3(path.join(dataDir, LOCK_FILE), { timeout: 0, ...(nativeBinding ? { nativeBinding } : {}) });
  try {
    // No journal file next to it; the transaction below writes nothing and is never committed.
    sqlite.pragma('journal_mode = MEMORY');
    sqlite.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    sqlite.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') {
      throw new DataDirInUseError(dataDir, readHolderPid(path.join(dataDir, PID_FILE)));
    }
    throw err;
  }
  const pidFile = path.join(dataDir, PID_FILE);
  // We hold the lock now, so whoever wrote a pid file still there is gone without having released it.
  const uncleanStop = existsSync(pidFile);
  try {
    writeFileSync(pidFile, `${process.pid}\n`);
  } catch {
    // Only the message of a refused second start suffers; the lock holds regardless.
  }
  let released = false;
  return {
    uncleanStop,
    release(options = {}) {
      if (released) return;
      released = true;
      if (!options.keepUncleanMark && readHolderPid(pidFile) === process.pid) rmSync(pidFile, { force: true });
      sqlite.close();
    },
  };
}
