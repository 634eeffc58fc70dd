// `npm run bench:cameras [-- --json] [--quick]`: 50 cameras at 10 fps 640x480 (one ffmpeg source, served by a child),
// 3 live viewers each (a child), while 50 printers stream G-code (simulators in a child, sessions in this host). The
// same window is measured without cameras, then with them: the host's CPU per camera, its RSS growth, the printers'
// lines/s before and after, and the API's p99.
// JSON (--json), one line: { cameras, viewers_per_camera, fps, printers, window_s, cpu_pct_per_camera, rss_growth_mb,
//   lines_per_s_each: {before, after, change_pct}, api_p99_ms: {before, after}, loop_p99_ms: {before, after},
//   load1: {before, after}, frames_in_per_s, frames_out_per_s,
//   dropped_per_s, viewer_mb_per_s, targets: {...}, pass }
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { silentLogger } from '../src/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import { spawnSimulators } from './bench/simulators.js';

const argv = process.argv.slice(2);
const JSON_OUT = argv.includes('--json');
const QUICK = argv.includes('--quick');
for (const a of argv) {
  if (a !== '--json' && a !== '--quick') {
    process.stderr.write(`bench-cameras: unknown flag ${a} (known: --json, --quick)\n`);
    process.exit(2);
  }
}
const CAMERAS = QUICK ? 10 : 50;
const PRINTERS = QUICK ? 10 : 50;
const VIEWERS = 3;
const FPS = 10;
const WINDOW_S = QUICK ? 5 : 12;
const progress = (msg: string): void => void process.stderr.write(`[bench] ${msg}\n`);
const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

/** A child that prints a line matching `ready` once it serves; killed with this script whatever happens. */
function child(args: string[], ready: RegExp, env: NodeJS.ProcessEnv = {}): Promise<{ proc: ChildProcess; match: RegExpMatchArray; lines: string[] }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  process.on('exit', () => proc.kill('SIGKILL'));
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    let buf = '';
    let done = false;
    proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const parts = buf.split('\n');
      buf = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (lines.length > 100) lines.shift();
        const m = ready.exec(line);
        if (m && !done) {
          done = true;
          resolve({ proc, match: m, lines });
        }
      }
    });
    proc.once('exit', (code) => !done && reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

async function api<T = any>(s: RunningServer, key: string, method: string, p: string, body?: unknown): Promise<T> {
  const res = await fetch(s.url + p, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body && !(body instanceof FormData) ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: body instanceof FormData ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** Lines every streaming printer's link acknowledged so far (the sessions live in this process). */
const linesAcked = (s: RunningServer, ids: string[]): number => ids.reduce((n, id) => n + (s.deps.sessions.get(id)?.snapshot().job?.lines_acked ?? 0), 0);

interface Window {
  cpuPct: number;
  /** The host's event-loop delay p99: what the host itself adds to every answer and every printer's next line. */
  loopP99Ms: number;
  /** The machine's 1-minute load at the end: above its core count, every process (the simulators too) waits for CPU. */
  load1: number;
  rssMaxMb: number;
  linesPerSEach: number;
  apiP99Ms: number;
}

/** One measured window: host CPU and RSS, the printers' rate, and GET /v1/printers latencies (5 a second). */
async function measure(s: RunningServer, key: string, printerIds: string[]): Promise<Window> {
  const lat: number[] = [];
  let stop = false;
  const prober = (async () => {
    while (!stop) {
      const t = performance.now();
      await api(s, key, 'GET', '/v1/printers?per_page=100');
      lat.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const acked0 = linesAcked(s, printerIds);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let rssMax = 0;
  const rssTimer = setInterval(() => (rssMax = Math.max(rssMax, process.memoryUsage.rss())), 250);
  await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
  clearInterval(rssTimer);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const acked = linesAcked(s, printerIds) - acked0;
  delay.disable();
  stop = true;
  await prober;
  lat.sort((a, b) => a - b);
  return {
    cpuPct: ((cpu.user + cpu.system) / 1000 / wall) * 100,
    loopP99Ms: delay.percentile(99) / 1e6,
    load1: loadavg()[0]!,
    rssMaxMb: rssMax / 1024 / 1024,
    linesPerSEach: acked / (wall / 1000) / printerIds.length,
    apiP99Ms: lat[Math.min(lat.length - 1, Math.floor(lat.length * 0.99))] ?? 0,
  };
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'printfarm-bench-cameras-'));
  progress(`${PRINTERS} simulated printers (child process, tcp), ~300 lines/s each`);
  const sims = await spawnSimulators(PRINTERS, ['--baud', '250000', '--speed', '1', '--record', '0', '--meatpack', '0']);
  const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, env: 'live' }, { logger: silentLogger });
  const key = server.initialAdminKey!;
  let source: ChildProcess | undefined;
  let viewers: ChildProcess | undefined;
  try {
    const printerIds: string[] = [];
    for (const [i, port] of sims.ports.entries()) printerIds.push((await api(server, key, 'POST', '/v1/printers', { name: `bench ${i}`, connection_url: `tcp://127.0.0.1:${port}` })).id);
    await waitFor('printers idle', async () => (await api(server, key, 'GET', '/v1/printers?per_page=100')).data.every((p: { status: string }) => p.status === 'idle'), 60_000);
    // 0.1667 mm at 50 mm/s: the planner paces each printer at ~300 lines/s; long enough for both windows and the set-up.
    const lines = ['G90', 'G1 X0 Y0 Z0.2 F3000'];
    for (let i = 0; i < 300 * (2 * WINDOW_S + 60); i++) lines.push(`G1 X${(10 + (i % 2) * 0.1667).toFixed(4)} Y10 F3000`);
    const form = new FormData();
    form.append('file', new Blob([lines.join('\n') + '\n']), 'bench.gcode');
    form.append('printer_id', printerIds[0]!);
    const first = (await api(server, key, 'POST', '/v1/jobs', form)).data;
    for (const id of printerIds.slice(1)) await api(server, key, 'POST', '/v1/jobs', { file_id: first.file_id, printer_id: id, name: 'bench' });
    await waitFor('every printer streaming', () => printerIds.every((id) => (server.deps.sessions.get(id)?.snapshot().job?.lines_acked ?? 0) > 100), 60_000);
    await new Promise((r) => setTimeout(r, 2000));

    progress(`window 1: ${PRINTERS} printers streaming, no cameras (${WINDOW_S} s)`);
    const before = await measure(server, key, printerIds);

    progress(`${CAMERAS} cameras at ${FPS} fps 640x480 from one ffmpeg (child), ${VIEWERS} viewers each (child)`);
    const src = await child([path.resolve('scripts/bench/camera-source.ts'), String(FPS), '640x480'], /^listening (\d+)$/);
    source = src.proc;
    const camIds: string[] = [];
    for (let i = 0; i < CAMERAS; i++) {
      camIds.push((await api(server, key, 'POST', `/v1/printers/${printerIds[i % printerIds.length]}/cameras`, { name: `cam ${i}`, stream_url: `http://127.0.0.1:${src.match[1]}/cam/${i}` })).id);
    }
    const view = await child([path.resolve('scripts/bench/camera-viewers.ts'), String(VIEWERS)], /^bytes \d+$/, { BENCH_KEY: key });
    viewers = view.proc;
    viewers.stdin!.write(JSON.stringify(camIds.map((id) => `${server.url}/v1/cameras/${id}/stream`)) + '\n');
    await waitFor('every camera live with its viewers', () => server.deps.cameras.stats().filter((c) => c.viewers === VIEWERS && c.frames_in > 5).length === CAMERAS, 60_000);
    await new Promise((r) => setTimeout(r, 2000));
    const stats0 = server.deps.cameras.stats();
    progress(`window 2: the same printers with ${CAMERAS} cameras x ${VIEWERS} viewers (${WINDOW_S} s)`);
    const after = await measure(server, key, printerIds);
    const stats1 = server.deps.cameras.stats();
    const sum = (list: typeof stats0, f: (c: (typeof stats0)[number]) => number): number => list.reduce((n, c) => n + f(c), 0);
    const perS = (f: (c: (typeof stats0)[number]) => number): number => round((sum(stats1, f) - sum(stats0, f)) / WINDOW_S, 1);
    const viewerBytes = view.lines.slice(-WINDOW_S).map((l) => Number(l.split(' ')[1]));
    const result = {
      cameras: CAMERAS,
      viewers_per_camera: VIEWERS,
      fps: FPS,
      printers: PRINTERS,
      window_s: WINDOW_S,
      cpu_pct_per_camera: round((after.cpuPct - before.cpuPct) / CAMERAS, 3),
      host_cpu_pct: { before: round(before.cpuPct, 1), after: round(after.cpuPct, 1) },
      rss_mb: { before: round(before.rssMaxMb, 1), after: round(after.rssMaxMb, 1) },
      rss_growth_mb: round(after.rssMaxMb - before.rssMaxMb, 1),
      lines_per_s_each: { before: round(before.linesPerSEach, 1), after: round(after.linesPerSEach, 1), change_pct: round(((after.linesPerSEach - before.linesPerSEach) / before.linesPerSEach) * 100, 2) },
      api_p99_ms: { before: round(before.apiP99Ms, 1), after: round(after.apiP99Ms, 1) },
      loop_p99_ms: { before: round(before.loopP99Ms, 1), after: round(after.loopP99Ms, 1) },
      load1: { before: round(before.load1, 2), after: round(after.load1, 2) },
      frames_in_per_s: perS((c) => c.frames_in),
      frames_out_per_s: perS((c) => c.frames_out),
      dropped_per_s: perS((c) => c.dropped),
      viewer_mb_per_s: round(viewerBytes.reduce((a, b) => a + b, 0) / Math.max(1, viewerBytes.length) / 1024 / 1024, 2),
      targets: { cpu_pct_per_camera: 0.5, rss_growth_mb: 100, lines_per_s_change_pct: 2 },
      pass: false,
    };
    result.pass = result.cpu_pct_per_camera <= 0.5 && result.rss_growth_mb <= 100 && Math.abs(result.lines_per_s_each.change_pct) <= 2;
    if (JSON_OUT) process.stdout.write(JSON.stringify(result) + '\n');
    else {
      const rows: Array<[string, string, string]> = [
        ['host CPU per camera', `${result.cpu_pct_per_camera} % of a core (host ${result.host_cpu_pct.before} → ${result.host_cpu_pct.after} %)`, '<= 0.5 %'],
        ['RSS growth', `${result.rss_growth_mb} MB (${result.rss_mb.before} → ${result.rss_mb.after} MB)`, '<= 100 MB'],
        ['printers lines/s each', `${result.lines_per_s_each.before} → ${result.lines_per_s_each.after} (${result.lines_per_s_each.change_pct} %)`, 'within 2 %'],
        ['API p99 (GET /v1/printers)', `${result.api_p99_ms.before} → ${result.api_p99_ms.after} ms (event loop p99 ${result.loop_p99_ms.before} → ${result.loop_p99_ms.after} ms)`, ''],
        ['machine load (1 min)', `${result.load1.before} → ${result.load1.after}`, ''],
        ['frames', `${result.frames_in_per_s}/s in, ${result.frames_out_per_s}/s out, ${result.dropped_per_s}/s dropped; viewers read ${result.viewer_mb_per_s} MB/s`, ''],
      ];
      for (const [what, value, target] of rows) process.stdout.write(`${what.padEnd(28)} ${value.padEnd(70)} ${target}\n`);
      process.stdout.write(result.pass ? 'PASS\n' : 'FAIL\n');
    }
  } finally {
    viewers?.kill('SIGTERM');
    source?.kill('SIGTERM');
    await server.close();
    await sims.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > until) throw new Error(`bench-cameras: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench-cameras: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
