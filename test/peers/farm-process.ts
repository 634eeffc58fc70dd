// The farm as a user runs it, for the peer tests: `printfarm serve` as a child process on a data directory of its own,
// driven only through /v1 over HTTP, killed with SIGKILL and started again on the same directory.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { JobRecord } from '../../src/jobs/job-record.js';
import type { PrinterRecord } from '../../src/printers/printer-record.js';
import { freePort, runCli, tempDir, LISTENING, type ServeProcess } from '../cli/serve-harness.js';

export interface Answer {
  status: number;
  // Tests read whatever the endpoint answers.
  body: any;
}

export class FarmProcess {
  private proc: ServeProcess | null = null;
  private base = '';
  private key = '';

  private constructor(
    readonly dataDir: string,
    private readonly port: number,
  ) {}

  static async start(): Promise<FarmProcess> {
    const farm = new FarmProcess(await tempDir(), await freePort());
    await farm.boot();
    farm.key = (await readFile(path.join(farm.dataDir, 'initial-admin-key.txt'), 'utf8')).match(/svc_live_[A-Za-z0-9]+/)![0];
    return farm;
  }

  private async boot(): Promise<void> {
    // One worker: the serial printers run on a worker thread as in production.
    this.proc = runCli(['serve', '--host', '127.0.0.1', '--port', String(this.port), '--data-dir', this.dataDir, '--workers', '1', '--no-mdns'], {
      PRINTFARM_LOG_LEVEL: process.env.PEER_FARM_LOG_LEVEL ?? 'info',
    });
    const m = await this.proc.waitForOutput(LISTENING);
    this.base = m[1]!;
  }

  /** The process dies at once (no shutdown, no last writes), then starts again on the same data directory. */
  async killAndRestart(): Promise<{ downMs: number }> {
    const t0 = performance.now();
    this.proc!.child.kill('SIGKILL');
    await this.proc!.exited;
    await this.boot();
    return { downMs: Math.round(performance.now() - t0) };
  }

  async stop(): Promise<void> {
    if (!this.proc) return;
    this.proc.child.kill('SIGTERM');
    await this.proc.exited;
    this.proc = null;
  }

  logs(): string {
    return `${this.proc?.stdout() ?? ''}\n${this.proc?.stderr() ?? ''}`;
  }

  async call(method: string, p: string, body?: unknown): Promise<Answer> {
    const res = await fetch(this.base + p, {
      method,
      headers: { Authorization: `Bearer ${this.key}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  async ok(method: string, p: string, body?: unknown, want = [200, 201, 202, 204]): Promise<any> {
    const a = await this.call(method, p, body);
    assert.ok(want.includes(a.status), `${method} ${p}: HTTP ${a.status} ${JSON.stringify(a.body)}`);
    return a.body;
  }

  printer(id: string): Promise<PrinterRecord> {
    return this.ok('GET', `/v1/printers/${id}`);
  }

  job(id: string): Promise<JobRecord> {
    return this.ok('GET', `/v1/jobs/${id}`);
  }

  /** POST /v1/jobs as multipart: the file plus text fields. Returns the new job's id. */
  async submit(content: string, fields: Record<string, string>, name = 'peer-test.gcode'): Promise<string> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([content]), name);
    const res = await fetch(`${this.base}/v1/jobs`, { method: 'POST', headers: { Authorization: `Bearer ${this.key}` }, body: form });
    const body = (await res.json()) as { data?: { id: string } };
    assert.equal(res.status, 201, JSON.stringify(body));
    return body.data!.id;
  }

  /** Polls `read` every 100 ms until `check` holds; fails with the last value read after `timeoutMs`. */
  async until<T>(what: string, read: () => Promise<T>, check: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
    const deadline = performance.now() + timeoutMs;
    let last: T | undefined;
    for (;;) {
      last = await read();
      if (check(last)) return last;
      if (performance.now() > deadline) throw new Error(`no ${what} after ${timeoutMs} ms; last: ${JSON.stringify(last)}\n--- farm log (tail) ---\n${this.logs().slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  untilPrinter(id: string, what: string, check: (p: PrinterRecord) => boolean, timeoutMs?: number): Promise<PrinterRecord> {
    return this.until(`printer ${what}`, () => this.printer(id), check, timeoutMs);
  }

  untilJob(id: string, what: string, check: (j: JobRecord) => boolean, timeoutMs?: number): Promise<JobRecord> {
    return this.until(`job ${what}`, () => this.job(id), check, timeoutMs);
  }

  /** Milliseconds from now until `check` holds on the job. */
  async timeJob(id: string, what: string, check: (j: JobRecord) => boolean, timeoutMs?: number): Promise<{ ms: number; job: JobRecord }> {
    const t0 = performance.now();
    const job = await this.untilJob(id, what, check, timeoutMs);
    return { ms: Math.round(performance.now() - t0), job };
  }
}
