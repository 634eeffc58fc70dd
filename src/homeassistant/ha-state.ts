// Pure: the retained JSON state of a printer and of the farm, as the discovery messages' value templates read it.
import { estimateRemaining } from '../jobs/job-eta.js';
import { apiStatus, externalJobOf, offlineReasonOf, type ApiPrinterStatus } from '../printers/printer-record.js';
import type { PrinterSnapshot } from '../printers/printer-state.js';

/** What changes rarely: read from the stored printer when it changes, not on every tick. */
export interface PrinterInfo {
  name: string;
  model: string | null;
  firmware: string | null;
  /** "PLA black" from the loaded spools (tool 0 first), else the stop-gap material_type/colour; null when nothing is known. */
  filament: string | null;
  /** The stored ready flag (the session's own one is in the snapshot). */
  ready: boolean;
}

/** A job as far as the state needs it, read once per job. */
export interface JobInfo {
  id: string;
  name: string;
  /** The slicer's estimate (s) or null. */
  estimated_duration: number | null;
  /** Clock ms the print started, or null. */
  started_at: number | null;
}

export interface PrinterState {
  status: ApiPrinterStatus;
  hotend: number | null;
  hotend_target: number | null;
  bed: number | null;
  bed_target: number | null;
  job: string | null;
  progress: number | null;
  /** Seconds left of the current print, or null. */
  time_left: number | null;
  filament: string | null;
  /** "none" while online: Home Assistant shows a text, and "none" reads better than unknown. */
  offline_reason: string;
  /** Binary sensors read ON/OFF. */
  printing: 'ON' | 'OFF';
  problem: 'ON' | 'OFF';
  online: 'ON' | 'OFF';
  bed_waiting: 'ON' | 'OFF';
}

export const STATUS_OPTIONS: readonly ApiPrinterStatus[] = ['idle', 'printing', 'paused', 'error', 'offline'];

const onOff = (b: boolean): 'ON' | 'OFF' => (b ? 'ON' : 'OFF');
const round1 = (n: number | undefined): number | null => (typeof n === 'number' && Number.isFinite(n) ? Math.round(n * 10) / 10 : null);

/** The fields whose change is a state change (sent at once); the others are telemetry (at most once a second). */
export const CHANGE_FIELDS = ['status', 'job', 'filament', 'offline_reason', 'bed_waiting', 'online'] as const;

export function printerState(info: PrinterInfo, snap: PrinterSnapshot | null, job: JobInfo | null, nowMs: number): PrinterState {
  const status = apiStatus(snap?.status);
  const t = snap?.temperatures ?? {};
  const online = status !== 'offline';
  const external = externalJobOf(snap);
  const running = snap?.job && job && job.id === snap.job.id ? job : null;
  const progress = snap?.job ? snap.job.progress : external ? external.progress : null;
  const elapsed = running?.started_at != null ? Math.max(0, (nowMs - running.started_at) / 1000) : 0;
  return {
    status,
    hotend: online ? round1(t.hotend) : null,
    hotend_target: online ? round1(t.hotend_target) : null,
    bed: online ? round1(t.bed) : null,
    bed_target: online ? round1(t.bed_target) : null,
    job: running ? running.name : external ? external.file_name : null,
    progress: progress === null ? null : Math.round(progress * 10) / 10,
    time_left: running && snap?.job ? estimateRemaining(running.estimated_duration, snap.job.progress, elapsed) : null,
    filament: info.filament,
    offline_reason: offlineReasonOf(snap) ?? 'none',
    printing: onOff(status === 'printing'),
    problem: onOff(status === 'error'),
    online: onOff(online),
    bed_waiting: onOff(!(info.ready && (snap?.ready ?? true)) && status !== 'printing' && status !== 'paused'),
  };
}

/** Whether `next` differs from `prev` in a state field (sent at once) rather than only in telemetry. */
export function isStateChange(prev: PrinterState | undefined, next: PrinterState): boolean {
  return prev === undefined || CHANGE_FIELDS.some((f) => prev[f] !== next[f]);
}

export interface FarmTotals {
  printing: number;
  idle: number;
  queued: number;
  failed_today: number;
}

/** The filament words from the record's loaded spools, else its stop-gap material fields. */
export function filamentOf(p: { materials: { tool: number; type: string; color: string | null }[]; material_type: string | null; material_color: string | null }): string | null {
  const spools = [...p.materials].sort((a, b) => a.tool - b.tool);
  if (spools.length > 0) return spools.map((s) => [s.type, s.color].filter(Boolean).join(' ')).join(', ');
  const words = [p.material_type, p.material_color].filter(Boolean).join(' ');
  return words === '' ? null : words;
}

/** Clock ms of midnight today in `timeZone` (the organization's), for "failed today". */
export function startOfLocalDay(nowMs: number, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(nowMs))
      .map((p) => [p.type, Number(p.value)]),
  ) as Record<string, number>;
  // Local time since midnight taken off now (on a day the clocks change, midnight is off by that hour: fine for a count).
  const sinceMidnight = ((parts.hour! * 60 + parts.minute!) * 60 + parts.second!) * 1000 + (nowMs % 1000);
  return nowMs - sinceMidnight;
}
