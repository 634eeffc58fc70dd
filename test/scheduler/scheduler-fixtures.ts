// Short builders for scheduler tables: a printer or a job in one line, everything else at a neutral default.
import assert from 'node:assert/strict';
import { decide } from '../../src/scheduler/decide.js';
import type { JobPriority, LoadedMaterial, SchedulerJob, SchedulerOrg, SchedulerPrinter } from '../../src/scheduler/scheduler-types.js';
import type { WaitingReason } from '../../src/scheduler/waiting-reasons.js';

export const T0 = Date.UTC(2026, 0, 1, 8);

/** 'PLA' or 'PLA:red', optionally with grams left: 'PLA:red@120'. Several tools: 'PLA,PETG:black'. */
export function spools(spec: string): LoadedMaterial[] {
  return spec.split(',').map((one, tool) => {
    const [material, grams] = one.split('@') as [string, string | undefined];
    const [type, color] = material.split(':') as [string, string | undefined];
    return { tool, type, color: color ?? null, remaining_g: grams === undefined ? null : Number(grams) };
  });
}

export interface PrinterSpec extends Partial<Omit<SchedulerPrinter, 'loaded_materials'>> {
  /** spools() notation. */
  mat?: string;
}

export function printer(id: string, spec: PrinterSpec = {}): SchedulerPrinter {
  const { mat, ...rest } = spec;
  return {
    id,
    group: null,
    tags: [],
    status: 'idle',
    ready: true,
    has_clear_bed_gcode: false,
    clear_bed_temperature: null,
    bed_temperature: null,
    clearing_bed: false,
    nozzle_diameter: null,
    heatup_watts: null,
    heating: false,
    loaded_materials: mat === undefined ? [] : spools(mat),
    current_job_remaining_s: null,
    formats: ['gcode'],
    ...rest,
  };
}

export interface JobSpec {
  priority?: JobPriority;
  /** Minutes after T0 it was created. */
  at?: number;
  pin?: string;
  group?: string;
  /** 'PLA' or 'PLA:red'. */
  mat?: string;
  nozzle?: number;
  usage?: number;
  /** Seconds. */
  duration?: number;
  batch?: string;
  /** The file's format (default gcode). */
  format?: 'gcode' | 'bgcode' | '3mf';
  /** A 3mf file's Bambu model code (slice_info.config's printer_model_id). */
  slicedFor?: string;
}

export function job(id: string, spec: JobSpec = {}): SchedulerJob {
  const [type, color] = (spec.mat ?? '').split(':') as [string, string | undefined];
  return {
    id,
    priority: spec.priority ?? 'normal',
    created_at: T0 + (spec.at ?? 0) * 60_000,
    printer_id: spec.pin ?? null,
    group: spec.group ?? null,
    material: spec.mat === undefined ? null : { type, color: color ?? null },
    nozzle_diameter: spec.nozzle ?? null,
    estimated_duration_s: spec.duration ?? null,
    estimated_usage_g: spec.usage ?? null,
    file_format: spec.format ?? 'gcode',
    printer_model_id: spec.slicedFor ?? null,
    batch_id: spec.batch ?? null,
  };
}

export const ORG: SchedulerOrg = { auto_start: false, power_budget_watts: null };

/** One table row: a situation and everything decide() must answer for it. */
export interface DecideRow {
  name: string;
  org?: Partial<SchedulerOrg>;
  printers: SchedulerPrinter[];
  jobs: SchedulerJob[];
  /** job id -> printer id, in queue order. */
  starts?: Record<string, string>;
  waiting?: Record<string, WaitingReason>;
  clear_bed?: string[];
}

export function checkDecideRow(row: DecideRow): void {
  const out = decide({ jobs: row.jobs, printers: row.printers, org: { ...ORG, ...row.org } });
  assert.deepEqual(
    out.starts.map((s) => [s.job_id, s.printer_id]),
    Object.entries(row.starts ?? {}),
    `${row.name}: starts`,
  );
  assert.deepEqual(Object.fromEntries(out.waiting), row.waiting ?? {}, `${row.name}: waiting`);
  assert.deepEqual(
    out.clear_bed.map((c) => c.printer_id),
    row.clear_bed ?? [],
    `${row.name}: clear_bed`,
  );
}
