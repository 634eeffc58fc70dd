// Starts a throw-away PostgreSQL cluster from Debian's postgresql package: initdb as an unprivileged user, listening only on
// a socket in a temporary directory, removed when stopped. Tests use it through pgAvailable()/startPgCluster().
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface PgCluster {
  /** The socket directory (also the host part of every URL). */
  socketDir: string;
  /** A connection URL for database `name` (default: the maintenance database `postgres`). */
  url(name?: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  dropDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}

/** The directory holding initdb and pg_ctl: Debian installs them per major version, off PATH. */
export function pgBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return path.join(root, versions[0]!, 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  return which.status === 0 ? path.dirname(which.stdout.trim()) : null;
}

/** Why PostgreSQL tests cannot run here, or null when they can. */
export function pgUnavailableReason(): string | null {
  const bin = pgBinDir();
  if (!bin) return 'PostgreSQL is not installed (Debian package `postgresql`; .ci/run installs it)';
  if (process.getuid?.() === 0 && !unprivilegedUser()) return 'running as root and no unprivileged user (postgres or nobody) to run initdb as';
  return null;
}

/** initdb refuses root: as root the cluster runs as the postgres user the Debian package creates (or nobody). */
function unprivilegedUser(): { uid: number; gid: number; name: string } | null {
  for (const name of ['postgres', 'nobody']) {
    const r = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const g = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (r.status === 0 && g.status === 0) return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()), name };
  }
  return null;
}

function run(bin: string, args: string[], as: { uid: number; gid: number } | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(as ? { uid: as.uid, gid: as.gid } : {}), env: { ...process.env, LC_ALL: 'C' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(bin)} ${args.join(' ')} exited ${code}: ${out.slice(-2000)}`))));
  });
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = pgBinDir();
  const reason = pgUnavailableReason();
  if (!bin || reason) throw new Error(reason ?? 'PostgreSQL is not installed');
  const as = process.getuid?.() === 0 ? unprivilegedUser() : null;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'printfarm-pg-'));
  chmodSync(dir, 0o755);
  if (as) chownSync(dir, as.uid, as.gid);
  const dataDir = path.join(dir, 'data');
  const user = 'printfarm';
  // C collation: text sorts byte by byte, as in SQLite, so ids and cursors order the same on both engines.
  await run(path.join(bin, 'initdb'), ['-D', dataDir, '-U', user, '-A', 'trust', '--locale=C', '-E', 'UTF8', '--no-sync'], as);
  const opts = `-c listen_addresses='' -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
  await run(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-o', opts, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start'], as);
  const url = (name = 'postgres'): string => `postgres://${user}@${encodeURIComponent(dir)}/${name}`;
  const admin = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ connectionString: url() });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  let stopped = false;
  return {
    socketDir: dir,
    url,
    async createDatabase(name) {
      await admin((c) => c.query(`CREATE DATABASE "${name}"`));
      return url(name);
    },
    async dropDatabase(name) {
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await run(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], as).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
