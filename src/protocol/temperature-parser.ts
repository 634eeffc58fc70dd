// Reads temperature reports of every firmware family (Marlin, Prusa, RRF, Klipper, Smoothieware, Repetier) into Temperatures.
import type { Temperatures } from './protocol-types.js';

function isDigitStart(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 45 /* - */ || c === 46 /* . */;
}

/** Reads a number at `i`; returns [value, next index] or null. */
function readNumber(s: string, i: number): [number, number] | null {
  let j = i;
  if (s.charCodeAt(j) === 45) j++;
  const start = j;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if ((c >= 48 && c <= 57) || c === 46) j++;
    else break;
  }
  if (j === start) return null;
  const v = Number(s.slice(i, j));
  return Number.isFinite(v) ? [v, j] : null;
}

/** True when the text (an `ok` payload or a whole line) starts like a temperature report: `T:`, `T0:`, `B:`. */
export function looksLikeTemperatures(s: string): boolean {
  let i = 0;
  while (i < s.length && s.charCodeAt(i) === 32) i++;
  const c = s.charCodeAt(i);
  const d = s.charCodeAt(i + 1);
  if (c === 84 /* T */) return d === 58 /* : */ || (d >= 48 && d <= 57);
  if (c === 66 /* B */) return d === 58;
  return false;
}

/**
 * Parses `T:210.0 /210.0 B:60.0 /60.0 @:127 B@:0`, `T0:... T1:...`, `@0` power fields (Smoothieware),
 * Prusa's `P:` and `A:`, Marlin's `W:` wait counter. Returns null when no temperature is present.
 */
export function parseTemperatures(s: string): Temperatures | null {
  const t: Temperatures = {};
  let found = false;
  let i = 0;
  const n = s.length;
  while (i < n) {
    // Find the next KEY: token at a word start.
    while (i < n && s.charCodeAt(i) === 32) i++;
    const keyStart = i;
    while (i < n && s.charCodeAt(i) !== 58 /* : */ && s.charCodeAt(i) !== 32) i++;
    if (i >= n || s.charCodeAt(i) !== 58) continue;
    const key = s.slice(keyStart, i);
    i++;
    const actual = readNumber(s, i);
    if (!actual) continue;
    i = actual[1];
    let target: number | undefined;
    // Optional ` /target`.
    let k = i;
    while (k < n && s.charCodeAt(k) === 32) k++;
    if (s.charCodeAt(k) === 47 /* / */) {
      k++;
      while (k < n && s.charCodeAt(k) === 32) k++;
      if (isDigitStart(s.charCodeAt(k))) {
        const tv = readNumber(s, k);
        if (tv) {
          target = tv[0];
          i = tv[1];
        }
      }
    }
    const c0 = key.charCodeAt(0);
    if (key === 'T') {
      t.hotend = actual[0];
      if (target !== undefined) t.hotend_target = target;
      found = true;
    } else if (c0 === 84 /* T */ && key.length > 1 && /^T\d+$/.test(key)) {
      const idx = Number(key.slice(1));
      if (idx > 63) continue;
      const tools = (t.tools ??= []);
      while (tools.length <= idx) tools.push({ actual: NaN });
      tools[idx] = target === undefined ? { actual: actual[0] } : { actual: actual[0], target };
      found = true;
    } else if (key === 'B') {
      t.bed = actual[0];
      if (target !== undefined) t.bed_target = target;
      found = true;
    } else if (key === 'C') {
      t.chamber = actual[0];
      if (target !== undefined) t.chamber_target = target;
      found = true;
    }
    // @:, B@:, @0, P:, A:, E:, W: and unknown keys carry no temperature we report.
  }
  if (!found) return null;
  if (t.tools) {
    // Gaps (T1 without T0) must not leave NaN entries behind.
    t.tools = t.tools.map((x) => (Number.isNaN(x.actual) ? { actual: 0 } : x));
    const first = t.tools[0];
    // Klipper and RRF may report only numbered tools: tool 0 is then the hotend.
    if (t.hotend === undefined && first) {
      t.hotend = first.actual;
      if (first.target !== undefined) t.hotend_target = first.target;
    }
  }
  return t;
}
