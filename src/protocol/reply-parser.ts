// Classifies one received line (ok and its data, resend, skip, busy, wait, start, actions, errors, temperatures, M115) per profile.
import type { FirmwareProfile } from './firmware-profile.js';
import type { Temperatures } from './protocol-types.js';
import { looksLikeTemperatures, parseTemperatures } from './temperature-parser.js';
import { parseCapabilityLine } from './firmware-info-parser.js';

export type Reply =
  | { kind: 'empty' }
  /** `lineNumber`: ADVANCED_OK `N` or Repetier `ok <n>`; `freeSlots`: ADVANCED_OK `B`; `data`: what follows `ok ` otherwise. */
  | { kind: 'ok'; lineNumber: number | null; freeSlots: number | null; plannerFree: number | null; data: string }
  /** `lineNumber` null: the number could not be read (corrupted). */
  | { kind: 'resend'; lineNumber: number | null; text: string }
  | { kind: 'skip'; lineNumber: number | null; text: string }
  | { kind: 'busy'; text: string }
  | { kind: 'wait' }
  | { kind: 'start'; text: string }
  | { kind: 'action'; name: string; argument: string }
  | { kind: 'fatal'; text: string }
  | { kind: 'warning'; text: string }
  /** Errors that only explain a resend that follows (checksum mismatch, Last Line ...). */
  | { kind: 'protocol-error'; text: string }
  | { kind: 'temperatures'; temperatures: Temperatures; text: string; autoreport: boolean }
  | { kind: 'firmware-name'; text: string }
  | { kind: 'capability'; name: string; value: boolean; text: string }
  | { kind: 'info'; text: string };

/** Joins regex sources into one case-insensitive alternation so a line costs one test per rule. */
export function compilePatterns(sources: readonly string[]): RegExp | null {
  if (sources.length === 0) return null;
  return new RegExp(sources.map((s) => `(?:${s})`).join('|'), 'i');
}

const PROTOCOL_ERROR_RE = /Last Line|checksum mismatch|Line Number is not|No Line Number|No Checksum|expected line/i;
const STRICT_UINT_RE = /^\d{1,10}$/;

/** Removes NULs and other control bytes (noise at connect, a board resetting); keeps a leading space (autoreports). */
export function cleanLine(raw: string): string {
  let dirty = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 32 || c > 126) {
      dirty = true;
      break;
    }
  }
  const s = dirty ? raw.replace(/[^\x20-\x7e]+/g, '') : raw;
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 32) end--;
  return end === s.length ? s : s.slice(0, end);
}

function firstGroup(m: RegExpExecArray): string | undefined {
  for (let i = 1; i < m.length; i++) if (m[i] !== undefined) return m[i];
  return undefined;
}

function strictNumber(text: string | undefined): number | null {
  if (text === undefined) return null;
  const t = text.trim();
  return STRICT_UINT_RE.test(t) ? Number(t) : null;
}

/** A profile's patterns compiled once (setProfile), so classifying a line allocates little and scans little. */
export class ReplyParser {
  private readonly resendRe: RegExp | null;
  private readonly skipRe: RegExp | null;
  private readonly resetRe: RegExp | null;
  private readonly fatalRe: RegExp | null;
  private readonly warningRe: RegExp | null;

  constructor(profile: FirmwareProfile) {
    this.resendRe = compilePatterns(profile.resend.patterns);
    this.skipRe = compilePatterns(profile.resend.skipPatterns);
    this.resetRe = compilePatterns(profile.resetPatterns);
    this.fatalRe = compilePatterns(profile.fatalErrorPatterns);
    this.warningRe = compilePatterns(profile.warningPatterns);
  }

  parse(raw: string): Reply {
    const s = cleanLine(raw);
    if (s.length === 0) return { kind: 'empty' };
    // The hot path: most lines are `ok`.
    if (s.charCodeAt(0) === 111 /* o */ && s.charCodeAt(1) === 107 /* k */ && (s.length === 2 || s.charCodeAt(2) === 32)) {
      return s.length === 2 ? { kind: 'ok', lineNumber: null, freeSlots: null, plannerFree: null, data: '' } : parseOkData(s.slice(3));
    }
    let m: RegExpExecArray | null;
    if (this.resendRe && (m = this.resendRe.exec(s))) {
      return { kind: 'resend', lineNumber: strictNumber(firstGroup(m)), text: s };
    }
    if (this.skipRe && (m = this.skipRe.exec(s))) return { kind: 'skip', lineNumber: strictNumber(firstGroup(m)), text: s };
    if (this.resetRe && this.resetRe.test(s)) return { kind: 'start', text: s };
    if (this.fatalRe && this.fatalRe.test(s)) return { kind: 'fatal', text: s };
    if (PROTOCOL_ERROR_RE.test(s)) return { kind: 'protocol-error', text: s };
    if (this.warningRe && this.warningRe.test(s)) return { kind: 'warning', text: s };
    if (s.startsWith('//')) {
      const body = s.slice(2).trimStart();
      if (body.startsWith('action:')) {
        const rest = body.slice(7);
        const sp = rest.indexOf(' ');
        return sp < 0 ? { kind: 'action', name: rest, argument: '' } : { kind: 'action', name: rest.slice(0, sp), argument: rest.slice(sp + 1).trim() };
      }
      return { kind: 'info', text: s };
    }
    if (s.startsWith('echo:busy:') || s.startsWith('busy:')) return { kind: 'busy', text: s };
    if (s === 'wait') return { kind: 'wait' };
    if (looksLikeTemperatures(s)) {
      const temperatures = parseTemperatures(s);
      if (temperatures) return { kind: 'temperatures', temperatures, text: s, autoreport: s.charCodeAt(0) === 32 };
    }
    if (s.includes('FIRMWARE_NAME:')) return { kind: 'firmware-name', text: s };
    if (s.startsWith('Cap:')) {
      const cap = parseCapabilityLine(s);
      if (cap) return { kind: 'capability', name: cap[0], value: cap[1], text: s };
    }
    return { kind: 'info', text: s };
  }
}

/** `N12 P15 B3` (ADVANCED_OK), `12` (Repetier), or data (`T:...`, `FIRMWARE_NAME:...`). */
function parseOkData(rest: string): Reply {
  const c0 = rest.charCodeAt(0);
  if (c0 >= 48 && c0 <= 57 && STRICT_UINT_RE.test(rest)) {
    return { kind: 'ok', lineNumber: Number(rest), freeSlots: null, plannerFree: null, data: '' };
  }
  if (c0 === 78 /* N */ && rest.charCodeAt(1) >= 48 && rest.charCodeAt(1) <= 57) {
    let lineNumber: number | null = null;
    let freeSlots: number | null = null;
    let plannerFree: number | null = null;
    const extra: string[] = [];
    for (const word of rest.split(' ')) {
      if (word === '') continue;
      const v = strictNumber(word.slice(1));
      const letter = word.charCodeAt(0);
      if (letter === 78 && v !== null) lineNumber = v;
      else if (letter === 80 && v !== null) plannerFree = v;
      else if (letter === 66 && v !== null) freeSlots = v;
      else extra.push(word);
    }
    return { kind: 'ok', lineNumber, freeSlots, plannerFree, data: extra.join(' ') };
  }
  return { kind: 'ok', lineNumber: null, freeSlots: null, plannerFree: null, data: rest.trim() };
}
