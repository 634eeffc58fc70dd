// `npm run bench:api [-- --json] [-- --quick] [-- --workers N]`: the API under a streaming farm — p50/p99 of list and
// get endpoints while 50 printers (simulated in a child process, over tcp://) stream jobs (their sessions in N worker
// threads, the server's default cores - 1 unless given; 0 keeps them on the main thread), job creations per second, and the resident memory
// growth of a 200 MB multipart upload through POST /v1/jobs. With --json the last line is one JSON object.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultWorkers, MAX_WORKERS } from '../src/config.js';
import { silentLogger } from '../src/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import { spawnSimulators } from './bench/simulators.js';
import { printResultsTable, type ResultRow } from './bench/results-table.js';

const argv = process.argv.slice(2);
const JSON_OUT = argv.includes('--json');
const QUICK = argv.includes('--quick');
const PRINTERS = QUICK ? 10 : 50;
const WINDOW_S = QUICK ? 4 : 15;
const CREATES = QUICK ? 50 : 300;
const UPLOAD_MB = QUICK ? 50 : 200;
const workersAt = argv.indexOf('--workers');
const WORKERS = workersAt === -1 ? defaultWorkers() : Number(argv[workersAt + 1]);
if (!Number.isInteger(WORKERS) || WORKERS < 0 || WORKERS > MAX_WORKERS) {
  console.error(`bench-api: --workers expects a whole number from 0 to ${MAX_WORKERS}`);
  process.exit(2);
}

const log = (msg: string): void => void (JSON_OUT || console.error(msg));

async function call(server: RunningServer, key: string, method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + p, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

async function upload(server: RunningServer, key: string, content: string, fields: Record<string, string>): Promise<any> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([content]), 'bench.gcode');
  const res = await fetch(`${server.url}/v1/jobs`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`job create answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Long enough to stream through the whole window: short moves paced by the simulated planner. */
function streamingGcode(lines: number): string {
  const out = ['G90', 'G1 X10 Y10 Z0.2 F3000'];
  for (let i = 0; i < lines; i++) out.push(`G1 X${(10 + (i % 60) * 0.1667).toFixed(4)} Y10 F3000`);
  return out.join('\n') + '\n';
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (n: number, d = 2): number => Number(n.toFixed(d));

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const dir = await mkdtemp(path.join(tmpdir(), 'pf-bench-api-'));
const sims = await spawnSimulators(PRINTERS, []);
const server = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir, env: 'live', workers: WORKERS }, { logger: silentLogger, shutdownGraceMs: 1000 });
try {
  const key = server.initialAdminKey!;
  log(`adding ${PRINTERS} printers over tcp://127.0.0.1 ...`);
  const printerIds: string[] = [];
  for (const port of sims.ports) {
    const res = await call(server, key, 'POST', '/v1/printers', { name: `bench ${port}`, connection_url: `tcp://127.0.0.1:${port}`, group: 'bench' });
    if (res.status !== 201) throw new Error(`printer create answered ${res.status}: ${JSON.stringify(res.body)}`);
    printerIds.push(res.body.id);
  }
  await until('every printer idle', async () => (await call(server, key, 'GET', '/v1/printers?status=idle&per_page=1')).body.pagination.total === PRINTERS, 60_000);

  log('one streaming job per printer (copies spread across the farm) ...');
  const batch = await upload(server, key, streamingGcode(Math.round(300 * (WINDOW_S + 20))), { copies: String(PRINTERS), group: 'bench' });
  const jobIds: string[] = batch.data.job_ids;
  await until('every printer printing', async () => (await call(server, key, 'GET', '/v1/printers?status=printing&per_page=1')).body.pagination.total === PRINTERS, 60_000);

  log(`timing list and get requests for ${WINDOW_S} s while ${PRINTERS} printers stream ...`);
  const list: number[] = [];
  const get: number[] = [];
  const endAt = performance.now() + WINDOW_S * 1000;
  let i = 0;
  while (performance.now() < endAt) {
    const which = i++ % 4;
    const p =
      which === 0 ? '/v1/printers?per_page=50' : which === 1 ? '/v1/jobs?per_page=50' : which === 2 ? `/v1/printers/${printerIds[i % PRINTERS]}` : `/v1/jobs/${jobIds[i % PRINTERS]}`;
    const t0 = performance.now();
    const res = await fetch(server.url + p, { headers: { Authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${p} answered ${res.status}`);
    (which < 2 ? list : get).push(ms);
  }
  const streaming = (await call(server, key, 'GET', '/v1/printers?status=printing&per_page=1')).body.pagination.total;
  list.sort((a, b) => a - b);
  get.sort((a, b) => a - b);

  log(`creating ${CREATES} jobs (multipart, queued behind the busy farm) ...`);
  const small = streamingGcode(200);
  const c0 = performance.now();
  for (let n = 0; n < CREATES; n++) await upload(server, key, small, { group: 'bench', priority: 'low' });
  const createsPerS = CREATES / ((performance.now() - c0) / 1000);

  // Stop the streaming before the upload so it is measured alone.
  for (const id of jobIds) await call(server, key, 'DELETE', `/v1/jobs/${id}`);
  log(`uploading ${UPLOAD_MB} MB through POST /v1/jobs ...`);
  global.gc?.();
  const baseRss = process.memoryUsage().rss;
  let peakRss = baseRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const u0 = performance.now();
  // The client runs in its own process: only the server's memory is measured here.
  const client = spawn(process.execPath, ['--import', 'tsx', path.resolve('scripts/bench/upload-client.ts'), `${server.url}/v1/jobs`, String(UPLOAD_MB)], {
    env: { ...process.env, PRINTFARM_BENCH_KEY: key },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  client.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  client.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  await new Promise<void>((resolve) => client.once('exit', () => resolve()));
  const uploadS = (performance.now() - u0) / 1000;
  clearInterval(sampler);
  const answer = JSON.parse(out.trim().split('\n').at(-1) || '{}') as { status?: number };
  if (answer.status !== 201) throw new Error(`upload answered ${answer.status}: ${out}`);

  const result = {
    printers: PRINTERS,
    workers: WORKERS,
    printers_streaming: streaming,
    window_s: WINDOW_S,
    list_requests: list.length,
    list_p50_ms: round(pct(list, 50)),
    list_p99_ms: round(pct(list, 99)),
    get_requests: get.length,
    get_p50_ms: round(pct(get, 50)),
    get_p99_ms: round(pct(get, 99)),
    job_creates_per_s: round(createsPerS, 1),
    upload_mb: UPLOAD_MB,
    upload_s: round(uploadS, 1),
    upload_rss_growth_mb: round((peakRss - baseRss) / 1024 / 1024, 1),
  };
  const rows: ResultRow[] = [
    ['list p50 / p99', `${result.list_p50_ms} / ${result.list_p99_ms} ms (${list.length} requests)`, 'p99 <= 10 ms'],
    ['get p50 / p99', `${result.get_p50_ms} / ${result.get_p99_ms} ms (${get.length} requests)`, 'p99 <= 10 ms'],
    ['while streaming', `${streaming} of ${PRINTERS} printers printing, sessions in ${WORKERS === 0 ? 'the main thread' : `${WORKERS} worker thread(s)`}`, `${PRINTERS}`],
    ['job creates', `${result.job_creates_per_s} /s (multipart, ${CREATES} sequential)`, '-'],
    ['upload rss growth', `+${result.upload_rss_growth_mb} MB for ${UPLOAD_MB} MB in ${result.upload_s} s`, '<= 50 MB'],
  ];
  printResultsTable(rows);
  if (JSON_OUT) console.log(JSON.stringify(result));
} finally {
  await server.close();
  await sims.stop();
  await rm(dir, { recursive: true, force: true });
}
