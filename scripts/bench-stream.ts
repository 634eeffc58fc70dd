// `npm run bench:stream [-- --json] [--quick] [--only a,b] [--baseline-ref REF]`: streaming throughput, ping-pong speedup,
// starvation, scale, memory, integrity, MeatPack. With --baseline-ref, scenario d also runs the code of git REF (a
// throw-away worktree beside this one, run with the same flags) and reports its cpu_us_per_line beside ours.
// JSON (--json), one line: { link: [{baud, ratio}], pingpong: [{latency_ms, speedup}], starvation_ms,
//   scale: {printers, lines_per_s_each, cpu_pct_per_printer (host process only), cpu_us_per_line, cpu_us_per_line_user,
//   cpu_us_per_line_sys, loop_p99_ms, rss_mb, sim_cpu_pct_per_printer, baseline: {ref, cpu_us_per_line, lines_per_s_each,
//   loop_p99_ms} | null, cpu_ratio_to_baseline | null},
//   memory: {file_mb, rss_growth_mb}, integrity: [{error_rate, lines, exact, checksum_invisible, resend_ratio}],
//   meatpack: {ratio, exact} }
// Scenarios a-f run the simulated Marlin without MeatPack (meatpack=0), so they measure what they always did; g compares.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { EventBus } from '../src/events/event-bus.js';
import { PreparedGcodeCache } from '../src/printers/prepared-gcode-cache.js';
import { PrinterSession } from '../src/printers/printer-session.js';
import type { ProtocolStats } from '../src/protocol/protocol-types.js';
import type { SimulatorStats } from '../src/simulator/virtual-printer.js';
import { createSimTransport, type SimTransport } from '../src/transport/sim.transport.js';
import { ManualScheduler, type SimScheduler } from '../src/simulator/sim-scheduler.js';
import { checkRecord } from '../test/e2e/e2e-harness.js';
import { spawnSimulators } from './bench/simulators.js';
import { zigZagMoves } from '../test/helpers/zigzag-moves.js';

// ---------------------------------------------------------------- arguments

const argv = process.argv.slice(2);
const JSON_OUT = argv.includes('--json');
const QUICK = argv.includes('--quick');
const onlyArg = argv.find((a, i) => a.startsWith('--only') && (a.includes('=') || argv[i + 1] !== undefined));
const refAt = argv.indexOf('--baseline-ref');
const BASELINE_REF = refAt >= 0 ? argv[refAt + 1] : undefined;
if (refAt >= 0 && (BASELINE_REF === undefined || BASELINE_REF.startsWith('--'))) {
  process.stderr.write('bench-stream: --baseline-ref takes a git ref (a commit, branch or tag)\n');
  process.exit(2);
}
const ONLY = new Set(
  (onlyArg === undefined ? 'a,b,c,d,e,f,g' : onlyArg.includes('=') ? onlyArg.split('=')[1]! : argv[argv.indexOf(onlyArg) + 1]!)
    .split(',')
    .map((s) => s.trim().toLowerCase()),
);
for (const a of argv) {
  if (a.startsWith('--') && !['--json', '--quick', '--baseline-ref'].includes(a) && !a.startsWith('--only')) {
    process.stderr.write(`bench-stream: unknown flag ${a} (known: --json, --quick, --only a,b,c,d,e,f,g, --baseline-ref REF)\n`);
    process.exit(2);
  }
}

const progress = (msg: string): void => void process.stderr.write(`[bench] ${msg}\n`);
const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

// ---------------------------------------------------------------- one streamed job

interface StreamResult {
  ms: number;
  lines: number;
  bytesWritten: number;
  host: ProtocolStats;
  printer: SimulatorStats;
  outcome: string;
}

interface Streamer {
  session: PrinterSession;
  sim: () => SimTransport;
  close(): Promise<void>;
}

let printerSeq = 0;

async function openStreamer(
  query: string,
  opts: { profile?: string; scheduler?: SimScheduler; preparedFiles?: PreparedGcodeCache } = {},
): Promise<Streamer> {
  const bus = new EventBus();
  let sim: SimTransport | null = null;
  const session = new PrinterSession({
    printerId: `bench${++printerSeq}`,
    url: `sim://bench${printerSeq}?${query.includes('meatpack=') ? query : `${query}&meatpack=0`}`,
    bus,
    profile: opts.profile,
    autoReconnect: false,
    drainQuietMs: 50,
    drainMaxMs: 500,
    createTransport: (u) => (sim = createSimTransport(new URL(u), { scheduler: opts.scheduler })),
    ...(opts.preparedFiles ? { preparedFiles: opts.preparedFiles } : {}),
  });
  await session.connect();
  return {
    session,
    sim: () => sim!,
    close: async () => {
      await session.disconnect();
      sim?.printer.close();
    },
  };
}

async function streamFile(s: Streamer, file: string): Promise<StreamResult> {
  const before = s.session.stats()!;
  const t0 = performance.now();
  const job = await s.session.startJob({ jobId: `job_${printerSeq}_${Math.round(t0)}`, filePath: file });
  const outcome = await job.finished;
  const ms = performance.now() - t0;
  const host = s.session.stats()!;
  return {
    ms,
    lines: job.snapshot().lines_acked,
    bytesWritten: host.bytesWritten - before.bytesWritten,
    host,
    printer: { ...s.sim().printer.stats },
    outcome: outcome.status === 'failed' ? `failed: ${outcome.error.code}` : outcome.status,
  };
}

/**
 * The job lines the printer ran since `base`, for a check against the file. Only the simulator's full record can
 * say (record=1): without it the simulator keeps its newest commands only, and every check would fail for that.
 */
function jobLinesRun(s: Streamer, base: number): string[] {
  const printer = s.sim().printer;
  if (!printer.options.record) throw new Error('bench: a check against the file needs the full record (record=1 in the sim:// query)');
  return printer.executedJobLines().slice(base);
}

// ---------------------------------------------------------------- G-code files

/** The zig-zag moves as a file's text (the protocol tests stream the same lines). */
function moves(count: number, segmentMm = 0.4, feed = 3000): string {
  return zigZagMoves(count, segmentMm, feed).join('\n') + '\n';
}

async function gcodeFile(dir: string, name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

// ---------------------------------------------------------------- a) link-bound throughput, b) ping-pong

async function linkBound(dir: string): Promise<Array<{ baud: number; ratio: number; lines_per_s: number }>> {
  const out = [];
  for (const baud of [115200, 250000]) {
    const seconds = QUICK ? 1.5 : 5;
    const count = Math.round(((baud / 10) * seconds) / 34);
    const file = await gcodeFile(dir, `link${baud}.gcode`, moves(count));
    progress(`a) ${count} lines at ${baud} baud, firmware executes instantly, real time`);
    const s = await openStreamer(`baud=${baud}&speed=1&instant=1`);
    try {
      const r = await streamFile(s, file);
      const ceiling = baud / 10;
      out.push({ baud, ratio: round(r.bytesWritten / (r.ms / 1000) / ceiling, 3), lines_per_s: round(r.lines / (r.ms / 1000), 0) });
    } finally {
      await s.close();
    }
  }
  return out;
}

async function pingPong(dir: string): Promise<Array<{ latency_ms: number; speedup: number; windowed_lps: number; pingpong_lps: number }>> {
  const out = [];
  const baud = 115200;
  for (const latency of [1, 16]) {
    const count = QUICK ? 120 : latency === 16 ? 400 : 1200;
    const file = await gcodeFile(dir, `pp${latency}.gcode`, moves(count));
    const rates: number[] = [];
    for (const profile of [undefined, 'generic']) {
      progress(`b) ${count} lines at ${baud} baud, USB round trip ${latency} ms, ${profile ? 'ping-pong (generic profile)' : 'windowed (Marlin)'}`);
      const s = await openStreamer(`baud=${baud}&speed=1&instant=1&latency_ms=${latency}`, { profile });
      try {
        const r = await streamFile(s, file);
        rates.push(r.lines / (r.ms / 1000));
      } finally {
        await s.close();
      }
    }
    out.push({ latency_ms: latency, speedup: round(rates[0]! / rates[1]!, 2), windowed_lps: round(rates[0]!, 0), pingpong_lps: round(rates[1]!, 0) });
  }
  return out;
}

// ---------------------------------------------------------------- c) planner starvation

async function starvation(dir: string): Promise<{ starvation_ms: number; events: number; lines: number; seconds: number; lines_per_s: number }> {
  const count = QUICK ? 1000 : 5000;
  const file = await gcodeFile(dir, 'fine.gcode', moves(count, 0.1, 3000));
  progress(`c) ${count} segments of 0.1 mm at 50 mm/s (500 lines/s needed) over 250000 baud, real time`);
  const s = await openStreamer('baud=250000&speed=1');
  try {
    s.sim().printer.resetStats();
    const r = await streamFile(s, file);
    return { starvation_ms: round(r.printer.starvationMs, 1), events: r.printer.starvationEvents, lines: r.lines, seconds: round(r.ms / 1000, 1), lines_per_s: round(r.lines / (r.ms / 1000), 0) };
  } finally {
    await s.close();
  }
}

// ---------------------------------------------------------------- d) scale

async function scale(dir: string) {
  const printers = QUICK ? 10 : 50;
  const windowS = QUICK ? 4 : 12;
  // 0.1667 mm at 50 mm/s = 3.33 ms a segment: the planner paces each printer at ~300 lines/s.
  const count = Math.round(300 * (windowS + 6));
  const file = await gcodeFile(dir, 'scale.gcode', moves(count, 0.1667, 3000));
  progress(`d) ${printers} printers in one child process over TCP, each ~300 lines/s (planner-paced), ${windowS} s window`);
  const sim = await spawnSimulators(printers, ['--baud', '250000', '--speed', '1', '--record', '0', '--meatpack', '0']);
  const sessions: PrinterSession[] = [];
  // One per program, as the server has: the 50 printers print one file, read and parsed once.
  const preparedFiles = new PreparedGcodeCache();
  try {
    for (const port of sim.ports) {
      sessions.push(
        new PrinterSession({
          printerId: `bench${++printerSeq}`,
          url: `tcp://127.0.0.1:${port}`,
          bus: new EventBus(),
          preparedFiles,
          autoReconnect: false,
          drainQuietMs: 50,
          drainMaxMs: 500,
        }),
      );
    }
    await Promise.all(sessions.map((s) => s.connect()));
    const jobs = await Promise.all(sessions.map((s, i) => s.startJob({ jobId: `scale${i}`, filePath: file })));
    let ended = 0;
    for (const j of jobs) void j.finished.then(() => ended++);
    await new Promise((r) => setTimeout(r, 2000));
    const acked0 = jobs.reduce((n, j) => n + j.snapshot().lines_acked, 0);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const cpu0 = process.cpuUsage();
    const simCpu0 = sim.cpuSeconds();
    const t0 = performance.now();
    let rssMax = 0;
    const rssTimer = setInterval(() => (rssMax = Math.max(rssMax, process.memoryUsage.rss())), 250);
    await new Promise((r) => setTimeout(r, windowS * 1000));
    clearInterval(rssTimer);
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const simCpu1 = sim.cpuSeconds();
    delay.disable();
    const acked = jobs.reduce((n, j) => n + j.snapshot().lines_acked, 0) - acked0;
    rssMax = Math.max(rssMax, process.memoryUsage.rss());
    if (ended > 0) throw new Error(`scale: ${ended} job(s) ended before the window closed (failed or the file is too short)`);
    // The cost that matters on a small host: CPU (user + kernel) of the host process per line the printers acknowledged.
    const perLine = (us: number): number => round(us / Math.max(1, acked), 2);
    return {
      printers,
      lines_per_s_each: round(acked / (wall / 1000) / printers, 0),
      cpu_pct_per_printer: round(((cpu.user + cpu.system) / 1000 / wall) * 100 / printers, 3),
      cpu_us_per_line: perLine(cpu.user + cpu.system),
      cpu_us_per_line_user: perLine(cpu.user),
      cpu_us_per_line_sys: perLine(cpu.system),
      loop_p99_ms: round(delay.percentile(99) / 1e6, 2),
      rss_mb: round(rssMax / 1024 / 1024, 1),
      sim_cpu_pct_per_printer:
        simCpu0 === null || simCpu1 === null ? null : round(((simCpu1 - simCpu0) * 1000 / wall) * 100 / printers, 3),
    };
  } finally {
    await Promise.all(sessions.map((s) => s.disconnect()));
    await sim.stop();
  }
}

// ---------------------------------------------------------------- d') the same scale run on the code of another commit

interface Baseline {
  ref: string;
  commit: string;
  cpu_us_per_line: number;
  lines_per_s_each: number;
  loop_p99_ms: number;
}

/**
 * Runs scenario d of `ref`'s own bench-stream (its code, its simulators) from a `git archive` of it in a temp dir with
 * our node_modules, and reads its JSON line. Older benches have no cpu_us_per_line: it follows from their CPU share and
 * rate (cpu_pct_per_printer / 100 s of CPU a second, over lines_per_s_each lines a second).
 */
async function baselineScale(ref: string): Promise<Baseline> {
  const git = (args: string[]): string => {
    const r = spawnSync('git', args, { encoding: 'utf8', maxBuffer: 1 << 30 });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`);
    return r.stdout.trim();
  };
  const commit = git(['rev-parse', '--verify', `${ref}^{commit}`]);
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-baseline-'));
  try {
    const tar = spawnSync('sh', ['-c', `git archive ${commit} | tar -x -C "$0"`, dir], { encoding: 'utf8' });
    if (tar.status !== 0) throw new Error(`git archive ${commit}: ${tar.stderr.trim()}`);
    await symlink(path.resolve('node_modules'), path.join(dir, 'node_modules'));
    progress(`d') the same scenario on ${ref} (${commit.slice(0, 10)}), from ${dir}`);
    const args = ['--import', 'tsx', 'scripts/bench-stream.ts', '--only', 'd', '--json', ...(QUICK ? ['--quick'] : [])];
    const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    if (code !== 0) throw new Error(`the baseline bench exited with ${code}`);
    const last = out.trim().split('\n').pop() ?? '';
    const sc = (JSON.parse(last) as { scale: Record<string, number> }).scale;
    const perLine = sc.cpu_us_per_line ?? ((sc.cpu_pct_per_printer! / 100) * 1e6) / sc.lines_per_s_each!;
    return { ref, commit, cpu_us_per_line: round(perLine, 2), lines_per_s_each: sc.lines_per_s_each!, loop_p99_ms: sc.loop_p99_ms! };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- e) memory against file size

/** Writes `bytes` of G-code: one move, then a long comment line (like the base64 thumbnails slicers embed). */
async function writeBigFile(file: string, bytes: number): Promise<{ gcodeLines: number }> {
  const ws = createWriteStream(file);
  const pad = '; ' + 'Q'.repeat(1000);
  let written = 0;
  let lines = 0;
  let x = 20;
  const blocks: string[] = [];
  while (written < bytes) {
    blocks.length = 0;
    for (let i = 0; i < 256 && written < bytes; i++) {
      x = x >= 200 ? 20 : x + 0.4;
      const block = `G1 X${x.toFixed(3)} Y${(lines % 180) + 20}.5 E${(lines * 0.0132).toFixed(4)}\n${pad}\n`;
      blocks.push(block);
      written += block.length;
      lines++;
    }
    if (!ws.write(blocks.join(''))) await new Promise<void>((r) => ws.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => ws.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return { gcodeLines: lines };
}

async function memory(dir: string) {
  const bytes = QUICK ? 40 * 1024 * 1024 : 1024 * 1024 * 1024;
  const file = path.join(dir, 'big.gcode');
  progress(`e) writing a ${(bytes / 1024 / 1024).toFixed(0)} MB G-code file (streamed) ...`);
  const { gcodeLines } = await writeBigFile(file, bytes);
  progress(`e) streaming it at max speed (baud=0, instant): ${gcodeLines} moves + as many comment lines`);
  // Files over the prepared-file cap are streamed from disk; the quick file is smaller than the cap, so this cache
  // prepares nothing and the quick run measures the same streaming path as the full one.
  const s = await openStreamer('baud=0&speed=max', { preparedFiles: new PreparedGcodeCache({ maxFileBytes: 0 }) });
  const samples: number[] = [];
  try {
    const t0 = performance.now();
    const job = await s.session.startJob({ jobId: 'mem', filePath: file });
    let next = 10;
    const sampler = setInterval(() => {
      const p = job.snapshot().progress;
      if (p >= next) {
        samples.push(process.memoryUsage.rss());
        progress(`e) ${next}%: rss ${(process.memoryUsage.rss() / 1024 / 1024).toFixed(1)} MB`);
        next += 10;
      }
    }, 50);
    const outcome = await job.finished;
    clearInterval(sampler);
    while (samples.length < 10) samples.push(process.memoryUsage.rss());
    if (outcome.status !== 'completed') throw new Error(`memory run did not complete: ${JSON.stringify(outcome)}`);
    const warm = samples[1]!; // after 20 %
    const growth = Math.max(...samples.slice(1)) - warm;
    return {
      file_mb: round(bytes / 1024 / 1024, 0),
      rss_growth_mb: round(growth / 1024 / 1024, 1),
      rss_mb_at_20pct: round(warm / 1024 / 1024, 1),
      seconds: round((performance.now() - t0) / 1000, 0),
      moves: gcodeLines,
    };
  } finally {
    await s.close();
    await rm(file, { force: true });
  }
}

// ---------------------------------------------------------------- f) integrity

async function integrity(dir: string) {
  const out = [];
  const count = QUICK ? [3000, 600] : [100_000, 100_000];
  for (const [rate, lines] of [
    [1e-4, count[0]!],
    [1e-3, count[1]!],
  ] as const) {
    const text = moves(lines);
    // The session ends every job with M400 (wait for the moves); it is part of what must run, once, last.
    const expected = [...text.split('\n').filter((l) => l !== ''), 'M400'];
    const file = await gcodeFile(dir, `int${rate}.gcode`, text);
    progress(`f) ${lines} lines at byte error rate ${rate} (baud=0, instant)`);
    const s = await openStreamer(`record=1&baud=0&speed=max&error_rate=${rate}&seed=5`);
    try {
      const base = s.sim().printer.executedJobLines().length;
      const r = await streamFile(s, file);
      const ran = jobLinesRun(s, base);
      // Strict: every executed line equals the file's, in order, none missing or extra; an undetectable corruption counts too.
      const check = checkRecord(ran, expected);
      const exact = r.outcome === 'completed' && check.exact;
      if (!exact) progress(`f) NOT exact at ${rate}: outcome ${r.outcome}; ${check.describe()}`);
      out.push({
        error_rate: rate,
        lines: expected.length - 1,
        exact,
        checksum_invisible: check.checksumInvisible.length,
        unframed: check.unframed.length,
        resend_ratio: round(r.host.linesResent / Math.max(1, r.host.linesSent), 4),
        resends: r.host.resends,
        timeouts: r.host.timeouts,
        seconds: round(r.ms / 1000, 1),
      });
    } finally {
      await s.close();
    }
  }
  return out;
}

// ---------------------------------------------------------------- g) MeatPack against text on the same link

/**
 * The printer's clock moves only here, 0.1 ms a step, and each step waits for the host to have answered everything due
 * (a setImmediate turn): the host's own latency costs no simulated time, so the modelled link is the only bound and
 * the figures do not depend on the load of the machine the benchmark runs on.
 */
function driveSimulatedTime(scheduler: ManualScheduler): () => void {
  let running = true;
  void (async () => {
    while (running) {
      scheduler.advance(0.1);
      await new Promise((r) => setImmediate(r));
    }
  })();
  return () => (running = false);
}

async function meatpack(dir: string) {
  const baud = 115200;
  const seconds = QUICK ? 2 : 10;
  const count = Math.round(((baud / 10) * seconds) / 34);
  const text = moves(count);
  const expected = [...text.split('\n').filter((l) => l !== ''), 'M400'];
  const file = await gcodeFile(dir, 'meatpack.gcode', text);
  const runs: Array<{ lps: number; exact: boolean; packed: boolean; wire: number; framed: number }> = [];
  for (const mp of [0, 1]) {
    progress(`g) ${count} lines at ${baud} baud, instant firmware, simulated time, MeatPack ${mp ? 'on' : 'off'}`);
    const scheduler = new ManualScheduler();
    const stop = driveSimulatedTime(scheduler);
    const s = await openStreamer(`record=1&baud=${baud}&speed=1&instant=1&meatpack=${mp}`, { scheduler });
    try {
      const base = s.sim().printer.executedJobLines().length;
      const simStart = scheduler.now();
      const r = await streamFile(s, file);
      const simMs = scheduler.now() - simStart;
      const ran = jobLinesRun(s, base);
      const check = checkRecord(ran, expected);
      if (!check.exact) progress(`g) NOT exact with MeatPack ${mp ? 'on' : 'off'}: outcome ${r.outcome}; ${check.describe()}`);
      runs.push({
        lps: r.lines / (simMs / 1000),
        exact: r.outcome === 'completed' && check.exact,
        packed: s.session.meatpackActive,
        wire: r.printer.bytesReceived,
        framed: expected.reduce((n, l) => n + l.length, 0),
      });
    } finally {
      await s.close();
      stop();
    }
  }
  const [plain, packed] = runs as [(typeof runs)[0], (typeof runs)[0]];
  if (!packed.packed) throw new Error('meatpack: the session did not turn MeatPack on against a simulated Marlin that has it');
  return {
    ratio: round(packed.lps / plain.lps, 2),
    exact: plain.exact && packed.exact,
    plain_lps: round(plain.lps, 0),
    meatpack_lps: round(packed.lps, 0),
    wire_per_plain: round(packed.wire / plain.wire, 3),
    lines: count,
  };
}

// ---------------------------------------------------------------- report

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-bench-'));
  const started = performance.now();
  try {
    const link = ONLY.has('a') ? await linkBound(dir) : [];
    const pp = ONLY.has('b') ? await pingPong(dir) : [];
    const starve = ONLY.has('c') ? await starvation(dir) : null;
    const sc0 = ONLY.has('d') ? await scale(dir) : null;
    const base = sc0 && BASELINE_REF !== undefined ? await baselineScale(BASELINE_REF) : null;
    const sc = sc0 && {
      ...sc0,
      baseline: base && { ref: base.ref, cpu_us_per_line: base.cpu_us_per_line, lines_per_s_each: base.lines_per_s_each, loop_p99_ms: base.loop_p99_ms },
      cpu_ratio_to_baseline: base ? round(sc0.cpu_us_per_line / base.cpu_us_per_line, 3) : null,
    };
    const mem = ONLY.has('e') ? await memory(dir) : null;
    const integ = ONLY.has('f') ? await integrity(dir) : [];
    const mp = ONLY.has('g') ? await meatpack(dir) : null;
    progress(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);

    const json = {
      link: link.map(({ baud, ratio }) => ({ baud, ratio })),
      pingpong: pp.map(({ latency_ms, speedup }) => ({ latency_ms, speedup })),
      starvation_ms: starve?.starvation_ms ?? null,
      scale: sc,
      memory: mem ? { file_mb: mem.file_mb, rss_growth_mb: mem.rss_growth_mb } : null,
      integrity: integ.map(({ error_rate, lines, exact, checksum_invisible, resend_ratio }) => ({ error_rate, lines, exact, checksum_invisible, resend_ratio })),
      meatpack: mp ? { ratio: mp.ratio, exact: mp.exact } : null,
    };
    if (JSON_OUT) {
      process.stdout.write(JSON.stringify(json) + '\n');
      return;
    }
    const rows: string[][] = [['measure', 'result', 'target', 'how']];
    for (const l of link) {
      rows.push([`a) link ${l.baud}`, `${l.ratio} of baud/10 (${l.lines_per_s} lines/s)`, '>= 0.95', 'real time, instant firmware']);
    }
    for (const p of pp) {
      rows.push([`b) ping-pong ${p.latency_ms} ms`, `x${p.speedup} (${p.windowed_lps} vs ${p.pingpong_lps} lines/s)`, p.latency_ms === 16 ? '>= 2' : '-', 'real time, 115200 baud']);
    }
    if (starve) {
      rows.push(['c) starvation', `${starve.starvation_ms} ms in ${starve.events} gaps (${starve.lines} lines, ${starve.lines_per_s} lines/s)`, '0 (link allows 735/s)', 'real time, 250000 baud, sim ms']);
    }
    if (sc) {
      rows.push(['d) scale cpu', `${sc.cpu_pct_per_printer} % of a core / printer`, '<= 1 %', `host process only: ${sc.printers} printers over tcp://127.0.0.1, ${sc.lines_per_s_each} lines/s each`]);
      rows.push([
        'd) cpu per line',
        `${sc.cpu_us_per_line} us (user ${sc.cpu_us_per_line_user}, kernel ${sc.cpu_us_per_line_sys})`,
        base ? `<= ${round(base.cpu_us_per_line / 2, 2)} us` : '-',
        base
          ? `${base.ref} (${base.commit.slice(0, 10)}): ${base.cpu_us_per_line} us, ${base.lines_per_s_each} lines/s each, loop p99 ${base.loop_p99_ms} ms; ratio ${sc.cpu_ratio_to_baseline}`
          : 'host process CPU / lines acknowledged (--baseline-ref REF runs another commit beside it)',
      ]);
      rows.push(['d) sim cpu', sc.sim_cpu_pct_per_printer === null ? 'n/a (no /proc)' : `${sc.sim_cpu_pct_per_printer} % of a core / printer`, '-', 'the simulate --tcp child, same window (/proc stat)']);
      rows.push(['d) loop p99', `${sc.loop_p99_ms} ms`, '<= 20 ms', 'monitorEventLoopDelay']);
      rows.push(['d) rss', `${sc.rss_mb} MB`, '<= 200 MB', 'max over the window']);
    }
    if (mem) {
      rows.push(['e) memory', `+${mem.rss_growth_mb} MB after 20 % (rss ${mem.rss_mb_at_20pct} MB)`, 'no growth', `${mem.file_mb} MB file, ${mem.moves} moves + thumbnail-like comments, ${mem.seconds} s`]);
    }
    for (const i of integ) {
      rows.push([
        `f) integrity ${i.error_rate}`,
        `${i.exact ? 'exact' : 'NOT exact'}, ${i.checksum_invisible} checksum-invisible, ${i.unframed} unframed, ${i.resends} resend requests (ratio ${i.resend_ratio}), ${i.timeouts} timeouts`,
        'exact',
        `${i.lines} lines, ${i.seconds} s, baud=0`,
      ]);
    }
    if (mp) {
      rows.push([
        'g) meatpack',
        `x${mp.ratio} (${mp.meatpack_lps} vs ${mp.plain_lps} lines/s), ${mp.exact ? 'exact' : 'NOT exact'}`,
        '>= 1.6, exact',
        `${mp.lines} lines, 115200 baud, instant firmware, simulated time; ${mp.wire_per_plain} of the bytes on the wire`,
      ]);
    }
    const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
    const fmt = (r: string[]): string => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd();
    console.log(fmt(rows[0]!));
    console.log(widths.map((w) => '-'.repeat(w)).join('  '));
    for (const r of rows.slice(1)) console.log(fmt(r));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench-stream failed: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
