// Starts real `printfarm serve` processes as nodes of one farm on one PostgreSQL database, for the several-boxes tests
// and the bench:nodes benchmark: each its own data directory, port and name, all with the same secret key.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freeTcpPort } from './free-tcp-port.js';

const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');

export interface NodeProcess {
  name: string;
  port: number;
  url: string;
  dataDir: string;
  child: ChildProcess;
  /** Everything the process printed (stdout and stderr), for failure messages. */
  output(): string;
  /** Resolves when the process has ended. */
  exited: Promise<number | null>;
  /** SIGKILL: the box loses power. */
  kill(): Promise<void>;
  /** SIGTERM and wait: a clean stop. */
  stop(): Promise<void>;
}

/** A secret key shared by every node of one farm (PRINTFARM_SECRET_KEY). */
export const newSecretKey = (): string => randomBytes(32).toString('base64');

export async function startNodeProcess(o: {
  name: string;
  /** A postgres:// URL; absent: SQLite in the node's data directory (a farm of one box). */
  databaseUrl?: string;
  secretKey: string;
  dataDir?: string;
  port?: number;
  extraEnv?: Record<string, string>;
  startTimeoutMs?: number;
}): Promise<NodeProcess> {
  const port = o.port ?? (await freeTcpPort());
  const dataDir = o.dataDir ?? mkdtempSync(path.join(os.tmpdir(), `printfarm-${o.name}-`));
  const url = `http://127.0.0.1:${port}`;
  const args = ['--import', 'tsx', MAIN, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data-dir', dataDir,
    ...(o.databaseUrl ? ['--database', o.databaseUrl] : []), '--node-name', o.name, '--node-address', url, '--no-mdns', '--workers', '0'];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PRINTFARM_SECRET_KEY: o.secretKey, PRINTFARM_LOG_LEVEL: 'warn', ...o.extraEnv },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let ended = false;
  void exited.then(() => (ended = true));
  const end = Date.now() + (o.startTimeoutMs ?? 60_000);
  for (;;) {
    if (ended) throw new Error(`node ${o.name} exited while starting:\n${out.slice(-3000)}`);
    try {
      const res = await fetch(url + '/healthz');
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`node ${o.name} did not answer /healthz within the start timeout:\n${out.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name: o.name,
    port,
    url,
    dataDir,
    child,
    output: () => out,
    exited,
    async kill() {
      if (!ended) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!ended) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The admin key the first node wrote into its data directory; exactly one node must have it. */
export function initialAdminKey(nodes: readonly NodeProcess[]): { key: string; holders: string[] } {
  const holders = nodes.filter((n) => existsSync(path.join(n.dataDir, 'initial-admin-key.txt')));
  const text = holders.length > 0 ? readFileSync(path.join(holders[0]!.dataDir, 'initial-admin-key.txt'), 'utf8') : '';
  return { key: text.trim(), holders: holders.map((n) => n.name) };
}

export function removeDataDirs(nodes: readonly NodeProcess[]): void {
  for (const n of nodes) rmSync(n.dataDir, { recursive: true, force: true });
}
