// `printfarm restore FILE --data-dir DIR`: verifies a backup archive and installs it into a data directory.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BACKUP_KEY_FILES, KNOWN_SCHEMA_VERSION } from '../app/backup-contents.js';
import { restoreBackup, type RestoreResult } from '../backup/restore-backup.js';
import { ConfigError, envVarFor, resolveStorageConfig } from '../config.js';
import { CliUsageError, type CliCommand } from './command.js';
import { refuseOnPostgres } from './sqlite-file-only.js';

const USAGE = `Usage: printfarm restore FILE [--data-dir DIR] [--force]

Restores a backup written by \`printfarm backup\` (or a nightly or pre-migration one from DIR/backups/)
into DIR. The archive is checked before anything is replaced: each member against the SHA-256 in its
manifest, the database with PRAGMA integrity_check, and its schema version (a backup from a newer
printfarm is refused). The server must not be running on DIR.

  --data-dir DIR   where to restore to; must be empty   ${envVarFor('data-dir')}   default ./data
  --force          restore into a non-empty DIR: its database and secret key are replaced, stored files
                   are kept (those of the backup are added)

Then start the server on DIR: the API keys, printers, jobs and settings are those of the backup.`;

export interface RestoreArgs {
  file: string;
  dataDir: string;
  force: boolean;
}

export function parseRestoreArgs(args: string[], environment: NodeJS.ProcessEnv = process.env): RestoreArgs {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { 'data-dir': { type: 'string' }, force: { type: 'boolean' } }, strict: true, allowPositionals: true });
  } catch (err) {
    throw new CliUsageError(`${(err as Error).message.split('\n')[0]} (see printfarm restore --help)`);
  }
  const [file, ...extra] = parsed.positionals;
  if (!file) throw new CliUsageError('which backup? printfarm restore FILE --data-dir DIR');
  if (extra.length > 0) throw new CliUsageError(`unexpected argument ${extra[0]} (restore takes one FILE)`);
  try {
    const { dataDir, databaseUrl } = resolveStorageConfig({ 'data-dir': parsed.values['data-dir'], env: undefined }, environment);
    refuseOnPostgres('restore', databaseUrl);
    return { file: path.resolve(file), dataDir, force: parsed.values.force === true };
  } catch (err) {
    if (err instanceof ConfigError) throw new CliUsageError(err.message);
    throw err;
  }
}

export function runRestore(parsed: RestoreArgs): Promise<RestoreResult> {
  return restoreBackup({ ...parsed, knownSchemaVersion: KNOWN_SCHEMA_VERSION, keyFiles: BACKUP_KEY_FILES });
}

export const restoreCommand: CliCommand = {
  name: 'restore',
  usage: USAGE,
  async run(args) {
    const parsed = parseRestoreArgs(args);
    const r = await runRestore(parsed);
    for (const w of r.warnings) console.error(`printfarm restore: warning: ${w}`);
    console.log(
      `Restored ${parsed.file} into ${parsed.dataDir}: ${r.manifest.members.length} members verified, schema version ` +
        `${r.manifest.schema_version}, taken ${r.manifest.created_at} by printfarm ${r.manifest.app_version}, in ${(r.ms / 1000).toFixed(2)} s.`,
    );
    return 0;
  },
};
