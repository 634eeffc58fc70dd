// Pure mapping from what Moonraker reports (Klippy's state, Klipper's printer objects) to our printer vocabulary:
// status, offline reason, temperatures, the print's counters and how a print changed between two reports.
import type { Temperatures } from '../../protocol/protocol-types.js';
import type { OfflineReason, PrinterStatus } from '../printer-state.js';

export type KlippyState = 'ready' | 'startup' | 'shutdown' | 'error' | 'disconnected';
export const KLIPPY_STATES: readonly KlippyState[] = ['ready', 'startup', 'shutdown', 'error', 'disconnected'];

/** Klipper's `print_stats.state`. */
export type PrintState = 'standby' | 'printing' | 'paused' | 'complete' | 'cancelled' | 'error';
const PRINT_STATES: readonly PrintState[] = ['standby', 'printing', 'paused', 'complete', 'cancelled', 'error'];

/** The objects the link subscribes to, and the fields it reads (null = every field). */
export const SUBSCRIBED_OBJECTS = {
  webhooks: null,
  print_stats: null,
  virtual_sdcard: null,
  extruder: null,
  heater_bed: null,
  display_status: null,
  toolhead: null,
} as const;

/** The last known value of every subscribed object; updates carry only the fields that changed. */
export type KlipperObjects = Record<string, Record<string, unknown>>;

/** The objects after one `notify_status_update` (or the subscribe answer): field by field, the old object untouched. */
export function mergeStatus(prev: KlipperObjects, delta: unknown): KlipperObjects {
  if (delta === null || typeof delta !== 'object' || Array.isArray(delta)) return prev;
  const next: KlipperObjects = { ...prev };
  for (const [name, fields] of Object.entries(delta as Record<string, unknown>)) {
    if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) continue;
    next[name] = { ...(prev[name] ?? {}), ...(fields as Record<string, unknown>) };
  }
  return next;
}

export const asKlippyState = (raw: unknown): KlippyState =>
  KLIPPY_STATES.includes(raw as KlippyState) ? (raw as KlippyState) : 'disconnected';

const num = (v: unknown, dflt = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : dflt);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The print as Klipper reports it. */
export interface PrintView {
  state: PrintState;
  /** Relative to the gcodes root; '' when no file is loaded. */
  filename: string;
  message: string;
  filePosition: number;
  fileSize: number;
  /** Percent 0..100 of the file read (virtual_sdcard.progress). */
  progress: number;
  /** Seconds printing, pauses excluded; and since the start, pauses included. */
  printDuration: number;
  totalDuration: number;
  /** mm of filament Klipper counted for the current print (one number, whatever the tool). */
  filamentUsed: number;
}

export function printView(o: KlipperObjects): PrintView {
  const ps = o.print_stats ?? {};
  const sd = o.virtual_sdcard ?? {};
  const state = PRINT_STATES.includes(ps.state as PrintState) ? (ps.state as PrintState) : 'standby';
  return {
    state,
    filename: str(ps.filename),
    message: str(ps.message),
    filePosition: num(sd.file_position),
    fileSize: num(sd.file_size),
    progress: Math.min(100, Math.max(0, num(sd.progress) * 100)),
    printDuration: num(ps.print_duration),
    totalDuration: num(ps.total_duration),
    filamentUsed: num(ps.filament_used),
  };
}

export const isActive = (s: PrintState): boolean => s === 'printing' || s === 'paused';

/** Heaters as our snapshot shows them; absent objects stay absent. */
export function temperaturesOf(o: KlipperObjects): Temperatures {
  const t: Temperatures = {};
  const ex = o.extruder;
  if (ex && typeof ex.temperature === 'number') {
    t.hotend = round1(ex.temperature);
    t.hotend_target = round1(num(ex.target));
  }
  const bed = o.heater_bed;
  if (bed && typeof bed.temperature === 'number') {
    t.bed = round1(bed.temperature);
    t.bed_target = round1(num(bed.target));
  }
  return t;
}
const round1 = (v: number): number => Math.round(v * 10) / 10;

/** What the printer looks like from Klippy's state and the print state. */
export interface LinkView {
  status: PrinterStatus;
  offline_reason: OfflineReason | null;
  error: { code: string; message: string } | null;
}

/**
 * Klippy's state wins: only a ready Klipper prints. `message` is Klippy's state_message (its first line is kept: the
 * rest is Klipper's advice to restart the firmware).
 */
export function linkView(klippy: KlippyState, message: string, print: PrintState): LinkView {
  const why = firstLine(message);
  switch (klippy) {
    case 'ready':
      return { status: print === 'printing' ? 'printing' : print === 'paused' ? 'paused' : 'idle', offline_reason: null, error: null };
    case 'startup':
      return { status: 'connecting', offline_reason: null, error: null };
    case 'shutdown':
      return { status: 'error', offline_reason: 'firmware_error', error: { code: 'firmware_error', message: why || 'Klipper is shut down' } };
    case 'error':
      return { status: 'error', offline_reason: 'firmware_error', error: { code: 'firmware_error', message: why || 'Klipper failed to start' } };
    case 'disconnected':
      return {
        status: 'offline',
        offline_reason: 'printer_disconnected',
        error: { code: 'printer_disconnected', message: why || 'Moonraker is up but Klipper is not connected to it' },
      };
  }
}

export function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
}

/** How a print ended, from the state it ended in; null while it runs. A print reset to standby was lost. */
export function endOf(state: PrintState, message: string): { status: 'completed' | 'cancelled' | 'failed'; message?: string } | null {
  switch (state) {
    case 'printing':
    case 'paused':
      return null;
    case 'complete':
      return { status: 'completed' };
    case 'cancelled':
      return { status: 'cancelled' };
    case 'error':
      return { status: 'failed', message: message || 'Klipper stopped the print with an error' };
    case 'standby':
      return { status: 'failed', message: 'the printer dropped the print (its file was reset)' };
  }
}

/** Firmware name for the snapshot from /printer/info's `software_version`. */
export const firmwareName = (version: unknown): string => (typeof version === 'string' && version ? `Klipper ${version}` : 'Klipper');
