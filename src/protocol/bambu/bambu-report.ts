// A Bambu printer's push_status reports merged into one held state, and read into our terms. Pure: P1 and A1 send only
// the fields that changed, X1 the whole object; both fold into the same state, a full report (pushall) replacing it.
import type { Temperatures } from '../protocol-types.js';

/** The `print` object as the printer reported it, every field last seen. */
export type BambuState = Readonly<Record<string, unknown>>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The held state after one report: nested objects merge field by field (a partial `ams` keeps the units it does not
 * name), arrays and values replace. A report marked full (the answer to pushall) starts from nothing.
 */
export function mergeReport(held: BambuState, report: Record<string, unknown>, full = false): BambuState {
  return merge(full ? {} : held, report);
}

function merge(base: Readonly<Record<string, unknown>>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (key === 'command' || key === 'sequence_id' || key === 'msg') continue;
    const was = out[key];
    out[key] = isObject(value) && isObject(was) ? merge(was, value) : value;
  }
  return out;
}

/** The answer to pushall carries every field; P1/A1 mark their full reports with msg 0, partial ones with msg 1. */
export function isFullReport(report: Record<string, unknown>): boolean {
  if (report.msg !== undefined) return Number(report.msg) === 0;
  return 'gcode_state' in report && 'nozzle_temper' in report && 'bed_temper' in report && 'mc_percent' in report;
}

export interface AmsTray {
  /** Global index as ams_mapping counts it: unit * 4 + tray. */
  index: number;
  type: string | null;
  /** RRGGBB, upper case; null when the tray is empty or unknown. */
  color: string | null;
  /** Percent left, null when the printer cannot tell (-1: a spool without a chip). */
  remainPercent: number | null;
}

export interface HmsEntry {
  /** As the printer's screen and Bambu's wiki show it: HMS_AAAA_AAAA_CCCC_CCCC. */
  code: string;
  severity: 'fatal' | 'serious' | 'common' | 'info' | 'unknown';
  module: string;
}

export interface BambuReading {
  gcodeState: string | null;
  progress: number | null;
  remainingMinutes: number | null;
  layer: number | null;
  totalLayers: number | null;
  temperatures: Temperatures;
  /** Part-cooling fan as a percentage (the printer counts 0..15). */
  partFanPercent: number | null;
  trays: AmsTray[];
  /** The tray feeding the toolhead (ams.tray_now): a global index, 254 the external spool, null none (255) or unknown. */
  activeTray: number | null;
  hms: HmsEntry[];
  /** print_error: 0 none. */
  printError: number;
  /** The file the printer prints (gcode_file) and the task name (subtask_name). */
  file: string | null;
  taskName: string | null;
}

const num = (v: unknown): number | null => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
};
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function readReport(state: BambuState): BambuReading {
  const t: Temperatures = {};
  const put = (k: 'hotend' | 'hotend_target' | 'bed' | 'bed_target' | 'chamber', v: unknown): void => {
    const n = num(v);
    if (n !== null) t[k] = n;
  };
  put('hotend', state.nozzle_temper);
  put('hotend_target', state.nozzle_target_temper);
  put('bed', state.bed_temper);
  put('bed_target', state.bed_target_temper);
  put('chamber', state.chamber_temper);
  const fan = num(state.cooling_fan_speed);
  return {
    gcodeState: str(state.gcode_state),
    progress: num(state.mc_percent),
    remainingMinutes: num(state.mc_remaining_time),
    layer: num(state.layer_num),
    totalLayers: num(state.total_layer_num),
    temperatures: t,
    partFanPercent: fan === null ? null : Math.round((Math.min(15, Math.max(0, fan)) / 15) * 100),
    trays: readTrays(state.ams),
    activeTray: readActiveTray(state.ams),
    hms: Array.isArray(state.hms) ? state.hms.flatMap((h) => (isObject(h) ? [hmsEntry(num(h.attr) ?? 0, num(h.code) ?? 0)] : [])) : [],
    printError: num(state.print_error) ?? 0,
    file: str(state.gcode_file),
    taskName: str(state.subtask_name),
  };
}

function readTrays(ams: unknown): AmsTray[] {
  if (!isObject(ams) || !Array.isArray(ams.ams)) return [];
  const trays: AmsTray[] = [];
  for (const unit of ams.ams) {
    if (!isObject(unit) || !Array.isArray(unit.tray)) continue;
    const unitId = num(unit.id) ?? 0;
    for (const tray of unit.tray) {
      if (!isObject(tray)) continue;
      const color = str(tray.tray_color);
      const remain = num(tray.remain);
      trays.push({
        index: unitId * 4 + (num(tray.id) ?? 0),
        type: str(tray.tray_type),
        color: color ? color.slice(0, 6).toUpperCase() : null,
        remainPercent: remain === null || remain < 0 ? null : remain,
      });
    }
  }
  return trays.sort((a, b) => a.index - b.index);
}

function readActiveTray(ams: unknown): number | null {
  const now = isObject(ams) ? num(ams.tray_now) : null;
  return now === null || now === 255 || now < 0 ? null : now;
}

const MODULES: Record<number, string> = { 0x03: 'motion controller', 0x05: 'mainboard', 0x07: 'AMS', 0x08: 'toolhead', 0x0c: 'camera' };
const SEVERITIES: Record<number, HmsEntry['severity']> = { 1: 'fatal', 2: 'serious', 3: 'common', 4: 'info' };

const hex4 = (n: number): string => n.toString(16).toUpperCase().padStart(4, '0');

/** One hms item ({attr, code}, two 32-bit numbers) in the printer's own spelling, with its module and severity. */
export function hmsEntry(attr: number, code: number): HmsEntry {
  const a = attr >>> 0;
  const c = code >>> 0;
  return {
    code: `HMS_${hex4(a >>> 16)}_${hex4(a & 0xffff)}_${hex4(c >>> 16)}_${hex4(c & 0xffff)}`,
    severity: SEVERITIES[c >>> 16] ?? 'unknown',
    module: MODULES[a >>> 24] ?? 'printer',
  };
}

/** An HMS entry in words, pointing at the page that explains it (we carry no copy of Bambu's texts). */
export function hmsWords(h: HmsEntry): string {
  return `${h.severity} ${h.module} error ${h.code} (see https://wiki.bambulab.com/en/hms/home, code ${h.code.slice(4)})`;
}
