// DATA_DIR/backups/: the names of the nightly and pre-migration archives, listing them newest first, and keeping the newest N.
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';

export const BACKUPS_DIR = 'backups';

export type BackupKind = 'nightly' | 'pre-migration';

export interface StoredBackup {
  file: string;
  kind: BackupKind;
  /** When it was taken, from its name (UTC). */
  takenMs: number;
}

const NAME = /^(nightly|pre-migration)(?:-v\d+)?-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.tar\.gz$/;

/** 2026-01-01T03:30:00.000Z → 20260101T033000Z: sortable, and valid in every file system. */
const stamp = (ms: number): string => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');

export const backupsFolder = (dataDir: string): string => path.join(dataDir, BACKUPS_DIR);

export function nightlyBackupPath(dataDir: string, nowMs: number): string {
  return path.join(backupsFolder(dataDir), `nightly-${stamp(nowMs)}.tar.gz`);
}

/** Named after the schema version it holds: the version a failed upgrade rolls back to. */
export function preMigrationBackupPath(dataDir: string, schemaVersion: number, nowMs: number): string {
  return path.join(backupsFolder(dataDir), `pre-migration-v${schemaVersion}-${stamp(nowMs)}.tar.gz`);
}

/** The archives in DATA_DIR/backups/ with names this program gives them, newest first. */
export async function listBackups(dataDir: string): Promise<StoredBackup[]> {
  let names: string[];
  try {
    names = await readdir(backupsFolder(dataDir));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: StoredBackup[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m) continue;
    const [, kind, y, mo, d, h, mi, s] = m;
    out.push({ file: path.join(backupsFolder(dataDir), name), kind: kind as BackupKind, takenMs: Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!) });
  }
  return out.sort((a, b) => b.takenMs - a.takenMs || b.file.localeCompare(a.file));
}

/** Removes all but the newest `keep` archives of one kind (the others are left alone). Returns the removed files. */
export async function pruneBackups(dataDir: string, kind: BackupKind, keep: number): Promise<string[]> {
  const old = (await listBackups(dataDir)).filter((b) => b.kind === kind).slice(Math.max(1, keep));
  for (const b of old) await rm(b.file, { force: true });
  return old.map((b) => b.file);
}

/** Removes all but the newest `keep` nightly archives; pre-migration ones are left alone. Returns the removed files. */
export function pruneNightly(dataDir: string, keep: number): Promise<string[]> {
  return pruneBackups(dataDir, 'nightly', keep);
}
