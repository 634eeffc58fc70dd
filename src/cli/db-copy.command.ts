// `printfarm db copy --from … --to …`: moves a farm between databases (SQLite to PostgreSQL when it outgrows one box,
// or back), every row kept and verified per table, then its stored files into the target's file store.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DatabaseFileStore } from '../files/database-file-store.js';
import { FileStore } from '../files/file-store.js';
import { copyFilesIntoDatabase, copyStoredFiles, type FilesIntoDatabaseReport } from '../files/files-into-database.js';
import { SECRET_KEY_FILE } from '../printers/secret-box.js';
import { NODE_ID_FILE } from '../nodes/node-identity.js';
import { copyDatabase } from '../storage/db-copy.js';
import type { TableCheck } from '../storage/table-checksums.js';
import { CliUsageError, type CliCommand } from './command.js';
import { describeEndpoint, openSource, openTarget, parseEndpoint, sameEndpoint, type Endpoint, type OpenEnd } from './db-copy-ends.js';

const USAGE = `Usage: printfarm db copy --from SOURCE --to TARGET [--force] [--ignore-lock] [--files-dir DIR]

Copies a whole farm from one database into another: every table, ids and timestamps as they are,
in one transaction on the target, then checks each table's row count and checksum on both sides
(exit status 1 on any difference). SOURCE and TARGET are each
  sqlite:PATH                     a data directory (or its printfarm.sqlite file)
  postgres://user@host:port/db    a PostgreSQL database (created by you, may be empty)
The source is never changed: a SQLite one is read from a snapshot (migrated there if older), a
PostgreSQL one must be at this program's schema version. Stop the server(s) first.

Stored G-code files follow: into the PostgreSQL database (chunks) when the target is PostgreSQL, into
TARGET's data directory when it is SQLite; each is checked against its SHA-256.

  --force         the target may hold farm data: all of it is replaced
  --ignore-lock   copy from a SQLite farm whose server is running (rows written after the snapshot are lost)
  --files-dir DIR put the files in this shared directory instead (the nodes' --files-dir)`;

export interface DbCopyArgs {
  from: Endpoint;
  to: Endpoint;
  force: boolean;
  ignoreLock: boolean;
  filesDir: string | null;
}

export function parseDbCopyArgs(args: string[]): DbCopyArgs {
  const [sub, ...rest] = args;
  if (sub !== 'copy') throw new CliUsageError(sub ? `unknown sub-command "${sub}" (only: copy)` : 'missing sub-command (only: copy)');
  let values: { from?: string; to?: string; force?: boolean; 'ignore-lock'?: boolean; 'files-dir'?: string };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { from: { type: 'string' }, to: { type: 'string' }, force: { type: 'boolean' }, 'ignore-lock': { type: 'boolean' }, 'files-dir': { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new CliUsageError(`${(err as Error).message.split('\n')[0]} (see printfarm db --help)`);
  }
  if (!values.from) throw new CliUsageError('--from SOURCE is required (sqlite:PATH or postgres://…)');
  if (!values.to) throw new CliUsageError('--to TARGET is required (sqlite:PATH or postgres://…)');
  const from = parseEndpoint('--from', values.from);
  const to = parseEndpoint('--to', values.to);
  if (sameEndpoint(from, to)) throw new CliUsageError('--from and --to name the same database');
  if (values['files-dir'] !== undefined && !values['files-dir'].trim()) throw new CliUsageError('--files-dir must not be empty');
  return {
    from,
    to,
    force: values.force === true,
    ignoreLock: values['ignore-lock'] === true,
    filesDir: values['files-dir'] ? path.resolve(values['files-dir']) : null,
  };
}

function checksTable(checks: readonly TableCheck[]): string {
  const width = Math.max(...checks.map((c) => c.table.length));
  const lines = [`${'table'.padEnd(width)}  ${'source'.padStart(8)}  ${'target'.padStart(8)}  checksum          result`];
  for (const c of checks) {
    const sum = c.sourceChecksum === c.targetChecksum ? c.sourceChecksum.slice(0, 16) : `${c.sourceChecksum.slice(0, 7)}≠${c.targetChecksum.slice(0, 8)}`;
    lines.push(`${c.table.padEnd(width)}  ${String(c.sourceRows).padStart(8)}  ${String(c.targetRows).padStart(8)}  ${sum}  ${c.ok ? 'ok' : 'MISMATCH'}`);
  }
  return lines.join('\n');
}

/** The files the copied rows name, into the store the target farm reads (null: nothing to do, they came as rows). */
async function copyFiles(parsed: DbCopyArgs, source: OpenEnd, target: OpenEnd): Promise<FilesIntoDatabaseReport | null> {
  // Scratch space of the stores (temps, the local copies a database store reads through); removed afterwards.
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'printfarm-db-copy-files-'));
  try {
    const from = source.dataDir !== null ? new FileStore(source.dataDir) : new DatabaseFileStore(source.handle.db, scratch, false);
    if (parsed.filesDir) return await copyStoredFiles(target.handle.db, from, new FileStore(scratch, parsed.filesDir));
    if (target.dataDir !== null) return await copyStoredFiles(target.handle.db, from, new FileStore(target.dataDir));
    if (from instanceof FileStore) return await copyFilesIntoDatabase(target.handle.db, from, new DatabaseFileStore(target.handle.db, scratch, false));
    return null; // PostgreSQL to PostgreSQL: the chunks were rows of the copy.
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * A farm moved from one data directory to another is the same box: the target gets the source's node id, so the printers
 * (each belongs to the node that drives it) are still its own when the server starts there.
 */
function carryNodeId(source: OpenEnd, target: OpenEnd): string | null {
  if (!source.dataDir || !target.dataDir) return null;
  const from = path.join(source.dataDir, NODE_ID_FILE);
  const to = path.join(target.dataDir, NODE_ID_FILE);
  if (!existsSync(from)) return null;
  if (existsSync(to)) return `${to} already exists and was kept: printers of the source's node are driven by that node, not by a server on the target.`;
  copyFileSync(from, to);
  return `The node id ${from} was copied to ${to} (the printers stay this box's).`;
}

/** The key that seals printer credentials must travel with the rows; a SQLite target gets the source's key file. */
function secretKeyAdvice(parsed: DbCopyArgs, source: OpenEnd, target: OpenEnd): string | null {
  const sourceKey = source.dataDir ? path.join(source.dataDir, SECRET_KEY_FILE) : null;
  if (sourceKey && !existsSync(sourceKey)) return null;
  if (sourceKey && target.dataDir) {
    const targetKey = path.join(target.dataDir, SECRET_KEY_FILE);
    if (!existsSync(targetKey)) {
      copyFileSync(sourceKey, targetKey);
      return `The secret key ${sourceKey} was copied to ${targetKey}.`;
    }
    return `${targetKey} already exists and was kept: if it differs from ${sourceKey}, stored printer credentials cannot be opened.`;
  }
  if (sourceKey) return `Start every node with PRINTFARM_SECRET_KEY="$(cat ${sourceKey})": the printer credentials are sealed with it.`;
  if (parsed.to.engine === 'sqlite') return `Put the farm's PRINTFARM_SECRET_KEY into ${path.join(target.dataDir!, SECRET_KEY_FILE)} (or keep setting it) before starting the server.`;
  return 'Start the nodes of the target with the same PRINTFARM_SECRET_KEY as the source.';
}

export async function runDbCopy(parsed: DbCopyArgs, log: (line: string) => void = console.log): Promise<number> {
  const started = Date.now();
  const source = await openSource(parsed.from, { ignoreLock: parsed.ignoreLock });
  try {
    const target = await openTarget(parsed.to);
    try {
      log(`Copying ${describeEndpoint(parsed.from)} → ${describeEndpoint(parsed.to)}`);
      const result = await copyDatabase(source.handle, target.handle, { force: parsed.force });
      log(checksTable(result.checks));
      if (!result.ok) {
        log('The copy does NOT match its source (MISMATCH above): do not use the target.');
        return 1;
      }
      const files = await copyFiles(parsed, source, target);
      if (files) {
        log(`Files: ${files.copied} copied (${files.bytes} bytes), ${files.present} already there, ${files.missing.length} missing in the source.`);
        if (files.missing.length > 0) log(`  missing (their jobs cannot be printed again): ${files.missing.join(', ')}`);
      }
      const advice = secretKeyAdvice(parsed, source, target);
      if (advice) log(advice);
      const nodeId = carryNodeId(source, target);
      if (nodeId) log(nodeId);
      log(`Copied and verified ${result.checks.length} tables in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
      return 0;
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

export const dbCopyCommand: CliCommand = {
  name: 'db',
  usage: USAGE,
  run: async (args) => runDbCopy(parseDbCopyArgs(args)),
};
