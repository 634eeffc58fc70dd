// `printfarm backup --to FILE`: writes one backup archive of a data directory, safe while the server runs on it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { backupContents } from '../app/backup-contents.js';
import { createBackup, type BackupResult } from '../backup/create-backup.js';
import { ConfigError, envVarFor, resolveStorageConfig } from '../config.js';
import { betterSqliteNativeBinding } from '../native-addons.js';
import { DATABASE_FILE } from '../storage/db.js';
import { CliUsageError, type CliCommand } from './command.js';
import { refuseOnPostgres } from './sqlite-file-only.js';

const USAGE = `Usage: printfarm backup --to FILE [--data-dir DIR] [--with-files]

Writes one backup archive (a gzip-compressed tar) of the data directory DIR: a consistent copy of the
database taken with SQLite's online backup (the server may keep running), the secret key that seals
printer credentials, and a manifest.json with the program and schema versions and each member's SHA-256.
FILE is written as FILE.partial-* first and renamed when complete (an existing FILE is replaced then).
The archive holds the secret key: it is created mode 0600; keep it as safe as the data directory.

  --to FILE        the archive to write, e.g. /var/backups/printfarm-2026-01-01.tar.gz
  --data-dir DIR   the server's data directory   ${envVarFor('data-dir')}   default ./data
  --with-files     also the stored G-code files and thumbnails (can be large)

Restore with: printfarm restore FILE --data-dir EMPTY_DIR`;

export interface BackupArgs {
  to: string;
  dataDir: string;
  withFiles: boolean;
}

export function parseBackupArgs(args: string[], environment: NodeJS.ProcessEnv = process.env): BackupArgs {
  let values: { to?: string; 'data-dir'?: string; 'with-files'?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: { to: { type: 'string' }, 'data-dir': { type: 'string' }, 'with-files': { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new CliUsageError(`${(err as Error).message.split('\n')[0]} (see printfarm backup --help)`);
  }
  if (!values.to?.trim()) throw new CliUsageError('--to FILE is required (the archive to write)');
  try {
    const { dataDir, databaseUrl } = resolveStorageConfig({ 'data-dir': values['data-dir'], env: undefined }, environment);
    refuseOnPostgres('backup', databaseUrl);
    return { to: path.resolve(values.to), dataDir, withFiles: values['with-files'] === true };
  } catch (err) {
    if (err instanceof ConfigError) throw new CliUsageError(err.message);
    throw err;
  }
}

/** Opens the database as it is (never migrating it: the server may be running on it) and writes the archive. */
export async function runBackup(parsed: BackupArgs, nowMs: number = Date.now()): Promise<BackupResult> {
  const file = path.join(parsed.dataDir, DATABASE_FILE);
  if (!existsSync(file)) throw new Error(`no database at ${file}: check --data-dir`);
  const nativeBinding = betterSqliteNativeBinding();
  const sqlite = new BetterSqlite3(file, { fileMustExist: true, timeout: 5000, ...(nativeBinding ? { nativeBinding } : {}) });
  try {
    return await createBackup({ sqlite, contents: backupContents(parsed.dataDir), toFile: parsed.to, withFiles: parsed.withFiles, reason: 'manual', nowMs });
  } finally {
    sqlite.close();
  }
}

export const backupCommand: CliCommand = {
  name: 'backup',
  usage: USAGE,
  async run(args) {
    const parsed = parseBackupArgs(args);
    const r = await runBackup(parsed);
    console.log(
      `Backup written: ${r.file} (${r.bytes} bytes, ${r.members} members, database ${r.databaseBytes} bytes at schema version ` +
        `${r.schemaVersion}) in ${(r.ms / 1000).toFixed(2)} s.`,
    );
    return 0;
  },
};
