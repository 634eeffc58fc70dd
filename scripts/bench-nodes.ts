// `npm run bench:nodes [-- --json] [--quick]`: several appliances on one PostgreSQL database (real `printfarm serve`
// processes on a throw-away cluster, simulated printers at full speed). For 1, 2 and 3 nodes: jobs claimed per second
// under a burst, and the p99 from queued to started when a printer is free (a job queued on one node, started by
// whichever node owns the free printer: the cross-node wake-up included); and the API p99 on each engine (one node on
// SQLite, one on PostgreSQL, printers streaming); and the cost per job of a bulk insert on each engine (2,000 jobs in
// one INSERT on a farm holding 2,000, roll-up triggers included; the median of 3 fresh databases). Human table; with
// --json the last line is one JSON object: { nodes: [1,2,3], claims_per_s: [...], queue_to_start_p99_ms: [...],
// api_p99_ms: { sqlite, postgres }, bulk_insert_ms_per_job: { sqlite, postgres }, jobs, printers_per_node }
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../src/storage/db.js';
import { openPostgres } from '../src/storage/open-postgres.js';
import { bulkInsertMsPerJob } from './bench/bulk-insert.js';
import { pgUnavailableReason, startPgCluster } from '../test/helpers/pg-cluster.js';
import { initialAdminKey, newSecretKey, removeDataDirs, startNodeProcess, type NodeProcess } from '../test/helpers/node-processes.js';

const argv = process.argv.slice(2);
const JSON_OUT = argv.includes('--json');
const QUICK = argv.includes('--quick');
for (const a of argv) {
  if (a !== '--json' && a !== '--quick') {
    process.stderr.write(`bench-nodes: unknown argument ${a} (known: --json, --quick)\n`);
    process.exit(2);
  }
}
const PRINTERS_PER_NODE = 4;
const BURST_JOBS = QUICK ? 48 : 120;
const TRICKLE_JOBS = QUICK ? 15 : 40;
const TRICKLE_GAP_MS = 150;
const API_REQUESTS = QUICK ? 150 : 500;
const BULK_ROUNDS = QUICK ? 1 : 3;
const progress = (msg: string): void => void process.stderr.write(`[bench] ${msg}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p99 = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)]!;
};
const round = (x: number, d = 1): number => Number(x.toFixed(d));

const unavailable = pgUnavailableReason();
if (unavailable) {
  process.stderr.write(`bench-nodes: cannot run: ${unavailable}\n`);
  process.exit(1);
}

interface Farm {
  nodes: NodeProcess[];
  key: string;
  call(node: NodeProcess, method: string, p: string, body?: unknown): Promise<any>;
  queue(node: NodeProcess, name: string): Promise<string>;
  jobs(): Promise<Array<{ id: string; status: string; created_at: string; started_at: string | null }>>;
  close(): Promise<void>;
}

const GCODE = ['G90', 'M83', 'G1 Z0.2 F600', ...Array.from({ length: 10 }, (_, i) => `G1 X${10 + (i % 2)} Y10 E0.05 F1200`)].join('\n') + '\n';

async function startFarm(count: number, databaseUrl: string | undefined): Promise<Farm> {
  const secretKey = newSecretKey();
  const nodes = await Promise.all(Array.from({ length: count }, (_, i) => startNodeProcess({ name: `node-${i + 1}`, databaseUrl, secretKey })));
  const { key } = initialAdminKey(nodes);
  const call = async (node: NodeProcess, method: string, p: string, body?: unknown): Promise<any> => {
    const res = await fetch(node.url + p, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${p} on ${node.name}: ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : null;
  };
  await call(nodes[0]!, 'PATCH', '/v1/organization', { auto_start: true });
  for (const node of nodes) {
    for (let i = 0; i < PRINTERS_PER_NODE; i++) await call(node, 'POST', '/v1/printers', { name: `${node.name} p${i}`, connection_url: `sim://${node.name}-p${i}?speed=max` });
  }
  for (const node of nodes) {
    for (;;) {
      const list = await call(node, 'GET', '/v1/printers?per_page=100');
      if ((list.data as Array<{ status: string }>).filter((p) => p.status === 'idle').length === count * PRINTERS_PER_NODE) break;
      await sleep(100);
    }
  }
  return {
    nodes,
    key,
    call,
    async queue(node, name) {
      const form = new FormData();
      form.append('name', name);
      form.append('file', new Blob([GCODE]), 'bench.gcode');
      const res = await fetch(node.url + '/v1/jobs', { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
      const body = (await res.json()) as { data: { id?: string; job_ids?: string[] } };
      if (res.status !== 201) throw new Error(`queue on ${node.name}: ${res.status} ${JSON.stringify(body)}`);
      return body.data.id ?? body.data.job_ids![0]!;
    },
    async jobs() {
      const out = [];
      for (let page = 1; ; page++) {
        const list = await call(nodes[0]!, 'GET', `/v1/jobs?per_page=100&page=${page}`);
        out.push(...list.data);
        if (list.data.length < 100) return out;
      }
    },
    async close() {
      for (const n of nodes) await n.stop();
      removeDataDirs(nodes);
    },
  };
}

async function untilDone(farm: Farm, ids: string[], what: string): Promise<Array<{ id: string; status: string; created_at: string; started_at: string | null }>> {
  const end = performance.now() + 600_000;
  for (;;) {
    const jobs = (await farm.jobs()).filter((j) => ids.includes(j.id));
    if (jobs.length === ids.length && jobs.every((j) => j.status === 'completed')) return jobs;
    const bad = jobs.find((j) => j.status === 'failed' || j.status === 'cancelled');
    if (bad) throw new Error(`${what}: job ${bad.id} ended ${bad.status}`);
    if (performance.now() > end) throw new Error(`${what}: not done after 10 minutes`);
    await sleep(200);
  }
}

async function apiP99(farm: Farm): Promise<number> {
  // Printers busy while the API is timed: a burst of jobs keeps them streaming.
  for (let i = 0; i < PRINTERS_PER_NODE * 3; i++) await farm.queue(farm.nodes[0]!, `api load ${i}`);
  const times: number[] = [];
  const paths = ['/v1/printers', '/v1/jobs?per_page=50', '/v1/jobs?status=queued'];
  for (let i = 0; i < API_REQUESTS; i++) {
    const t0 = performance.now();
    await farm.call(farm.nodes[0]!, 'GET', paths[i % paths.length]!);
    times.push(performance.now() - t0);
  }
  return round(p99(times));
}

/** Per engine, the median over fresh databases of the bulk-insert cost per job (scripts/bench/bulk-insert.ts). */
async function bulkInsertCost(createPgDatabase: (name: string) => Promise<string>): Promise<{ sqlite: number; postgres: number }> {
  const sqlite: number[] = [];
  const postgres: number[] = [];
  for (let r = 0; r < BULK_ROUNDS; r++) {
    // A database file as a node keeps it (WAL), not one in memory.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'printfarm-bench-bulk-'));
    const file = openDatabase(path.join(dir, 'printfarm.sqlite'));
    try {
      sqlite.push(await bulkInsertMsPerJob(file.db));
    } finally {
      await file.close();
      rmSync(dir, { recursive: true, force: true });
    }
    const pg = await openPostgres(await createPgDatabase(`bench_bulk_${r}`));
    try {
      postgres.push(await bulkInsertMsPerJob(pg.db));
    } finally {
      await pg.close();
    }
  }
  return { sqlite: round(median(sqlite), 3), postgres: round(median(postgres), 3) };
}

const cluster = await startPgCluster();
const results: Array<{ nodes: number; claims_per_s: number; queue_to_start_p99_ms: number }> = [];
const api: { sqlite: number; postgres: number } = { sqlite: NaN, postgres: NaN };
let bulk: { sqlite: number; postgres: number } = { sqlite: NaN, postgres: NaN };
try {
  progress(`bulk insert: ${BULK_ROUNDS} round(s) of 2,000 jobs in one INSERT on each engine`);
  bulk = await bulkInsertCost((name) => cluster.createDatabase(name));
  for (const count of [1, 2, 3]) {
    progress(`${count} node(s): starting`);
    const farm = await startFarm(count, await cluster.createDatabase(`bench_${count}`));
    try {
      progress(`${count} node(s): burst of ${BURST_JOBS} jobs`);
      const burst = await Promise.all(Array.from({ length: BURST_JOBS }, (_, i) => farm.queue(farm.nodes[i % count]!, `burst ${i}`)));
      const done = await untilDone(farm, burst, 'burst');
      const starts = done.map((j) => Date.parse(j.started_at!)).sort((a, b) => a - b);
      const spanS = Math.max(0.001, (starts.at(-1)! - starts[0]!) / 1000);
      progress(`${count} node(s): ${TRICKLE_JOBS} jobs one at a time`);
      const trickle: string[] = [];
      for (let i = 0; i < TRICKLE_JOBS; i++) {
        trickle.push(await farm.queue(farm.nodes[i % count]!, `trickle ${i}`));
        await sleep(TRICKLE_GAP_MS);
      }
      const waits = (await untilDone(farm, trickle, 'trickle')).map((j) => Date.parse(j.started_at!) - Date.parse(j.created_at));
      results.push({ nodes: count, claims_per_s: round((BURST_JOBS - 1) / spanS), queue_to_start_p99_ms: round(p99(waits)) });
      if (count === 1) {
        progress('1 node on PostgreSQL: API latency');
        api.postgres = await apiP99(farm);
      }
    } finally {
      await farm.close();
    }
  }
  progress('1 node on SQLite: API latency');
  const sqliteFarm = await startFarm(1, undefined);
  try {
    api.sqlite = await apiP99(sqliteFarm);
  } finally {
    await sqliteFarm.close();
  }
} finally {
  await cluster.stop();
}

console.log('nodes | claims/s (burst) | queued→started p99 (ms, printer free)');
for (const r of results) console.log(`${String(r.nodes).padStart(5)} | ${String(r.claims_per_s).padStart(16)} | ${String(r.queue_to_start_p99_ms).padStart(8)}`);
console.log(`API p99 (GET printers/jobs while printing, 1 node): SQLite ${api.sqlite} ms, PostgreSQL ${api.postgres} ms`);
console.log(`Bulk insert (2,000 jobs in one INSERT, roll-up triggers included), per job: SQLite ${bulk.sqlite} ms, PostgreSQL ${bulk.postgres} ms`);
if (JSON_OUT) {
  console.log(
    JSON.stringify({
      nodes: results.map((r) => r.nodes),
      claims_per_s: results.map((r) => r.claims_per_s),
      queue_to_start_p99_ms: results.map((r) => r.queue_to_start_p99_ms),
      api_p99_ms: api,
      bulk_insert_ms_per_job: bulk,
      jobs: BURST_JOBS,
      printers_per_node: PRINTERS_PER_NODE,
    }),
  );
}
