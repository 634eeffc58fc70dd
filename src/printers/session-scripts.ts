// The command lists a session runs to pause, resume, cancel and cool down, built from the firmware profile's scripts.
import type { FirmwareProfile } from '../protocol/firmware-profile.js';
import { renderScriptLine, type MotionPosition } from '../protocol/motion-tracker.js';
import { commandWord } from '../protocol/command-classes.js';

/** What a pause remembers so resume can put the print back exactly where it was. */
export interface PausedState {
  position: MotionPosition;
  relativeXyz: boolean;
  relativeE: boolean;
  /** Targets in °C at the moment of the pause (0: heater was off). */
  hotendTarget: number;
  bedTarget: number;
  /** The blocking wait the pause broke (`M190 S60`, ended early by M108): resume runs it again. Null: none. */
  interruptedWait: string | null;
}

/** Measured temperatures at resume time (undefined: never reported). */
export interface MeasuredTemperatures {
  hotend?: number;
  bed?: number;
}

/** Heater targets the job set (M104/M109, M140/M190), followed from the lines the firmware acknowledged: a report may lag behind. */
export class HeaterTargets {
  hotend: number | null = null;
  bed: number | null = null;

  /** Cheap for anything that is not M104/M109/M140/M190. */
  observe(cmd: string): void {
    const c0 = cmd.charCodeAt(0);
    if (c0 !== 77 && c0 !== 109) return;
    const m = /^[Mm](104|109|140|190)(?!\d)(.*)$/.exec(cmd);
    if (!m) return;
    const s = /[Ss]\s*(-?\d+(?:\.\d+)?)/.exec(m[2]!) ?? /[Rr]\s*(-?\d+(?:\.\d+)?)/.exec(m[2]!);
    if (!s) return;
    // M104 T1 ... targets another tool; the pause only restores the active one.
    if (/[Tt]\s*[1-9]/.test(m[2]!)) return;
    const v = Number(s[1]);
    if (m[1] === '104' || m[1] === '109') this.hotend = v;
    else this.bed = v;
  }

  reset(): void {
    this.hotend = null;
    this.bed = null;
  }
}

/** Retract, lift, park: the profile's pause lines with the remembered position filled in. */
export function pauseScript(profile: FirmwareProfile, saved: PausedState): string[] {
  return profile.scripts.pause.map((l) => renderScriptLine(l, saved.position));
}

/**
 * The first part of a resume: reheat, bed first (it is the slow one and the nozzle should not ooze while waiting). A
 * heater measured within the profile's window of its target is only set (M140/M104): a wait would cost the firmware's
 * residency time (10 s on Marlin) for a nozzle that never cooled. One that cooled during the pause is waited for
 * (M190/M109). A wait the pause broke runs again in its own words. Nothing here moves the head.
 */
export function reheatScript(profile: FirmwareProfile, saved: PausedState, measured: MeasuredTemperatures): string[] {
  const lines: string[] = [];
  const broken = saved.interruptedWait;
  const brokenWord = broken === null ? '' : commandWord(broken);
  // A chamber wait (M191) or another the pause broke: it has no heater line below to stand in for.
  if (broken !== null && brokenWord !== 'M190' && brokenWord !== 'M109') lines.push(broken);
  const window = profile.resumeTemperatureWindow;
  const reheat = (target: number, now: number | undefined, set: string, wait: string): void => {
    if (brokenWord === wait) lines.push(broken!);
    else if (target > 0) lines.push(`${now !== undefined && Math.abs(now - target) <= window ? set : wait} S${fmt(target)}`);
  };
  reheat(saved.bedTarget, measured.bed, 'M140', 'M190');
  reheat(saved.hotendTarget, measured.hotend, 'M104', 'M109');
  return lines;
}

/** The rest of a resume, once hot: the profile's resume lines (X Y, then Z, prime, E and F), then the job's modes. */
export function returnScript(profile: FirmwareProfile, saved: PausedState): string[] {
  return [
    ...profile.scripts.resume.map((l) => renderScriptLine(l, saved.position)),
    saved.relativeXyz ? 'G91' : 'G90',
    saved.relativeE ? 'M83' : 'M82',
  ];
}

export function cancelScript(profile: FirmwareProfile): string[] {
  return [...profile.scripts.cancel];
}

/** Commands that never move filament, whatever their words (a G0/G1 moves it only with an E word). */
const FILAMENT_NEUTRAL = new Set([
  'G4', 'G28', 'G90', 'G91', 'G92', 'M17', 'M18', 'M73', 'M75', 'M76', 'M77', 'M82', 'M83', 'M84', 'M104', 'M106',
  'M107', 'M117', 'M118', 'M140', 'M141', 'M300', 'M400',
]);

/**
 * The index of the last line of a script that may move filament (-1: none). Unknown commands (a macro, a tool change)
 * count as moving it: the job's meter then waits for them rather than miss a retract or a purge.
 */
export function lastFilamentLine(lines: readonly string[]): number {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const word = commandWord(line);
    if (/^G[0-3]$/.test(word) ? /E/i.test(line.slice(word.length)) : !FILAMENT_NEUTRAL.has(word)) return i;
  }
  return -1;
}

export function cooldownScript(profile: FirmwareProfile): string[] {
  return [...profile.scripts.cooldown];
}

const fmt = (v: number): string => String(Math.round(v * 1000) / 1000);
