// `printfarm backup --to FILE`: writes one backup archive of a data directory or a PostgreSQL farm, safe while servers run.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { backupContents } from '../app/backup-contents.js';
import { backupSharedFarm } from '../app/shared-farm-backup.js';
import { createBackup, type BackupResult } from '../backup/create-backup.js';
import { ConfigError, DATABASE_URL_VARIABLE, envVarFor, resolveStorageConfig } from '../config.js';
import { betterSqliteNativeBinding } from '../native-addons.js';
import { DATABASE_FILE } from '../storage/db.js';
import { CliUsageError, type CliCommand } from './command.js';
import { openExistingPostgres } from './db-copy-ends.js';
import { filesDirOption } from './files-dir-option.js';

const USAGE = `Usage: printfarm backup --to FILE [--data-dir DIR] [--database URL [--files-dir DIR]] [--with-files]

Writes one backup archive (a gzip-compressed tar) of the data directory DIR: a consistent copy of the
database taken with SQLite's online backup (the server may keep running), the secret key that seals
printer credentials, and a manifest.json with the program and schema versions and each member's SHA-256.
With --database, of the farm on that PostgreSQL database instead (its nodes may keep running): the
database is copied in one snapshot into the archive's SQLite file and checked table by table, so the
archive restores onto either engine; the key is PRINTFARM_SECRET_KEY, or DIR's secret.key.
FILE is written as FILE.partial-* first and renamed when complete (an existing FILE is replaced then).
The archive holds the secret key: it is created mode 0600; keep it as safe as the data directory.

  --to FILE        the archive to write, e.g. /var/backups/printfarm-2026-01-01.tar.gz
  --data-dir DIR   the server's data directory   ${envVarFor('data-dir')}   default ./data
  --database URL   a PostgreSQL farm   ${DATABASE_URL_VARIABLE}
  --files-dir DIR  its shared files directory, when the nodes use one   ${envVarFor('files-dir')}
  --with-files     also the stored G-code files and thumbnails (can be large), wherever they are kept

Restore with: printfarm restore FILE --data-dir EMPTY_DIR`;

export interface BackupArgs {
  to: string;
  dataDir: string;
  withFiles: boolean;
  /** A PostgreSQL farm; null: the data directory's SQLite database. */
  databaseUrl?: string | null;
  filesDir?: string | null;
}

export function parseBackupArgs(args: string[], environment: NodeJS.ProcessEnv = process.env): BackupArgs {
  let values: { to?: string; 'data-dir'?: string; 'with-files'?: boolean; database?: string; 'files-dir'?: string };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        to: { type: 'string' },
        'data-dir': { type: 'string' },
        'with-files': { type: 'boolean' },
        database: { type: 'string' },
        'files-dir': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new CliUsageError(`${(err as Error).message.split('\n')[0]} (see printfarm backup --help)`);
  }
  if (!values.to?.trim()) throw new CliUsageError('--to FILE is required (the archive to write)');
  try {
    const { dataDir, databaseUrl } = resolveStorageConfig({ 'data-dir': values['data-dir'], database: values.database, env: undefined }, environment);
    if (values['files-dir'] !== undefined && databaseUrl === null) throw new CliUsageError('--files-dir is for a PostgreSQL farm (--database): a data directory keeps its files in DIR/files');
    const filesDir = databaseUrl === null ? null : filesDirOption(values['files-dir'], environment);
    return { to: path.resolve(values.to), dataDir, withFiles: values['with-files'] === true, databaseUrl, filesDir };
  } catch (err) {
    if (err instanceof ConfigError) throw new CliUsageError(err.message);
    throw err;
  }
}

/** Opens the database as it is (never migrating it: the server may be running on it) and writes the archive. */
export async function runBackup(parsed: BackupArgs, nowMs: number = Date.now()): Promise<BackupResult & { missingFiles?: string[] }> {
  if (parsed.databaseUrl) {
    const handle = await openExistingPostgres(parsed.databaseUrl, 'the database');
    try {
      return await backupSharedFarm({ handle, dataDir: parsed.dataDir, filesDir: parsed.filesDir ?? null, toFile: parsed.to, withFiles: parsed.withFiles, reason: 'manual', nowMs });
    } finally {
      await handle.close();
    }
  }
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
    if (r.missingFiles && r.missingFiles.length > 0) {
      console.error(`printfarm backup: warning: ${r.missingFiles.length} stored files have no content where the farm keeps them (not in the archive): ${r.missingFiles.join(', ')}`);
    }
    console.log(
      `Backup written: ${r.file} (${r.bytes} bytes, ${r.members} members, database ${r.databaseBytes} bytes at schema version ` +
        `${r.schemaVersion}) in ${(r.ms / 1000).toFixed(2)} s.`,
    );
    return 0;
  },
};
