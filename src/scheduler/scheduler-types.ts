// The scheduler's input and output shapes: plain data (times as Unix ms numbers) so decide() and forecast() stay pure.
import type { WaitingReason } from './waiting-reasons.js';

export type JobPriority = 'urgent' | 'high' | 'normal' | 'low';

export type PrinterStatus = 'idle' | 'printing' | 'paused' | 'offline' | 'error' | 'connecting';

/** One spool on one tool (the materials feature's loaded spools). A printer without spools gets a single tool-0 entry
 *  from its stop-gap `material_type` / `material_color` fields, with `remaining_g: null`. */
export interface LoadedMaterial {
  tool: number;
  type: string;
  color: string | null;
  /** Grams left on the spool; null when nobody knows (then it never blocks a job). */
  remaining_g: number | null;
}

export interface SchedulerPrinter {
  id: string;
  group: string | null;
  /** Not a matching rule today (jobs name no tags); carried so the loop hands over one printer shape. */
  tags: readonly string[];
  status: PrinterStatus;
  /** False after a print until the bed is cleared (the `ready` action, or the clear-bed G-code has run). */
  ready: boolean;
  has_clear_bed_gcode: boolean;
  /** The bed must be below this (°C) before the clear-bed G-code pushes the part off; null: DEFAULT_CLEAR_BED_TEMPERATURE_C. */
  clear_bed_temperature: number | null;
  /** The bed's temperature now (°C); null before the first report (then no clear-bed G-code runs). */
  bed_temperature: number | null;
  /** True while the loop runs this printer's clear-bed G-code, so decide() neither repeats it nor starts a job there. */
  clearing_bed: boolean;
  /** Refused several job starts in a row: takes no job until it changes or someone retries (absent: false). */
  start_refused?: boolean;
  nozzle_diameter: number | null;
  /** What the printer draws while heating up (W); null: unknown, counted as 0 against the power budget. */
  heatup_watts: number | null;
  /** Heating up now (its heatup_watts count against the budget). */
  heating: boolean;
  loaded_materials: readonly LoadedMaterial[];
  /** File formats it prints (gcode on all but Bambu printers; bgcode on PrusaLink printers; 3mf on Bambu printers). */
  formats: readonly ('gcode' | 'bgcode' | '3mf')[];
  /** The printer's model as set on it ("P1S", "C12"): a sliced 3MF fits only the model it was made for (absent: null). */
  model?: string | null;
  /** Forecast only: seconds the current print still needs (printing or paused); null: unknown (default duration). */
  current_job_remaining_s: number | null;
}

export interface JobMaterial {
  type: string;
  color: string | null;
}

/** A queued job (the loop passes only jobs in status `queued`). */
export interface SchedulerJob {
  id: string;
  priority: JobPriority;
  /** Unix ms. */
  created_at: number;
  /** Pins the job to this printer. */
  printer_id: string | null;
  /** Restricts the job to printers of this group. */
  group: string | null;
  material: JobMaterial | null;
  /** From the slicer metadata (mm). */
  nozzle_diameter: number | null;
  estimated_duration_s: number | null;
  estimated_usage_g: number | null;
  /** Copies made by one create request share it; informative only, copies are scheduled like any job. */
  batch_id: string | null;
  /** The stored file's format: a job fits only printers that print it (bgcode: PrusaLink; 3mf: Bambu). */
  file_format: 'gcode' | 'bgcode' | '3mf';
  /** A 3mf job's Bambu model code (slice_info.config's printer_model_id); null or absent otherwise. */
  printer_model_id?: string | null;
}

export interface SchedulerOrg {
  /** Idle printers that are not ready may take jobs (the operator does not confirm a cleared bed). */
  auto_start: boolean;
  /** Most watts the farm may draw for heat-ups at once; null: unlimited. */
  power_budget_watts: number | null;
}

export interface SchedulerInput {
  jobs: readonly SchedulerJob[];
  printers: readonly SchedulerPrinter[];
  org: SchedulerOrg;
}

export interface StartDecision {
  job_id: string;
  printer_id: string;
}

export interface ClearBedDecision {
  printer_id: string;
}

/** What the loop applies. Every input job is in exactly one of `starts` and `waiting`. */
export interface Decisions {
  /** In queue order (highest priority, oldest first). */
  starts: StartDecision[];
  /** Printers whose clear-bed G-code should run now; the loop sets `ready: true` when it has run. */
  clear_bed: ClearBedDecision[];
  /** Every job not started, with the one reason an operator reads; iteration in queue order. */
  waiting: Map<string, WaitingReason>;
  /** Jobs waiting with printer_refused -> the refusing printer their reason names (for the words they carry). */
  refused_by: Map<string, string>;
}

export interface ForecastInput extends SchedulerInput {
  /** Unix ms; the timeline starts here. */
  now: number;
}

export interface ForecastOptions {
  /** Duration assumed for a job without estimate, and for a current print whose remaining time is unknown. */
  default_duration_s?: number;
  /** Time between one print ending and the next starting on that printer (bed clear, heat-up); also applies to
   *  printers that are not ready now. */
  changeover_s?: number;
}

export interface ForecastEntry {
  job_id: string;
  printer_id: string;
  /** Unix ms. */
  start_at: number;
  /** Unix ms. */
  end_at: number;
  /** True when the job had no estimated duration and the default was used. */
  uses_default_duration: boolean;
}

export interface ForecastUnplaced {
  job_id: string;
  reason: WaitingReason;
}

export interface Forecast {
  /** Ordered by start_at, then queue order. */
  entries: ForecastEntry[];
  /** Jobs no online printer can take, in queue order. */
  unplaced: ForecastUnplaced[];
}
