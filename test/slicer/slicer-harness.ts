// A farm for slicer-upload tests: the real app on a real database, an admin key, a slicer key made the way the
// dashboard makes it, two offline printers in a group (so jobs stay queued), and counters proving nothing was stored.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';

export interface SlicerFarm {
  app: TestApp;
  admin: string;
  /** A key with only slicer:upload, made by POST /v1/slicer/keys. */
  key: string;
  /** Its display prefix: the Digest user name. */
  prefix: string;
  /** What the farm holds: file rows, job rows, and half-written files under the data directory. */
  holdings(): Promise<{ files: number; jobs: number; partFiles: number }>;
  jobs(): Promise<any[]>;
  close(): Promise<void>;
}

function partFilesUnder(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) n += partFilesUnder(p);
    else if (name.endsWith('.part')) n++;
  }
  return n;
}

export async function startSlicerFarm(): Promise<SlicerFarm> {
  const app = await startTestApp();
  const admin = await mintTestKey(app);
  // Offline printers (no such serial device): groups and names exist, nothing starts.
  for (const [name, group] of [['prusa-1', 'bay-1'], ['prusa-2', 'bay-1'], ['voron', null]] as const) {
    const res = await app.request('/v1/printers', {
      method: 'POST',
      headers: bearer(admin, true),
      body: JSON.stringify({ name, connection_url: `serial:///dev/printfarm-test-absent-${name}`, ...(group ? { group } : {}) }),
    });
    if (res.status !== 201) throw new Error(`printer ${name}: ${res.status} ${await res.text()}`);
  }
  const made = await app.request('/v1/slicer/keys', { method: 'POST', headers: bearer(admin, true), body: '{}' });
  const data = ((await made.json()) as { data: { key: string; prefix: string } }).data;
  const jobs = async () => ((await (await app.request('/v1/jobs?per_page=100', { headers: bearer(admin) })).json()) as { data: any[] }).data;
  return {
    app,
    admin,
    key: data.key,
    prefix: data.prefix,
    jobs,
    async holdings() {
      const files = await app.deps.db.selectFrom('files').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const jobRows = await app.deps.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return { files: Number(files.n), jobs: Number(jobRows.n), partFiles: partFilesUnder(app.deps.dataDir) };
    },
    close: () => app.close(),
  };
}

export interface CurlResult {
  code: number;
  status: number;
  headers: string;
  body: string;
  /** Bytes of request body curl sent (%{size_upload}). */
  uploaded: number;
}

/** Whether the curl program (Debian's libcurl, the one Debian's PrusaSlicer links) is installed. */
export function hasCurl(): boolean {
  return spawnSync('curl', ['--version']).status === 0;
}

/** Runs the curl program: libcurl's own multipart, Digest and Expect: 100-continue, as PrusaSlicer's Http.cpp uses them. */
export function curl(args: string[]): Promise<CurlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', ['-sS', '-D', '-', '-w', '\n%{http_code} %{size_upload}', ...args]);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const tail = out.lastIndexOf('\n');
      const [status, uploaded] = out.slice(tail + 1).split(' ').map(Number) as [number, number];
      const rest = out.slice(0, tail);
      // -D - writes every response's headers (a 401 challenge, 100 Continue) before the final body.
      const split = rest.lastIndexOf('\r\n\r\n');
      resolve({ code: code ?? -1, status, uploaded, headers: rest.slice(0, split), body: rest.slice(split + 4) + (err ? `\n[stderr] ${err}` : '') });
    });
  });
}
