// `npx tsx scripts/bench-extrusion.ts [--json] [--quick]`: cost of the extrusion tracker per acknowledged line, and of a snapshot.
// JSON (--json), the last line: { fixtures: [{ name, lines, ns_per_line, min_ns_per_line, motion_ns_per_line }],
//   snapshot: { us, bytes }, restore_us, node }. ns_per_line is the median over the rounds of tracker.update() alone (lines
//   are stripped beforehand, as the session hands them over), min_ns_per_line the best round (the cost without other
//   processes' noise on a shared machine); motion_ns_per_line is MotionTracker.update() on the same lines, for scale.
import { performance } from 'node:perf_hooks';
import { ExtrusionTracker } from '../src/protocol/extrusion-tracker.js';
import { stripGcodeLine } from '../src/protocol/framing.js';
import { MotionTracker } from '../src/protocol/motion-tracker.js';
import { curaJob, orcaSlicerJob, prusaSlicerJob, twoToolPrusaJob } from '../test/protocol/fixtures/slicer-fixtures.js';

const argv = process.argv.slice(2);
const JSON_OUT = argv.includes('--json');
const QUICK = argv.includes('--quick');
for (const a of argv) {
  if (a !== '--json' && a !== '--quick') {
    process.stderr.write(`bench-extrusion: unknown flag ${a} (known: --json, --quick)\n`);
    process.exit(2);
  }
}
const ROUNDS = QUICK ? 3 : 9;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

/** Median and best ns per line of `feed` over the rounds, after two warm-up rounds. */
function nsPerLine(lines: string[], feed: (lines: string[]) => void): { median: number; min: number } {
  feed(lines);
  feed(lines);
  const samples: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    feed(lines);
    samples.push(((performance.now() - t0) * 1e6) / lines.length);
  }
  return { median: median(samples), min: Math.min(...samples) };
}

const fixtures = [prusaSlicerJob(), curaJob(), orcaSlicerJob(), twoToolPrusaJob()].map((fx) => ({
  name: fx.name,
  lines: fx.text.split('\n').map(stripGcodeLine).filter((l) => l !== ''),
}));

let sink = 0;
const rows = fixtures.map(({ name, lines }) => {
  const ns = nsPerLine(lines, (ls) => {
    const t = new ExtrusionTracker();
    for (let i = 0; i < ls.length; i++) t.update(ls[i]!);
    sink += t.netMm(0);
  });
  const motionNs = nsPerLine(lines, (ls) => {
    const m = new MotionTracker();
    for (let i = 0; i < ls.length; i++) m.update(ls[i]!);
    sink += m.totalExtruded;
  });
  return {
    name,
    lines: lines.length,
    ns_per_line: round(ns.median),
    min_ns_per_line: round(ns.min),
    motion_ns_per_line: round(motionNs.median),
  };
});

// Snapshot and restore of a two-tool state (what a pause or a periodic crash-safe save costs).
const two = new ExtrusionTracker();
for (const l of fixtures[3]!.lines) two.update(l);
const REPS = QUICK ? 2000 : 20000;
let t0 = performance.now();
let json = '';
for (let i = 0; i < REPS; i++) json = JSON.stringify(two.snapshot());
const snapshotUs = ((performance.now() - t0) * 1000) / REPS;
const parsed: unknown = JSON.parse(json);
t0 = performance.now();
for (let i = 0; i < REPS; i++) sink += ExtrusionTracker.restore(parsed).linesFed;
const restoreUs = ((performance.now() - t0) * 1000) / REPS;

const result = {
  fixtures: rows,
  snapshot: { us: round(snapshotUs, 2), bytes: json.length },
  restore_us: round(restoreUs, 2),
  node: process.version,
};

const pad = (s: string | number, n: number): string => String(s).padEnd(n);
process.stdout.write(`extrusion tracker, ${ROUNDS} rounds, median (node ${process.version})\n`);
process.stdout.write(`${pad('fixture', 46)}${pad('lines', 8)}${pad('ns/line', 10)}${pad('best', 8)}motion ns/line\n`);
for (const r of rows) {
  process.stdout.write(`${pad(r.name, 46)}${pad(r.lines, 8)}${pad(r.ns_per_line, 10)}${pad(r.min_ns_per_line, 8)}${r.motion_ns_per_line}\n`);
}
process.stdout.write(`snapshot + JSON.stringify: ${result.snapshot.us} µs (${result.snapshot.bytes} bytes); restore (checked): ${result.restore_us} µs\n`);
if (sink === Number.MIN_VALUE) process.stdout.write('\n'); // keeps the work observable to the optimiser
if (JSON_OUT) process.stdout.write(JSON.stringify(result) + '\n');
