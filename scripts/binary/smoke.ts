// Starts a built binary copied alone into an empty dir, with no Node reachable, and checks /healthz and /v1/auth/test (arm64 under qemu-user).
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Arch } from './targets.js';

/** qemu's ELF loader looks for aarch64's ld.so and libc here (Debian's libc6-arm64-cross). */
export const ARM64_SYSROOT = '/usr/aarch64-linux-gnu';
export const QEMU_AARCH64 = '/usr/bin/qemu-aarch64-static';

/** A PATH that holds nothing, so neither `node` nor anything else can be found through it. */
const EMPTY_PATH = '/nonexistent/printfarm-smoke';

export interface SmokeResult {
  sizeBytes: number;
  /** Spawn to the first 200 from /healthz, on a first start (empty data dir, addons not yet extracted). */
  startupMs: number;
  nodeOnPath: boolean;
  healthzStatus: number;
  healthzBody: string;
  keyFound: boolean;
  authWithKeyStatus: number;
  authWithoutKeyStatus: number;
  /** GET /docs (the API reference page, embedded like the dashboard) and the renderer script it loads. */
  docsStatus: number;
  docsScriptStatus: number;
  /** A sim:// printer added and a job printed on it with the sessions in a worker thread (--workers 1): its final status. */
  jobStatus: string;
  exitCode: number | null;
  output: string;
}

export interface SmokeOptions {
  /** Longest wait for the first answer; qemu emulation is slow. */
  startTimeoutMs?: number;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: await res.text() };
}

function waitForExit(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** How to start `binary` with `args`: directly on x64, through qemu-user for arm64. */
function commandFor(binary: string, arch: Arch, args: string[]): [string, string[]] {
  return arch === 'x64' ? [binary, args] : [QEMU_AARCH64, ['-L', ARM64_SYSROOT, binary, ...args]];
}

/**
 * The environment a bare service manager would give: no Node, no node_modules, the addon cache inside `dir`; no mDNS
 * (the smoke test runs in `npm test`, which sends nothing beyond 127.0.0.1).
 */
function bareEnv(dir: string): NodeJS.ProcessEnv {
  return { PATH: EMPTY_PATH, HOME: dir, XDG_CACHE_HOME: path.join(dir, 'cache'), LANG: 'C', PRINTFARM_MDNS: '0' };
}

/** Runs `printfarm doctor` from a copy in an empty dir: it loads both addons and reads the embedded files. */
export async function doctorBinary(binary: string, arch: Arch): Promise<{ exitCode: number; output: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `printfarm-doctor-${arch}-`));
  try {
    const copy = path.join(dir, path.basename(binary));
    copyFileSync(binary, copy);
    const [command, args] = commandFor(copy, arch, ['doctor']);
    return await new Promise((resolve) => {
      execFile(command, args, { cwd: dir, env: bareEnv(dir), timeout: 300_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ exitCode: code, output: `${stdout}${stderr}` });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Adds a fast sim:// printer, uploads a small file for it, and waits for the job to end; returns its status. */
async function printOneJob(base: string, key: string, timeoutMs: number): Promise<string> {
  const auth = { Authorization: `Bearer ${key}` };
  const printer = await fetch(`${base}/v1/printers`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'smoke', connection_url: 'sim://smoke?speed=max' }),
  });
  if (printer.status !== 201) return `printer create answered ${printer.status}: ${await printer.text()}`;
  const printerId = ((await printer.json()) as { id: string }).id;
  const lines = ['G90', 'M83', ...Array.from({ length: 50 }, (_, i) => `G1 X${10 + (i % 2)} Y10 E0.05 F1200`)];
  const form = new FormData();
  form.append('printer_id', printerId);
  form.append('file', new Blob([lines.join('\n') + '\n']), 'smoke.gcode');
  const created = await fetch(`${base}/v1/jobs`, { method: 'POST', headers: auth, body: form });
  if (created.status !== 201) return `job create answered ${created.status}: ${await created.text()}`;
  const jobId = ((await created.json()) as { data: { id: string } }).data.id;
  const end = performance.now() + timeoutMs;
  let status = 'unknown';
  while (performance.now() < end) {
    status = (JSON.parse((await get(`${base}/v1/jobs/${jobId}`, auth)).body) as { status: string }).status;
    if (status === 'completed' || status === 'failed' || status === 'cancelled') return status;
    await new Promise((r) => setTimeout(r, 100));
  }
  return `still ${status} after ${timeoutMs} ms`;
}

export async function smokeBinary(binary: string, arch: Arch, options: SmokeOptions = {}): Promise<SmokeResult> {
  const startTimeoutMs = options.startTimeoutMs ?? (arch === 'x64' ? 60_000 : 300_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), `printfarm-smoke-${arch}-`));
  let child: ChildProcess | undefined;
  const output: string[] = [];
  try {
    const copy = path.join(dir, path.basename(binary));
    copyFileSync(binary, copy);
    const env = bareEnv(dir);
    const nodeOnPath = spawnSync('/bin/sh', ['-c', 'command -v node'], { env, cwd: dir }).status === 0;

    const port = await freePort();
    // Sessions in a worker thread: the bundle must start itself as a worker inside the binary.
    const serveArgs = ['serve', '--host', '127.0.0.1', '--port', String(port), '--data-dir', './data', '--workers', '1'];
    const [command, args] = commandFor(copy, arch, serveArgs);
    const started = performance.now();
    child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (b: Buffer) => output.push(b.toString()));
    child.stderr!.on('data', (b: Buffer) => output.push(b.toString()));
    const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
    let exitedEarly = false;
    void exited.then(() => {
      exitedEarly = true;
    });

    const base = `http://127.0.0.1:${port}`;
    let healthz: { status: number; body: string } | undefined;
    while (!healthz) {
      if (exitedEarly) throw new Error(`the binary exited before answering (status ${child.exitCode}):\n${output.join('')}`);
      if (performance.now() - started > startTimeoutMs) throw new Error(`no answer on ${base}/healthz within ${startTimeoutMs} ms:\n${output.join('')}`);
      try {
        const res = await get(`${base}/healthz`);
        if (res.status === 200) healthz = res;
      } catch {
        // Not listening yet.
      }
      if (!healthz) await new Promise((r) => setTimeout(r, 25));
    }
    const startupMs = performance.now() - started;

    let key = '';
    try {
      key = readFileSync(path.join(dir, 'data', 'initial-admin-key.txt'), 'utf8').trim();
    } catch {
      key = '';
    }
    const withKey = key ? await get(`${base}/v1/auth/test`, { Authorization: `Bearer ${key}` }) : { status: 0 };
    const withoutKey = await get(`${base}/v1/auth/test`);
    const docs = await get(`${base}/docs`);
    const script = /<script src="(\/assets\/[^"]+\.js)"/.exec(docs.body)?.[1];
    const docsScript = script ? await get(`${base}${script}`) : { status: 0 };
    const jobStatus = key ? await printOneJob(base, key, startTimeoutMs) : 'no key';

    child.kill('SIGTERM');
    const exitCode = await waitForExit(child, 15_000);
    return {
      sizeBytes: statSync(binary).size,
      startupMs,
      nodeOnPath,
      healthzStatus: healthz.status,
      healthzBody: healthz.body,
      keyFound: key !== '',
      authWithKeyStatus: withKey.status,
      authWithoutKeyStatus: withoutKey.status,
      docsStatus: docs.status,
      docsScriptStatus: docsScript.status,
      jobStatus,
      exitCode,
      output: output.join(''),
    };
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await waitForExit(child, 5_000);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
