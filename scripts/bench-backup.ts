// `npm run bench:backup [-- --json] [-- --jobs N]`: a backup + restore round trip (the code `printfarm backup` and
// `printfarm restore` run) on a demo-sized farm and on one with N seeded jobs (default 100k): seconds for each step,
// archive and database sizes, and that the restored database holds the same jobs. A human table; with --json the
// last line is one JSON object.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBackup } from '../src/cli/backup.command.js';
import { runRestore } from '../src/cli/restore.command.js';
import { openDatabase } from '../src/storage/db.js';
import { seedJobHistory } from './seed-job-history.js';

const argv = process.argv.slice(2);
const JSON_OUT = argv.includes('--json');
const LARGE_JOBS = Number(argv[argv.indexOf('--jobs') + 1]) || 100_000;
const FROM = Date.parse('2025-01-01T00:00:00Z');
const TO = Date.parse('2026-01-01T00:00:00Z');
const log = (msg: string): void => void (JSON_OUT || console.error(msg));

interface Row {
  farm: string;
  jobs: number;
  database_mb: number;
  archive_mb: number;
  backup_s: number;
  restore_s: number;
  same_jobs: boolean;
}

const mb = (bytes: number): number => Math.round((bytes / 1e6) * 10) / 10;
const s = (ms: number): number => Math.round(ms) / 1000;

function jobCount(dataDir: string): number {
  const handle = openDatabase(path.join(dataDir, 'printfarm.sqlite'));
  try {
    return (handle.sqlite.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n;
  } finally {
    void handle.close();
  }
}

async function roundTrip(root: string, farm: string, jobs: number, printers: number): Promise<Row> {
  const source = path.join(root, `${farm}-source`);
  log(`${farm}: seeding ${jobs} jobs on ${printers} printers...`);
  const handle = openDatabase(path.join(source, 'printfarm.sqlite'), new Date(TO).toISOString());
  seedJobHistory(handle.sqlite, { jobs, printers, from: FROM, to: TO });
  await handle.close();
  writeFileSync(path.join(source, 'secret.key'), randomBytes(32).toString('base64') + '\n', { mode: 0o600 });

  log(`${farm}: backup...`);
  const archive = path.join(root, `${farm}.tar.gz`);
  const backup = await runBackup({ to: archive, dataDir: source, withFiles: false });
  log(`${farm}: restore...`);
  const target = path.join(root, `${farm}-restored`);
  const restore = await runRestore({ file: archive, dataDir: target, force: false });
  return {
    farm,
    jobs,
    database_mb: mb(backup.databaseBytes),
    archive_mb: mb(backup.bytes),
    backup_s: s(backup.ms),
    restore_s: s(restore.ms),
    same_jobs: jobCount(target) === jobs,
  };
}

const root = mkdtempSync(path.join(tmpdir(), 'printfarm-bench-backup-'));
try {
  const rows = [await roundTrip(root, 'demo', 200, 4), await roundTrip(root, 'large', LARGE_JOBS, 50)];
  const cols: Array<[keyof Row, string]> = [
    ['farm', 'farm'],
    ['jobs', 'jobs'],
    ['database_mb', 'database MB'],
    ['archive_mb', 'archive MB'],
    ['backup_s', 'backup s'],
    ['restore_s', 'restore s (verify + install)'],
    ['same_jobs', 'restored jobs match'],
  ];
  const lines = [
    'backup + restore round trip (printfarm backup / printfarm restore code paths, database and secret key)',
    '',
    cols.map(([, h]) => h.padStart(Math.max(h.length, 8))).join('  '),
    ...rows.map((r) => cols.map(([k, h]) => String(r[k]).padStart(Math.max(h.length, 8))).join('  ')),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (JSON_OUT) process.stdout.write(`${JSON.stringify({ rows, pass: rows.every((r) => r.same_jobs) })}\n`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
