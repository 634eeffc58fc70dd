// `npm run bench:notify [-- --json] [--quick]`: the farm in Home Assistant under load. 50 printers (simulated in a child
// process over tcp://, --speed max: full rate) stream while a job ends every second (one printer's job cancelled, its
// bed marked cleared, the next queued job starting), without MQTT and publishing to a real Mosquitto in turn.
// Prints lines/s per printer in each phase (target: with MQTT within 2 % of the mean without), MQTT
// messages per second (sent by the farm, and received by a mosquitto_sub on every topic), and the API p99. Phases
// alternate (without, with, without, with, without) after a warm-up. With --json the last line is one JSON object:
// { printers, window_s, jobs_ended_per_s, lines_per_s_each: {without, with, phases_without, phases_with}, ratio,
//   within_2pct, mqtt_messages_per_s, mqtt_received_per_s, api_p99_ms: {without, with}, api_requests }
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { silentLogger } from '../src/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import { homeAssistantFor } from '../src/homeassistant/homeassistant-runtime.js';
import { parseMqttUrl } from '../src/homeassistant/mqtt-target.js';
import { MOSQUITTO, mosquittoBroker } from '../src/simulator/bambu/mosquitto-broker.js';
import { freeTcpPort } from '../test/helpers/free-tcp-port.js';
import { spawnSimulators } from './bench/simulators.js';
import { printResultsTable, type ResultRow } from './bench/results-table.js';

const argv = process.argv.slice(2);
for (const a of argv) {
  if (!['--json', '--quick'].includes(a)) {
    process.stderr.write(`bench-notify: unknown flag ${a} (known: --json, --quick)\n`);
    process.exit(2);
  }
}
const JSON_OUT = argv.includes('--json');
const QUICK = argv.includes('--quick');
const PRINTERS = QUICK ? 10 : 50;
const WINDOW_S = QUICK ? 5 : 15;
const WARMUP_S = QUICK ? 5 : 15;
const MOSQUITTO_SUB = '/usr/bin/mosquitto_sub';
const USER = 'bench';
const PASSWORD = 'bench-password';

const log = (msg: string): void => void process.stderr.write(`[bench] ${msg}\n`);
const round = (n: number, d = 2): number => Number(n.toFixed(d));
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

if (!existsSync(MOSQUITTO)) {
  process.stderr.write(`bench-notify: ${MOSQUITTO} is missing (Debian package mosquitto)\n`);
  process.exit(2);
}

async function call(server: RunningServer, key: string, method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + p, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Longer than the whole run at full rate: no job ends by itself, only the ender's. */
function streamingGcode(lines: number): string {
  const out = ['G90', 'G1 X10 Y10 Z0.2 F3000'];
  for (let i = 0; i < lines; i++) out.push(`G1 X${(10 + (i % 60) * 0.1667).toFixed(4)} Y10 F3000`);
  return out.join('\n') + '\n';
}

async function queueJobs(server: RunningServer, key: string, copies: number, content: string): Promise<void> {
  const form = new FormData();
  form.append('copies', String(copies));
  form.append('file', new Blob([content]), 'bench.gcode');
  const res = await fetch(`${server.url}/v1/jobs`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
  if (res.status !== 201) throw new Error(`job create answered ${res.status}: ${await res.text()}`);
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Phase {
  linesPerSEach: number;
  apiMs: number[];
  jobsEnded: number;
}

const dir = await mkdtemp(path.join(tmpdir(), 'pf-bench-notify-'));
const brokerPort = await freeTcpPort();
const broker = await mosquittoBroker(dir, brokerPort, null, PASSWORD, USER);
await broker.start();
const sims = await spawnSimulators(PRINTERS, ['--speed', 'max']);
const server = await startServer({ host: '127.0.0.1', port: 0, dataDir: path.join(dir, 'data'), env: 'live' }, { logger: silentLogger, shutdownGraceMs: 1000 });
const deps = server.deps;
let sub: ReturnType<typeof spawn> | null = null;
try {
  const key = server.initialAdminKey!;
  log(`adding ${PRINTERS} printers over tcp://127.0.0.1 (simulated at full rate) ...`);
  const ids: string[] = [];
  for (const port of sims.ports) {
    const res = await call(server, key, 'POST', '/v1/printers', { name: `bench ${port}`, connection_url: `tcp://127.0.0.1:${port}` });
    if (res.status !== 201) throw new Error(`printer create answered ${res.status}: ${JSON.stringify(res.body)}`);
    ids.push(res.body.id);
  }
  await until('every printer idle', () => ids.every((id) => deps.sessions.get(id)?.currentStatus === 'idle'), 60_000);
  const gcode = streamingGcode(200_000);
  // One job per printer, and as many waiting as the run ends (one a second, plus margin).
  // A batch takes at most 100 copies: the first one a job per printer, then the ones waiting.
  await queueJobs(server, key, PRINTERS, gcode);
  for (let left = Math.ceil((WARMUP_S + 5 * WINDOW_S + 30) * 1.2); left > 0; left -= 100) await queueJobs(server, key, Math.min(left, 100), gcode);
  await until('every printer printing', () => ids.every((id) => deps.sessions.get(id)?.snapshot().job !== null), 60_000);

  // Each second one printer's job ends (cancelled); once it is idle its bed is marked cleared and the next queued job
  // starts there. Ends overlap: a printer still settling is skipped for the next one.
  let turn = 0;
  let ended = 0;
  const settling = new Set<string>();
  const ender = setInterval(() => {
    const id = ids.find((_, k) => !settling.has(ids[(turn + k) % ids.length]!) && deps.sessions.get(ids[(turn + k) % ids.length]!)?.snapshot().job);
    turn += 1;
    if (!id) return;
    settling.add(id);
    const job = deps.sessions.get(id)!.snapshot().job!.id;
    (async () => {
      const del = await call(server, key, 'DELETE', `/v1/jobs/${job}`);
      if (del.status !== 200 && del.status !== 202) return;
      ended += 1;
      await until('the printer idle after its cancel', () => deps.sessions.get(id)?.currentStatus === 'idle', 30_000);
      await call(server, key, 'POST', `/v1/printers/${id}/actions`, { action: 'ready' });
    })()
      .catch((err: Error) => log(`ender: ${err.message}`))
      .finally(() => settling.delete(id));
  }, 1000);

  /** Lines acknowledged across the farm, followed job by job (a new job on a printer starts from 0). */
  const seen = new Map<string, { job: string | null; lines: number }>();
  let lines = 0;
  const sample = (): void => {
    for (const id of ids) {
      const j = deps.sessions.get(id)?.snapshot().job ?? null;
      const prev = seen.get(id);
      const now = j ? j.lines_acked : 0;
      if (prev && j && prev.job === j.id) lines += Math.max(0, now - prev.lines);
      else if (j) lines += now;
      seen.set(id, { job: j?.id ?? null, lines: now });
    }
  };

  const phase = async (name: string): Promise<Phase> => {
    log(`${name}: ${WINDOW_S} s of streaming with a job ending every second ...`);
    sample();
    lines = 0;
    const endedBefore = ended;
    const sampler = setInterval(sample, 200);
    const apiMs: number[] = [];
    const t0 = performance.now();
    let i = 0;
    while (performance.now() - t0 < WINDOW_S * 1000) {
      const p = i++ % 2 === 0 ? '/v1/printers?per_page=50' : `/v1/printers/${ids[i % ids.length]}`;
      const r0 = performance.now();
      const res = await fetch(server.url + p, { headers: { Authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      apiMs.push(performance.now() - r0);
      await new Promise((r) => setTimeout(r, 20));
    }
    clearInterval(sampler);
    sample();
    const seconds = (performance.now() - t0) / 1000;
    return { linesPerSEach: lines / PRINTERS / seconds, apiMs, jobsEnded: ended - endedBefore };
  };

  log(`warming up for ${WARMUP_S} s ...`);
  await new Promise((r) => setTimeout(r, WARMUP_S * 1000));

  let received = 0;
  if (existsSync(MOSQUITTO_SUB)) {
    sub = spawn(MOSQUITTO_SUB, ['-h', '127.0.0.1', '-p', String(brokerPort), '-u', USER, '-P', PASSWORD, '-t', 'printfarm/#', '-t', 'homeassistant/#'], { stdio: ['ignore', 'pipe', 'ignore'] });
    sub.stdout!.on('data', (b: Buffer) => {
      for (const c of b) if (c === 10) received += 1;
    });
  }
  const withoutPhases: Phase[] = [];
  const withPhases: Phase[] = [];
  let mqttSent = 0;
  let mqttReceived = 0;
  let mqttSeconds = 0;
  // Alternating phases, so a drift of the shared machine's speed falls on both sides alike.
  for (let n = 1; n <= 2; n++) {
    withoutPhases.push(await phase(`without MQTT (${n})`));
    const ha = homeAssistantFor(
      { bus: deps.bus, db: deps.db, clock: deps.clock, logger: silentLogger, nodeId: deps.node.id, printers: deps.printers, sessions: deps.sessions, jobs: deps.jobs },
      { target: parseMqttUrl(`mqtt://${USER}:${PASSWORD}@127.0.0.1:${brokerPort}`) },
    );
    await ha.start();
    await until('connected to Mosquitto', () => ha.status().connected, 20_000);
    // The first full publication (discovery) is not the steady rate: let it pass.
    await new Promise((r) => setTimeout(r, 2000));
    const sent0 = ha.status().published;
    const received0 = received;
    const t0 = performance.now();
    withPhases.push(await phase(`publishing to Mosquitto (${n})`));
    mqttSeconds += (performance.now() - t0) / 1000;
    mqttSent += ha.status().published - sent0;
    mqttReceived += received - received0;
    await ha.stop();
  }
  withoutPhases.push(await phase('without MQTT (3)'));
  clearInterval(ender);

  const mean = (ps: Phase[]): number => ps.reduce((a, p) => a + p.linesPerSEach, 0) / ps.length;
  const allMs = (ps: Phase[]): number[] => ps.flatMap((p) => p.apiMs);
  const baseline = mean(withoutPhases);
  const withMean = mean(withPhases);
  const ratio = withMean / baseline;
  const phases = [...withoutPhases, ...withPhases];
  const result = {
    printers: PRINTERS,
    window_s: WINDOW_S,
    jobs_ended_per_s: round(phases.reduce((a, p) => a + p.jobsEnded, 0) / (phases.length * WINDOW_S)),
    lines_per_s_each: { without: round(baseline, 1), with: round(withMean, 1), phases_without: withoutPhases.map((p) => round(p.linesPerSEach, 1)), phases_with: withPhases.map((p) => round(p.linesPerSEach, 1)) },
    ratio: round(ratio, 4),
    within_2pct: Math.abs(1 - ratio) <= 0.02,
    mqtt_messages_per_s: round(mqttSent / mqttSeconds, 1),
    mqtt_received_per_s: sub ? round(mqttReceived / mqttSeconds, 1) : null,
    api_p99_ms: { without: round(pct(allMs(withoutPhases), 99)), with: round(pct(allMs(withPhases), 99)) },
    api_requests: allMs(phases).length,
  };
  const rows: ResultRow[] = [
    ['lines/s per printer', `${result.lines_per_s_each.without} without MQTT (${result.lines_per_s_each.phases_without.join(', ')}), ${result.lines_per_s_each.with} with (${result.lines_per_s_each.phases_with.join(', ')})`, 'with within 2 % of without'],
    ['ratio', `${result.ratio} (${result.within_2pct ? 'within' : 'NOT within'} 2 %)`, '0.98 .. 1.02'],
    ['jobs ended', `${result.jobs_ended_per_s} /s`, '1 /s'],
    ['MQTT messages', `${result.mqtt_messages_per_s} /s sent, ${result.mqtt_received_per_s ?? '-'} /s received by mosquitto_sub`, `<= ${PRINTERS} state/s + changes`],
    ['API p99', `${result.api_p99_ms.without} ms without, ${result.api_p99_ms.with} ms with MQTT`, 'unchanged'],
  ];
  printResultsTable(rows);
  if (JSON_OUT) console.log(JSON.stringify(result));
} finally {
  sub?.kill('SIGTERM');
  await server.close();
  await sims.stop();
  await broker.stop();
  await rm(dir, { recursive: true, force: true });
}
