// `npx tsx scripts/bench-scheduler.ts [--json] [--quick]`: how long decide() and forecast() take on a 50-printer, 1,000-job farm.
// JSON (--json), last line: { printers, jobs, iterations, decide: [{scenario, median_ms, p95_ms, max_ms, starts, waiting, clear_bed}],
//   forecast: {median_ms, p95_ms, max_ms, entries, unplaced} }
import { performance } from 'node:perf_hooks';
import { decide } from '../src/scheduler/decide.js';
import { forecast } from '../src/scheduler/forecast.js';
import { randomFarm, type FarmShape } from '../test/scheduler/random-farm.js';

const argv = process.argv.slice(2);
const JSON_OUT = argv.includes('--json');
const QUICK = argv.includes('--quick');
for (const a of argv) {
  if (!['--json', '--quick'].includes(a)) {
    process.stderr.write(`bench-scheduler: unknown argument ${a} (known: --json, --quick)\n`);
    process.exit(2);
  }
}

const PRINTERS = 50;
const JOBS = 1000;
const ITERATIONS = QUICK ? 50 : 500;
const FORECAST_ITERATIONS = QUICK ? 10 : 100;

interface Timing {
  median_ms: number;
  p95_ms: number;
  max_ms: number;
}

/** Runs fn a few times to warm the JIT, then times each call. */
function time(iterations: number, fn: () => void): Timing {
  for (let i = 0; i < Math.min(20, iterations); i++) fn();
  const ms: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number): number => Number(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(3));
  return { median_ms: at(0.5), p95_ms: at(0.95), max_ms: at(1) };
}

const scenarios: Array<{ scenario: string; shape: Omit<FarmShape, 'printers' | 'jobs'> }> = [
  { scenario: 'half the printers free, 4 kW budget', shape: { seed: 1, freeShare: 0.5 } },
  { scenario: 'every printer free, no budget', shape: { seed: 2, freeShare: 1, powerBudget: null } },
  { scenario: 'no printer free (reasons only)', shape: { seed: 3, freeShare: 0 } },
  { scenario: 'auto_start, 2 kW budget', shape: { seed: 4, freeShare: 0.3, autoStart: true, powerBudget: 2000 } },
];

const decideRows = scenarios.map(({ scenario, shape }) => {
  const farm = randomFarm({ printers: PRINTERS, jobs: JOBS, ...shape });
  const out = decide(farm);
  const timing = time(ITERATIONS, () => decide(farm));
  return { scenario, ...timing, starts: out.starts.length, waiting: out.waiting.size, clear_bed: out.clear_bed.length };
});

const farm = randomFarm({ printers: PRINTERS, jobs: JOBS, seed: 1 });
const plan = forecast(farm);
const forecastRow = { ...time(FORECAST_ITERATIONS, () => forecast(farm)), entries: plan.entries.length, unplaced: plan.unplaced.length };

const pad = (s: string | number, n: number): string => String(s).padStart(n);
const lines = [
  `scheduler on ${PRINTERS} printers x ${JOBS} queued jobs (${ITERATIONS} runs each, forecast ${FORECAST_ITERATIONS})`,
  '',
  `${'decide()'.padEnd(38)}${pad('median ms', 11)}${pad('p95 ms', 9)}${pad('max ms', 9)}${pad('starts', 8)}${pad('waiting', 9)}${pad('clear', 7)}`,
  ...decideRows.map(
    (r) => `${r.scenario.padEnd(38)}${pad(r.median_ms, 11)}${pad(r.p95_ms, 9)}${pad(r.max_ms, 9)}${pad(r.starts, 8)}${pad(r.waiting, 9)}${pad(r.clear_bed, 7)}`,
  ),
  '',
  `${'forecast()'.padEnd(38)}${pad('median ms', 11)}${pad('p95 ms', 9)}${pad('max ms', 9)}${pad('entries', 9)}${pad('unplaced', 10)}`,
  `${'half the printers free'.padEnd(38)}${pad(forecastRow.median_ms, 11)}${pad(forecastRow.p95_ms, 9)}${pad(forecastRow.max_ms, 9)}${pad(forecastRow.entries, 9)}${pad(forecastRow.unplaced, 10)}`,
];
process.stdout.write(`${lines.join('\n')}\n`);
if (JSON_OUT) {
  const result = { printers: PRINTERS, jobs: JOBS, iterations: ITERATIONS, decide: decideRows, forecast: forecastRow };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
