// `printfarm restore FILE --data-dir DIR` (or `--database URL`): verifies a backup archive and installs it into a data
// directory or onto a PostgreSQL farm, whichever engine the archive was taken on.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BACKUP_KEY_FILES, KNOWN_SCHEMA_VERSION } from '../app/backup-contents.js';
import { restoreSharedFarm, type SharedFarmRestoreResult } from '../app/shared-farm-restore.js';
import { restoreBackup, type RestoreResult } from '../backup/restore-backup.js';
import { ConfigError, DATABASE_URL_VARIABLE, envVarFor, resolveStorageConfig } from '../config.js';
import { redactPostgresUrl } from '../storage/open-postgres.js';
import { CliUsageError, type CliCommand } from './command.js';
import { filesDirOption } from './files-dir-option.js';

const USAGE = `Usage: printfarm restore FILE [--data-dir DIR | --database URL [--files-dir DIR]] [--force]

Restores a backup written by \`printfarm backup\` (or a nightly or pre-migration one from DIR/backups/)
into DIR. The archive is checked before anything is replaced: each member against the SHA-256 in its
manifest, the database with PRAGMA integrity_check, and its schema version (a backup from a newer
printfarm is refused). The server must not be running on DIR.
An archive taken on either engine restores onto either: with --database the backup's database is copied
onto that PostgreSQL database (checked table by table, in one transaction) and its files into the
farm's store (the database, or --files-dir); every node must be stopped. Its secret key is written to
DIR/secret.key (an existing one is kept): start every node with PRINTFARM_SECRET_KEY set to it.

  --data-dir DIR   where to restore to; must be empty   ${envVarFor('data-dir')}   default ./data
  --database URL   restore onto this PostgreSQL database instead   ${DATABASE_URL_VARIABLE}
  --files-dir DIR  the nodes' shared files directory (PostgreSQL only)   ${envVarFor('files-dir')}
  --force          restore into a non-empty DIR or a database holding a farm: its data and secret key
                   are replaced, stored files are kept (those of the backup are added)

Then start the server on DIR: the API keys, printers, jobs and settings are those of the backup.`;

export interface RestoreArgs {
  file: string;
  dataDir: string;
  force: boolean;
  databaseUrl?: string | null;
  filesDir?: string | null;
}

export function parseRestoreArgs(args: string[], environment: NodeJS.ProcessEnv = process.env): RestoreArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { 'data-dir': { type: 'string' }, force: { type: 'boolean' }, database: { type: 'string' }, 'files-dir': { type: 'string' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    throw new CliUsageError(`${(err as Error).message.split('\n')[0]} (see printfarm restore --help)`);
  }
  const [file, ...extra] = parsed.positionals;
  if (!file) throw new CliUsageError('which backup? printfarm restore FILE --data-dir DIR');
  if (extra.length > 0) throw new CliUsageError(`unexpected argument ${extra[0]} (restore takes one FILE)`);
  try {
    const { dataDir, databaseUrl } = resolveStorageConfig({ 'data-dir': parsed.values['data-dir'], database: parsed.values.database, env: undefined }, environment);
    if (parsed.values['files-dir'] !== undefined && databaseUrl === null) throw new CliUsageError('--files-dir is for a PostgreSQL farm (--database): a data directory keeps its files in DIR/files');
    const filesDir = databaseUrl === null ? null : filesDirOption(parsed.values['files-dir'], environment);
    return { file: path.resolve(file), dataDir, force: parsed.values.force === true, databaseUrl, filesDir };
  } catch (err) {
    if (err instanceof ConfigError) throw new CliUsageError(err.message);
    throw err;
  }
}

export function runRestore(parsed: RestoreArgs): Promise<RestoreResult> {
  return restoreBackup({ file: parsed.file, dataDir: parsed.dataDir, force: parsed.force, knownSchemaVersion: KNOWN_SCHEMA_VERSION, keyFiles: BACKUP_KEY_FILES });
}

export function runSharedRestore(parsed: RestoreArgs & { databaseUrl: string }, nowMs: number = Date.now()): Promise<SharedFarmRestoreResult> {
  return restoreSharedFarm({ file: parsed.file, url: parsed.databaseUrl, dataDir: parsed.dataDir, filesDir: parsed.filesDir ?? null, force: parsed.force, nowMs });
}

export const restoreCommand: CliCommand = {
  name: 'restore',
  usage: USAGE,
  async run(args) {
    const parsed = parseRestoreArgs(args);
    if (parsed.databaseUrl) {
      const r = await runSharedRestore({ ...parsed, databaseUrl: parsed.databaseUrl });
      for (const w of r.warnings) console.error(`printfarm restore: warning: ${w}`);
      console.log(
        `Restored ${parsed.file} onto ${redactPostgresUrl(parsed.databaseUrl)}: ${r.checks.length} tables copied and verified, ` +
          `${r.files.copied} files (${r.files.present} already there), schema version ${r.manifest.schema_version}, taken ` +
          `${r.manifest.created_at} by printfarm ${r.manifest.app_version}, in ${(r.ms / 1000).toFixed(2)} s.`,
      );
      for (const line of r.advice) console.log(line);
      return 0;
    }
    const r = await runRestore(parsed);
    for (const w of r.warnings) console.error(`printfarm restore: warning: ${w}`);
    console.log(
      `Restored ${parsed.file} into ${parsed.dataDir}: ${r.manifest.members.length} members verified, schema version ` +
        `${r.manifest.schema_version}, taken ${r.manifest.created_at} by printfarm ${r.manifest.app_version}, in ${(r.ms / 1000).toFixed(2)} s.`,
    );
    if (r.printersReleased > 0) console.log(`${r.printersReleased} printers are handed to this box: the server started on ${parsed.dataDir} drives them.`);
    return 0;
  },
};
