// Properties decide() and forecast() keep on many seeded random farms, checked against a plain reading of the rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decide } from '../../src/scheduler/decide.js';
import { forecast } from '../../src/scheduler/forecast.js';
import { classifyPrinter } from '../../src/scheduler/printer-state.js';
import type { SchedulerJob, SchedulerPrinter } from '../../src/scheduler/scheduler-types.js';
import { randomFarm, seededRandom } from './random-farm.js';

/** The matching rules as the issue states them, one printer at a time, with no caching or funnel. */
function oracleFits(job: SchedulerJob, p: SchedulerPrinter): boolean {
  if (job.printer_id !== null && job.printer_id !== p.id) return false;
  if (job.group !== null && job.group !== p.group) return false;
  if (job.nozzle_diameter !== null && p.nozzle_diameter !== null && Math.abs(job.nozzle_diameter - p.nozzle_diameter) > 0.001) return false;
  const want = job.material;
  const same = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();
  const spools = p.loaded_materials.filter((m) => want === null || (same(m.type, want.type) && (want.color === null || (m.color !== null && same(m.color, want.color)))));
  if (want !== null && spools.length === 0) return false;
  const need = (job.estimated_usage_g ?? 0) * 1.05 - 1e-9;
  return spools.length === 0 || spools.some((m) => m.remaining_g === null || m.remaining_g >= need);
}

const PRIORITY = { urgent: 0, high: 1, normal: 2, low: 3 } as const;
/** Whether a comes before b in the queue: priority, then age, then id. */
const oracleAhead = (a: SchedulerJob, b: SchedulerJob): boolean =>
  PRIORITY[a.priority] !== PRIORITY[b.priority]
    ? PRIORITY[a.priority] < PRIORITY[b.priority]
    : a.created_at !== b.created_at
      ? a.created_at < b.created_at
      : a.id < b.id;

function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const rnd = seededRandom(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const SEEDS = Array.from({ length: 60 }, (_, n) => n + 1);

test('decide(): every job once, each printer once, only free fitting printers, priority kept, budget kept', () => {
  for (const seed of SEEDS) {
    const farm = randomFarm({ printers: 3 + (seed % 12), jobs: 5 + ((seed * 7) % 60), seed, powerBudget: seed % 3 === 0 ? null : 2500, autoStart: seed % 4 === 0 });
    const out = decide(farm);
    const byId = new Map(farm.printers.map((p) => [p.id, p]));
    const jobById = new Map(farm.jobs.map((j) => [j.id, j]));
    const where = `seed ${seed}`;

    const started = out.starts.map((s) => s.job_id);
    assert.equal(new Set([...started, ...out.waiting.keys()]).size, farm.jobs.length, where);
    assert.equal(started.length + out.waiting.size, farm.jobs.length, where);
    assert.equal(new Set(out.starts.map((s) => s.printer_id)).size, out.starts.length, where);

    let drawn = farm.printers.reduce((w, p) => w + (p.heating ? (p.heatup_watts ?? 0) : 0), 0);
    for (const s of out.starts) {
      const p = byId.get(s.printer_id)!;
      const j = jobById.get(s.job_id)!;
      assert.equal(classifyPrinter(p, farm.org), 'free', where);
      assert.ok(oracleFits(j, p), `${where}: ${j.id} on ${p.id}`);
      if (!p.heating) drawn += p.heatup_watts ?? 0;
    }
    const budget = farm.org.power_budget_watts;
    const before = farm.printers.reduce((w, p) => w + (p.heating ? (p.heatup_watts ?? 0) : 0), 0);
    if (budget !== null && drawn > before) assert.ok(drawn <= Math.max(budget, before), `${where}: ${drawn} W`);

    // A job that waits (for anything but power) fits no printer a later job got.
    for (const s of out.starts) {
      const later = jobById.get(s.job_id)!;
      for (const [id, reason] of out.waiting) {
        const ahead = jobById.get(id)!;
        if (reason === 'power_budget' || !oracleAhead(ahead, later)) continue;
        assert.ok(!oracleFits(ahead, byId.get(s.printer_id)!), `${where}: ${id} (${reason}) fits ${s.printer_id} taken by ${later.id}`);
      }
    }
    // A job told it waits for busy or offline printers fits no free printer left over.
    const takenIds = new Set(out.starts.map((s) => s.printer_id));
    const leftFree = farm.printers.filter((p) => !takenIds.has(p.id) && classifyPrinter(p, farm.org) === 'free');
    for (const [id, reason] of out.waiting) {
      if (reason === 'power_budget') continue;
      for (const p of leftFree) assert.ok(!oracleFits(jobById.get(id)!, p), `${where}: ${id} (${reason}) fits free ${p.id}`);
    }
    for (const c of out.clear_bed) assert.equal(classifyPrinter(byId.get(c.printer_id)!, farm.org), 'clear_now', where);

    const again = decide({ jobs: shuffled(farm.jobs, seed), printers: shuffled(farm.printers, seed + 1000), org: farm.org });
    assert.deepEqual(again, out, `${where}: input order`);
  }
});

test('forecast(): every job once, no overlap on a printer, only fitting online printers, and "now" equals decide()', () => {
  for (const seed of SEEDS) {
    const farm = randomFarm({ printers: 2 + (seed % 10), jobs: 5 + ((seed * 5) % 50), seed, powerBudget: null, autoStart: seed % 2 === 0 });
    const where = `seed ${seed}`;
    // A changeover of 1 s keeps printers that are not free now out of the first instant, as decide() does.
    const plan = forecast(farm, { changeover_s: 1, default_duration_s: 1800 });
    const ids = [...plan.entries.map((e) => e.job_id), ...plan.unplaced.map((u) => u.job_id)];
    assert.equal(new Set(ids).size, farm.jobs.length, where);
    assert.equal(ids.length, farm.jobs.length, where);

    const byId = new Map(farm.printers.map((p) => [p.id, p]));
    const jobById = new Map(farm.jobs.map((j) => [j.id, j]));
    const lastEnd = new Map<string, number>();
    let lastStart = -Infinity;
    for (const e of plan.entries) {
      const p = byId.get(e.printer_id)!;
      assert.ok(oracleFits(jobById.get(e.job_id)!, p), where);
      assert.notEqual(classifyPrinter(p, farm.org), 'offline', where);
      assert.ok(e.start_at >= farm.now && e.end_at > e.start_at, where);
      assert.ok(e.start_at >= lastStart, `${where}: entries ordered by start`);
      lastStart = e.start_at;
      assert.ok(e.start_at >= (lastEnd.get(p.id) ?? -Infinity) + 1000, `${where}: overlap on ${p.id}`);
      lastEnd.set(p.id, e.end_at);
    }
    const nowStarts = plan.entries.filter((e) => e.start_at === farm.now).map((e) => ({ job_id: e.job_id, printer_id: e.printer_id }));
    assert.deepEqual(nowStarts, decide(farm).starts, where);
  }
});
