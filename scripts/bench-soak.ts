// `npm run bench:soak -- [--minutes 30] [--printers 8] [--sample-s 60] [--record] [--json]`: the server left printing.
// Half the printers are in-process virtual printers (sim://), half run in a `printfarm simulate --tcp` child (tcp://),
// all at full speed (speed=max: moves take no time, the 250000 baud wire paces the stream); the queue is kept full and
// a webhook receiver on 127.0.0.1 takes every event. The server runs in its own process with --expose-gc; every
// sample it reports RSS and heap used after a full collection, with the data directory's size, jobs done and the p95 of
// the API calls made meanwhile. --record gives the virtual printers the full command record (the old default), to
// compare. Human table; with --json the last line is one JSON object:
// { minutes, printers, jobs, rss_start_mb, rss_end_mb, rss_max_mb, rss_slope_mb_per_h, heap_slope_mb_per_h,
//   data_dir_mb, webhook_requests, api_p95_ms, record, targets: { rss_slope_mb_per_h, rss_max_mb }, pass, samples }
// The slopes are least-squares fits over the second half of the samples (the first half is the warm-up).
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawnSimulators, type SimChild } from './bench/simulators.js';

const USAGE = 'known: --minutes M, --printers N (even), --sample-s S, --record, --json';
const argv = process.argv.slice(2);
const valueOf = (name: string, fallback: number): number => {
  const i = argv.indexOf(name);
  return i < 0 ? fallback : Number(argv[i + 1]);
};
for (const [i, a] of argv.entries()) {
  const isValue = i > 0 && ['--minutes', '--printers', '--sample-s'].includes(argv[i - 1]!);
  if (!isValue && !['--json', '--record', '--minutes', '--printers', '--sample-s'].includes(a)) {
    process.stderr.write(`bench-soak: unknown argument ${a} (${USAGE})\n`);
    process.exit(2);
  }
}
const JSON_OUT = argv.includes('--json');
const RECORD = argv.includes('--record');
const MINUTES = valueOf('--minutes', 30);
const PRINTERS = valueOf('--printers', 8);
const SAMPLE_S = valueOf('--sample-s', 60);
if (!(MINUTES > 0 && MINUTES <= 24 * 60) || !Number.isInteger(PRINTERS) || PRINTERS < 2 || PRINTERS % 2 !== 0 || PRINTERS > 100) {
  process.stderr.write(`bench-soak: --minutes takes a number > 0, --printers an even integer from 2 to 100 (${USAGE})\n`);
  process.exit(2);
}
if (!(SAMPLE_S >= 5 && SAMPLE_S <= 3600)) {
  process.stderr.write('bench-soak: --sample-s takes a number of seconds from 5 to 3600\n');
  process.exit(2);
}
const TARGETS = { rss_slope_mb_per_h: 20, rss_max_mb: 300 };
/** Lines a job streams: a few seconds at 250000 baud, so a job ends every few seconds on each printer. */
const JOB_MOVES = 2000;
/** The queue is topped up to this many waiting jobs per printer whenever it falls below half of it. */
const QUEUE_PER_PRINTER = 3;

const progress = (msg: string): void => void process.stderr.write(`[bench] ${msg}\n`);
const mb = (bytes: number): number => Number((bytes / 1024 / 1024).toFixed(1));
const round = (n: number, d = 1): number => Number(n.toFixed(d));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

function p95(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(0.95 * s.length))]!;
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await dirBytes(p);
    else total += await stat(p).then((s) => s.size, () => 0);
  }
  return total;
}

async function processRss(pid: number): Promise<number | null> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => null);
  const m = status === null ? null : /^VmRSS:\s+(\d+) kB/m.exec(status);
  return m === null ? null : Number(m[1]) * 1024;
}

function gcode(moves: number): string {
  const out = ['G90', 'M83', 'G1 X10 Y10 Z0.2 F3000'];
  for (let i = 0; i < moves; i++) out.push(`G1 X${(10 + (i % 60) * 0.1667).toFixed(4)} Y${10 + (i % 7)} E0.02 F3000`);
  return out.join('\n') + '\n';
}

/** The server in a child with --expose-gc; memory is read through its IPC channel. */
interface ServerChild {
  url: string;
  key: string;
  pid: number;
  memory(): Promise<{ rss: number; heapUsed: number }>;
  stop(): Promise<void>;
}

async function startServerChild(dataDir: string): Promise<ServerChild> {
  const child = fork(path.resolve('scripts/bench/soak-server.ts'), [dataDir], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const killNow = (): void => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  process.on('exit', killNow);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const next = (kind: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const onMessage = (m: any): void => {
        if (m?.kind !== kind) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m);
      };
      const onExit = (code: number | null): void => {
        child.off('message', onMessage);
        reject(new Error(`the server process exited (${code}) while waiting for ${kind}`));
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ready = await next('ready');
  return {
    url: ready.url,
    key: ready.key,
    pid: child.pid!,
    memory: async () => {
      const reply = next('sample');
      child.send({ kind: 'sample' });
      const m = await reply;
      return { rss: m.rss, heapUsed: m.heapUsed };
    },
    stop: async () => {
      if (child.connected) child.send({ kind: 'stop' });
      const force = setTimeout(killNow, 5000);
      await exited;
      clearTimeout(force);
      process.off('exit', killNow);
    },
  };
}

/** Counts what the server delivers; answers 204 at once. */
async function startReceiver(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, requests: () => requests, close: () => new Promise((r) => server.close(() => r())) };
}

const dir = await mkdtemp(path.join(tmpdir(), 'pf-bench-soak-'));
const dataDir = path.join(dir, 'data');
const receiver = await startReceiver();
const tcpCount = PRINTERS / 2;
progress(`${tcpCount} tcp:// printers in a printfarm simulate child, ${PRINTERS - tcpCount} sim:// in the server${RECORD ? ', full command record' : ''}`);
const sims: SimChild = await spawnSimulators(tcpCount, ['--speed', 'max', ...(RECORD ? ['--record', '1'] : [])]);
const server = await startServerChild(dataDir);
/** Latencies (ms) of the API calls since the last sample. */
let latencies: number[] = [];

async function api(method: string, p: string, body?: unknown): Promise<any> {
  const t0 = performance.now();
  const res = await fetch(server.url + p, {
    method,
    headers: { Authorization: `Bearer ${server.key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  latencies.push(performance.now() - t0);
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text === '' ? null : JSON.parse(text);
}

async function total(p: string): Promise<number> {
  return (await api('GET', p)).pagination.total as number;
}

const file = gcode(JOB_MOVES);
async function queueJobs(copies: number): Promise<void> {
  const form = new FormData();
  form.set('file', new Blob([file]), 'soak.gcode');
  form.set('copies', String(copies));
  const t0 = performance.now();
  const res = await fetch(`${server.url}/v1/jobs`, { method: 'POST', headers: { Authorization: `Bearer ${server.key}` }, body: form });
  latencies.push(performance.now() - t0);
  if (res.status !== 201) throw new Error(`POST /v1/jobs: ${res.status} ${await res.text()}`);
}

interface Sample {
  minute: number;
  rss_mb: number;
  heap_mb: number;
  sim_child_rss_mb: number | null;
  data_dir_mb: number;
  jobs: number;
  api_p95_ms: number;
}
const samples: Sample[] = [];
let stopping = false;

try {
  await api('PATCH', '/v1/organization', { auto_start: true });
  await api('POST', '/v1/webhooks', { url: receiver.url, events: ['*'] });
  const query = `speed=max${RECORD ? '&record=1' : ''}`;
  for (let i = 0; i < PRINTERS - tcpCount; i++) {
    await api('POST', '/v1/printers', { name: `soak sim ${i + 1}`, connection_url: `sim://soak${i + 1}?${query}` });
  }
  for (const port of sims.ports) await api('POST', '/v1/printers', { name: `soak tcp ${port}`, connection_url: `tcp://127.0.0.1:${port}` });
  const idleBy = performance.now() + 60_000;
  while ((await total('/v1/printers?status=idle&per_page=1')) < PRINTERS) {
    if (performance.now() > idleBy) throw new Error('not every printer came up idle within 60 s');
    await sleep(200);
  }
  progress(`every printer idle; soaking for ${MINUTES} min, a sample every ${SAMPLE_S} s`);

  // The load: keep the queue full, and read the farm as a dashboard would, once a second.
  const load = (async () => {
    while (!stopping) {
      const queued = await total('/v1/jobs?status=queued&per_page=1');
      if (queued < (PRINTERS * QUEUE_PER_PRINTER) / 2) await queueJobs(Math.min(100, PRINTERS * QUEUE_PER_PRINTER - queued));
      await api('GET', '/v1/printers?per_page=100');
      await api('GET', '/v1/jobs?per_page=20&sort=-created_at');
      await sleep(1000);
    }
  })();

  const t0 = performance.now();
  const take = async (): Promise<void> => {
    const m = await server.memory();
    const simRss = await processRss(sims.pid);
    const s: Sample = {
      minute: round((performance.now() - t0) / 60_000, 2),
      rss_mb: mb(m.rss),
      heap_mb: mb(m.heapUsed),
      sim_child_rss_mb: simRss === null ? null : mb(simRss),
      data_dir_mb: mb(await dirBytes(dataDir)),
      jobs: await total('/v1/jobs?status=completed&per_page=1'),
      api_p95_ms: round(p95(latencies)),
    };
    latencies = [];
    samples.push(s);
    progress(`${s.minute} min: rss ${s.rss_mb} MB, heap ${s.heap_mb} MB, simulate child ${s.sim_child_rss_mb ?? '-'} MB, data ${s.data_dir_mb} MB, ${s.jobs} jobs, API p95 ${s.api_p95_ms} ms`);
  };
  await take();
  const end = t0 + MINUTES * 60_000;
  while (performance.now() < end) {
    await sleep(Math.min(SAMPLE_S * 1000, Math.max(0, end - performance.now())));
    await take();
  }
  stopping = true;
  await load;
} finally {
  stopping = true;
  await server.stop();
  await sims.stop();
  await receiver.close();
}

const second = samples.slice(Math.floor(samples.length / 2));
const hours = second.map((s) => s.minute / 60);
const rssSlope = slope(hours, second.map((s) => s.rss_mb));
const heapSlope = slope(hours, second.map((s) => s.heap_mb));
const first = samples[0]!;
const last = samples.at(-1)!;
const rssMax = Math.max(...samples.map((s) => s.rss_mb));
const result = {
  minutes: MINUTES,
  printers: PRINTERS,
  jobs: last.jobs,
  rss_start_mb: first.rss_mb,
  rss_end_mb: last.rss_mb,
  rss_max_mb: rssMax,
  rss_slope_mb_per_h: round(rssSlope),
  heap_slope_mb_per_h: round(heapSlope),
  data_dir_mb: last.data_dir_mb,
  webhook_requests: receiver.requests(),
  api_p95_ms: round(p95(samples.map((s) => s.api_p95_ms))),
  record: RECORD,
  targets: TARGETS,
  pass: Math.abs(rssSlope) <= TARGETS.rss_slope_mb_per_h && rssMax < TARGETS.rss_max_mb,
  samples,
};

const cols = ['minute', 'rss MB', 'heap MB', 'sim child MB', 'data MB', 'jobs', 'API p95 ms'];
const rows = samples.map((s) => [s.minute, s.rss_mb, s.heap_mb, s.sim_child_rss_mb ?? '-', s.data_dir_mb, s.jobs, s.api_p95_ms].map(String));
const widths = cols.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
const line = (r: string[]): string => r.map((v, i) => v.padStart(widths[i]!)).join('  ');
console.log(`soak: ${PRINTERS} printers (${PRINTERS - tcpCount} sim://, ${tcpCount} tcp://) for ${MINUTES} min${RECORD ? ', full command record' : ''}`);
console.log(line(cols));
for (const r of rows) console.log(line(r));
console.log(
  `jobs ${result.jobs}, webhook requests ${result.webhook_requests}; RSS ${result.rss_start_mb} -> ${result.rss_end_mb} MB (max ${rssMax}, target < ${TARGETS.rss_max_mb}); ` +
    `second-half slope RSS ${result.rss_slope_mb_per_h} MB/h, heap ${result.heap_slope_mb_per_h} MB/h (target within ±${TARGETS.rss_slope_mb_per_h}): ${result.pass ? 'PASS' : 'FAIL'}`,
);
if (JSON_OUT) console.log(JSON.stringify(result));
await rm(dir, { recursive: true, force: true });
