// What a progress display shows for a session's job: phase (connecting, heating with temperatures, printing...),
// percent of G-code bytes, lines, and an ETA from the slicer's estimate when given, else from the measured rate. Pure.
import type { Temperatures } from '../protocol/protocol-types.js';
import type { JobSnapshot, PrinterStatus } from './printer-state.js';

/** A heater this far below its target (°C) is heating up, not just wavering around it while printing. */
const HEATING_MARGIN = 5;
/** The measured rate is trusted for an ETA only after this share of the job (percent)... */
const MIN_RATE_PERCENT = 1;
/** ...and this much printing time (ms). */
const MIN_RATE_MS = 5_000;

export type ProgressPhase =
  | 'connecting'
  | 'heating'
  | 'printing'
  | 'pausing'
  | 'paused'
  | 'resuming'
  | 'finishing'
  | 'error'
  | 'completed'
  | 'failed'
  | 'cancelled';

export interface ProgressInput {
  status: PrinterStatus;
  job: Pick<JobSnapshot, 'progress' | 'lines_acked' | 'lines_total' | 'elapsed_ms' | 'phase'> | null;
  temperatures: Temperatures;
  /** The slicer's estimate of the whole print in seconds, when the file carries one. */
  estimatedSeconds?: number;
  /** How the job ended, once it has. */
  outcome?: 'completed' | 'failed' | 'cancelled';
}

export interface ProgressView {
  phase: ProgressPhase;
  /** `heating: 143/215 °C` while heating; the phase name otherwise. */
  label: string;
  /** Percent 0..100 of G-code bytes acknowledged. */
  percent: number;
  lines: number;
  linesTotal: number | null;
  /** Seconds left, or null while unknown. */
  etaSeconds: number | null;
  etaSource: 'slicer' | 'rate' | null;
}

const heating = (now: number | undefined, target: number | undefined): boolean =>
  target !== undefined && target > 0 && now !== undefined && now < target - HEATING_MARGIN;

/** The heaters still short of their targets, as `143/215 °C` (hotend first; both named when both heat). */
function heatingLabel(t: Temperatures): string | null {
  const parts: string[] = [];
  const hot = heating(t.hotend, t.hotend_target);
  const bed = heating(t.bed, t.bed_target);
  const fmt = (now: number, target: number): string => `${Math.round(now)}/${Math.round(target)} °C`;
  if (hot) parts.push(`${bed ? 'hotend ' : ''}${fmt(t.hotend!, t.hotend_target!)}`);
  if (bed) parts.push(`bed ${fmt(t.bed!, t.bed_target!)}`);
  return parts.length === 0 ? null : `heating: ${parts.join(', ')}`;
}

function eta(input: ProgressInput, percent: number): Pick<ProgressView, 'etaSeconds' | 'etaSource'> {
  const left = Math.max(0, 100 - percent) / 100;
  const est = input.estimatedSeconds;
  if (est !== undefined && Number.isFinite(est) && est > 0) return { etaSeconds: Math.round(est * left), etaSource: 'slicer' };
  const elapsed = input.job?.elapsed_ms ?? 0;
  if (percent >= MIN_RATE_PERCENT && elapsed >= MIN_RATE_MS) {
    return { etaSeconds: Math.round(((elapsed / 1000) * left) / (percent / 100)), etaSource: 'rate' };
  }
  return { etaSeconds: null, etaSource: null };
}

export function progressView(input: ProgressInput): ProgressView {
  const job = input.job;
  const percent = job?.progress ?? 0;
  const base = { percent, lines: job?.lines_acked ?? 0, linesTotal: job?.lines_total ?? null, ...eta(input, percent) };
  if (input.outcome !== undefined) {
    const done = input.outcome === 'completed';
    return { phase: input.outcome, label: input.outcome, ...base, etaSeconds: done ? 0 : null, etaSource: null };
  }
  if (input.status === 'error') return { phase: 'error', label: 'error', ...base };
  if (job === null) return { phase: 'connecting', label: 'connecting', ...base };
  if (job.phase === 'streaming') {
    const heat = heatingLabel(input.temperatures);
    if (heat !== null) return { phase: 'heating', label: heat, ...base };
    return { phase: 'printing', label: 'printing', ...base };
  }
  return { phase: job.phase, label: job.phase, ...base };
}

/** `1h 02m`, `12m 03s`, `45s`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

/** One status line: a bar on a terminal, plain words otherwise. */
export function formatProgress(v: ProgressView, opts: { tty: boolean; barWidth?: number }): string {
  const lines = v.linesTotal === null ? `${v.lines} lines` : `${v.lines}/${v.linesTotal} lines`;
  const etaText = v.etaSeconds === null ? 'ETA --' : `ETA ${formatDuration(v.etaSeconds)}${v.etaSource === 'slicer' ? ' (slicer)' : ''}`;
  const text = `${v.label}  ${v.percent.toFixed(1)}%  ${lines}  ${etaText}`;
  if (!opts.tty) return `progress ${text}`;
  const width = opts.barWidth ?? 30;
  const filled = Math.max(0, Math.min(width, Math.round((v.percent / 100) * width)));
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`;
}
