// `npm run bench:heatup [-- --json] [--runs N]`: pause and cancel inside a bed heat-up (M190) and resume after a short pause, on
// virtual printers running in real time (sim://x?speed=1). Human table; with --json the last line is one JSON object:
// { pause_s, cancel_s, cancel_event_s, resume_s, pending_visible_s, runs, targets: { pause_s, cancel_s, resume_s }, pass }
// cancel_s runs to the end of the cancel script (the printer idle, heaters off; when DELETE /v1/jobs/:id answers);
// cancel_event_s to job.cancelled. Every figure is the worst of the runs.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventBus } from '../src/events/event-bus.js';
import { PrinterSession } from '../src/printers/printer-session.js';
import { createSimTransport, type SimTransport } from '../src/transport/sim.transport.js';

const argv = process.argv.slice(2);
const JSON_OUT = argv.includes('--json');
const runsAt = argv.indexOf('--runs');
const RUNS = runsAt < 0 ? 3 : Number(argv[runsAt + 1]);
for (const [i, a] of argv.entries()) {
  if (a !== '--json' && a !== '--runs' && !(i === runsAt + 1 && runsAt >= 0)) {
    process.stderr.write(`bench-heatup: unknown argument ${a} (known: --json, --runs N)\n`);
    process.exit(2);
  }
}
if (!Number.isInteger(RUNS) || RUNS < 1 || RUNS > 20) {
  process.stderr.write('bench-heatup: --runs takes an integer from 1 to 20\n');
  process.exit(2);
}
const TARGETS = { pause_s: 2, cancel_s: 2, resume_s: 3 };
const progress = (msg: string): void => void process.stderr.write(`[bench] ${msg}\n`);
const seconds = (ms: number): number => Number((ms / 1000).toFixed(3));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Rig {
  session: PrinterSession;
  bus: EventBus;
  sim: () => SimTransport;
  close(): Promise<void>;
}

let seq = 0;
async function rig(query: string): Promise<Rig> {
  const bus = new EventBus();
  let sim: SimTransport | null = null;
  const session = new PrinterSession({
    printerId: `heat${++seq}`,
    url: `sim://heat${seq}?${query}`,
    bus,
    autoReconnect: false,
    drainQuietMs: 50,
    drainMaxMs: 500,
    createTransport: (u) => (sim = createSimTransport(new URL(u))),
  });
  await session.connect();
  return {
    session,
    bus,
    sim: () => sim!,
    close: async () => {
      await session.disconnect();
      sim?.printer.close();
    },
  };
}

/** Resolves with performance.now() at the first `name` event. */
function at(bus: EventBus, name: 'job.paused' | 'job.cancelled' | 'job.resumed'): Promise<number> {
  return new Promise((resolve) => {
    const off = bus.on(name, () => {
      off();
      resolve(performance.now());
    });
  });
}

/** A job that heats the bed to 90 °C (a minute in real time) before anything else; returns once M190 is running. */
async function insideHeatUp(r: Rig, file: string): Promise<void> {
  await r.session.startJob({ jobId: `job_${seq}`, filePath: file });
  const deadline = performance.now() + 10_000;
  while (r.sim().printer.temperatures().bedTarget !== 90) {
    if (performance.now() > deadline) throw new Error('the heat-up never started');
    await sleep(5);
  }
  await sleep(1000);
}

async function pauseRun(file: string): Promise<number> {
  const r = await rig('speed=1');
  try {
    await insideHeatUp(r, file);
    const paused = at(r.bus, 'job.paused');
    const t0 = performance.now();
    await r.session.pause();
    return (await paused) - t0;
  } finally {
    await r.close();
  }
}

async function cancelRun(file: string): Promise<{ status: number; script: number }> {
  const r = await rig('speed=1');
  try {
    await insideHeatUp(r, file);
    const cancelled = at(r.bus, 'job.cancelled');
    const t0 = performance.now();
    await r.session.cancel();
    const scriptDone = performance.now();
    return { status: (await cancelled) - t0, script: scriptDone - t0 };
  } finally {
    await r.close();
  }
}

/** Klipper cannot break the wait: how long until the job shows the pending pause (the pause itself waits for M190). */
async function pendingRun(file: string): Promise<number | null> {
  const r = await rig('speed=1&profile=klipper');
  try {
    await insideHeatUp(r, file);
    const t0 = performance.now();
    void r.session.pause().catch(() => undefined);
    // Bounded: a host without pending actions never shows one (null in the results).
    while (r.session.snapshot().job?.pending_action !== 'pause') {
      if (performance.now() - t0 > 5000) return null;
      await sleep(1);
    }
    const visible = performance.now() - t0;
    await r.session.cancel();
    return visible;
  } finally {
    await r.close();
  }
}

/** Heat up (10 s residency like Marlin's default), print a little, pause, resume: the time from resume to printing. */
async function resumeRuns(file: string): Promise<number[]> {
  const r = await rig('speed=1&residency_s=10');
  try {
    await r.session.startJob({ jobId: `job_${seq}`, filePath: file });
    const out: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      while ((r.session.snapshot().job?.lines_acked ?? 0) < 20 + i * 40) await sleep(20);
      await r.session.pause();
      await sleep(500);
      const resumed = at(r.bus, 'job.resumed');
      const t0 = performance.now();
      await r.session.resume();
      out.push((await resumed) - t0);
    }
    await r.session.cancel();
    return out;
  } finally {
    await r.close();
  }
}

const dir = await mkdtemp(path.join(tmpdir(), 'bench-heatup-'));
try {
  const moves = Array.from({ length: 2000 }, (_, i) => `G1 X${20 + (i % 2) * 5} Y20 F3000`);
  const heatFile = path.join(dir, 'heat.gcode');
  await writeFile(heatFile, ['M190 S90', 'M109 S210', 'G90', ...moves, ''].join('\n'));
  const resumeFile = path.join(dir, 'resume.gcode');
  await writeFile(resumeFile, ['M140 S40', 'M104 S50', 'M190 S40', 'M109 S50', 'G90', ...moves, ''].join('\n'));

  const pauses: number[] = [];
  const cancels: Array<{ status: number; script: number }> = [];
  for (let i = 0; i < RUNS; i++) {
    progress(`pause inside M190 S90, run ${i + 1}/${RUNS}`);
    pauses.push(await pauseRun(heatFile));
    progress(`cancel inside M190 S90, run ${i + 1}/${RUNS}`);
    cancels.push(await cancelRun(heatFile));
  }
  progress('Klipper: pending pause inside M190');
  const pendingVisible = await pendingRun(heatFile);
  progress(`resume after a short pause, residency 10 s (heat-up first, ~30 s)`);
  const resumes = await resumeRuns(resumeFile);

  const worst = (xs: number[]): number => seconds(Math.max(...xs));
  const result = {
    pause_s: worst(pauses),
    cancel_s: worst(cancels.map((c) => c.script)),
    cancel_event_s: worst(cancels.map((c) => c.status)),
    resume_s: worst(resumes),
    pending_visible_s: pendingVisible === null ? null : seconds(pendingVisible),
    runs: RUNS,
    targets: TARGETS,
    pass: false,
  };
  result.pass = result.pause_s <= TARGETS.pause_s && result.cancel_s <= TARGETS.cancel_s && result.resume_s <= TARGETS.resume_s;
  const row = (what: string, xs: number[], target: number | null): string =>
    `${what.padEnd(46)}${xs.map((x) => seconds(x).toFixed(3).padStart(8)).join('')}${(target === null ? '-' : `<= ${target}`).padStart(9)}`;
  const lines = [
    `heat-up actions on sim://x?speed=1 (real time), ${RUNS} runs each, seconds`,
    '',
    `${'measure'.padEnd(46)}${Array.from({ length: RUNS }, (_, i) => `run ${i + 1}`.padStart(8)).join('')}${'target'.padStart(9)}`,
    row('pause inside M190: call -> job.paused', pauses, TARGETS.pause_s),
    row('cancel inside M190: call -> cancel script done', cancels.map((c) => c.script), TARGETS.cancel_s),
    row('cancel inside M190: call -> job.cancelled', cancels.map((c) => c.status), null),
    row('resume after a short pause (residency 10 s)', resumes, TARGETS.resume_s),
    pendingVisible === null
      ? `${'Klipper pause inside M190: pending_action shown'.padEnd(46)}   never`
      : row('Klipper pause inside M190: pending_action shown', [pendingVisible], null),
    '',
    `worst: pause ${result.pause_s} s, cancel ${result.cancel_s} s, resume ${result.resume_s} s: ${result.pass ? 'all targets met' : 'TARGET MISSED'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (JSON_OUT) process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
