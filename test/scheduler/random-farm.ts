// Seeded random farms and queues (same seed, same farm) for the scheduler's property tests and its benchmark.
import type { JobPriority, PrinterStatus, SchedulerInput, SchedulerJob, SchedulerPrinter } from '../../src/scheduler/scheduler-types.js';

import { seededRandom } from '../helpers/seeded-random.js';

export { seededRandom };

export interface FarmShape {
  printers: number;
  jobs: number;
  seed: number;
  /** Share of printers idle and ready (the rest spread over the other states). */
  freeShare?: number;
  powerBudget?: number | null;
  autoStart?: boolean;
  now?: number;
}

const TYPES = ['PLA', 'PETG', 'ABS', 'TPU'];
const COLORS = ['black', 'white', 'red', null];
const GROUPS = ['left-rack', 'right-rack', null];
const NOZZLES = [0.4, 0.6, null];
const OTHER_STATES: PrinterStatus[] = ['printing', 'printing', 'printing', 'paused', 'offline', 'error', 'connecting'];
const PRIORITIES: JobPriority[] = ['low', 'normal', 'normal', 'normal', 'high', 'urgent'];

export function randomFarm(shape: FarmShape): SchedulerInput & { now: number } {
  const rnd = seededRandom(shape.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const now = shape.now ?? Date.UTC(2026, 0, 1, 12);
  const freeShare = shape.freeShare ?? 0.5;

  const printers: SchedulerPrinter[] = [];
  for (let n = 0; n < shape.printers; n++) {
    const free = rnd() < freeShare;
    const status = free ? 'idle' : rnd() < 0.3 ? 'idle' : pick(OTHER_STATES);
    const tools = rnd() < 0.15 ? 2 : 1;
    printers.push({
      id: `prt_${String(n).padStart(4, '0')}`,
      group: pick(GROUPS),
      tags: [],
      formats: ['gcode'],
      status,
      ready: free || (status === 'idle' ? false : rnd() < 0.5),
      has_clear_bed_gcode: rnd() < 0.3,
      clear_bed_temperature: rnd() < 0.5 ? 35 : null,
      bed_temperature: rnd() < 0.9 ? Math.round(rnd() * 70) : null,
      clearing_bed: status === 'idle' && !free && rnd() < 0.1,
      nozzle_diameter: pick(NOZZLES),
      heatup_watts: rnd() < 0.8 ? 300 + Math.round(rnd() * 900) : null,
      heating: status === 'printing' && rnd() < 0.2,
      loaded_materials: Array.from({ length: tools }, (_, tool) => ({
        tool,
        type: pick(TYPES),
        color: pick(COLORS),
        remaining_g: rnd() < 0.6 ? Math.round(rnd() * 1000) : null,
      })),
      current_job_remaining_s: status === 'printing' || status === 'paused' ? (rnd() < 0.9 ? Math.round(rnd() * 20_000) : null) : null,
    });
  }

  const jobs: SchedulerJob[] = [];
  let batch: { id: string; left: number; template: Omit<SchedulerJob, 'id' | 'batch_id'> } | null = null;
  for (let n = 0; n < shape.jobs; n++) {
    if (batch === null && rnd() < 0.1) {
      batch = { id: `bat_${n}`, left: 2 + Math.floor(rnd() * 8), template: randomJob(n) };
    }
    if (batch !== null) {
      jobs.push({ ...batch.template, id: `job_${String(n).padStart(5, '0')}`, batch_id: batch.id });
      batch.left -= 1;
      if (batch.left === 0) batch = null;
    } else {
      jobs.push({ ...randomJob(n), id: `job_${String(n).padStart(5, '0')}`, batch_id: null });
    }
  }
  return {
    jobs,
    printers,
    org: { auto_start: shape.autoStart ?? false, power_budget_watts: shape.powerBudget === undefined ? 4000 : shape.powerBudget },
    now,
  };

  function randomJob(n: number): Omit<SchedulerJob, 'id' | 'batch_id'> {
    const material = rnd() < 0.7 ? { type: pick(TYPES), color: rnd() < 0.3 ? pick(COLORS) : null } : null;
    return {
      priority: pick(PRIORITIES),
      // Some share a creation time, so the id tie-break is exercised.
      created_at: now - 86_400_000 + Math.floor(n / 3) * 60_000,
      printer_id: shape.printers > 0 && rnd() < 0.05 ? printers[Math.floor(rnd() * shape.printers)]!.id : null,
      group: rnd() < 0.2 ? pick(GROUPS) : null,
      material,
      nozzle_diameter: rnd() < 0.5 ? pick(NOZZLES) : null,
      file_format: 'gcode',
      estimated_duration_s: rnd() < 0.85 ? 600 + Math.round(rnd() * 30_000) : null,
      estimated_usage_g: rnd() < 0.8 ? Math.round(rnd() * 400) : null,
    };
  }
}
