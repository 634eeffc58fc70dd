// Runs `printfarm serve` (and npm) as real child processes for the serve tests: output capture, waits, temp dirs, cleanup.
import { after, type TestContext } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const MAIN = path.join(process.cwd(), 'src', 'main.ts');
/** A guard against a hung child, not a speed expectation: a start normally takes a second or two. */
export const HANG_GUARD_MS = 120_000;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServeProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout text matching `re` (accumulated output), rejects if the process ends first. */
  waitForOutput(re: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<Exit>;
}

const children = new Set<ChildProcess>();
const tempDirs: string[] = [];

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): ServeProcess {
  return runProcess(process.execPath, ['--import', 'tsx', MAIN, ...args], env);
}

export function runProcess(file: string, args: string[], env: NodeJS.ProcessEnv = {}, detached = false): ServeProcess {
  const child = spawn(file, args, {
    cwd: process.cwd(),
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForOutput(re) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const m = out.match(re);
          if (m) {
            cleanup();
            resolve(m);
          }
          return Boolean(m);
        };
        const onExit = (): void => {
          if (check()) return;
          cleanup();
          reject(new Error(`process ended before printing ${re}\nstdout: ${out}\nstderr: ${err}`));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${re} after ${HANG_GUARD_MS} ms\nstdout: ${out}\nstderr: ${err}`));
        }, HANG_GUARD_MS);
        const cleanup = (): void => {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.off('close', onExit);
        };
        if (check()) return;
        child.stdout!.on('data', check);
        child.once('close', onExit);
      });
    },
  };
}

/**
 * The test runner's own PRINTFARM_* settings must not leak into the child. mDNS is off (a test sends nothing beyond
 * 127.0.0.1: a started server would announce itself on the LAN); a test's own env may turn it back on.
 */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PRINTFARM_')) env[k] = v;
  env.PRINTFARM_MDNS = '0';
  return env;
}

export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'printfarm-serve-'));
  tempDirs.push(dir);
  return dir;
}

export const LISTENING = /listening on (http:\/\/[^\s]+) \(env (\w+), data dir ([^)]+)\)/;

export async function startServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ proc: ServeProcess; url: string }> {
  const proc = runCli(['serve', ...args], env);
  const m = await proc.waitForOutput(LISTENING);
  return { proc, url: m[1]! };
}

export async function stop(proc: ServeProcess): Promise<Exit> {
  proc.child.kill('SIGTERM');
  return proc.exited;
}

/** Collects what console.log prints during one test (the CLI's in-process output). */
export function captureLog(t: TestContext): string[] {
  const lines: string[] = [];
  t.mock.method(console, 'log', (...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  });
  return lines;
}

export const keyIn = (text: string): string | undefined => /\bsvc_(?:live|test|dev)_[A-Za-z0-9]{32,}\b/.exec(text)?.[0];

export function authTest(url: string, key: string): Promise<Response> {
  return fetch(`${url}/v1/auth/test`, { headers: { Authorization: `Bearer ${key}` } });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

after(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(tempDirs.map((d) => rm(d, { recursive: true, force: true })));
});

