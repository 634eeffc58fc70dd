// Line framing: comment stripping, the XOR checksum, `N<n> cmd*<cs>` frames and the check of what a firmware can take.
import type { FirmwareProfile } from './firmware-profile.js';

/** XOR of the char codes of `s` (ASCII callers only: checkLine refuses anything else). */
export function xorOf(s: string, start = 0, seed = 0): number {
  let cs = seed;
  for (let i = start; i < s.length; i++) cs ^= s.charCodeAt(i);
  return cs & 0xff;
}

/** The checksum of a frame body: XOR of every byte before the `*`. */
export function checksum(s: string): number {
  return xorOf(s);
}

/** `N<n> <cmd>*<cs>` (no newline). `cmdXor` lets callers pass a checksum of `cmd` computed ahead of time. */
export function frameLine(n: number, cmd: string, profile?: Pick<FirmwareProfile, 'checksum'>, cmdXor?: number): string {
  if (profile && profile.checksum === 'none') return cmd;
  const prefix = 'N' + n + ' ';
  const cs = xorOf(prefix, 0, cmdXor ?? xorOf(cmd));
  return prefix + cmd + '*' + cs;
}

/**
 * Strip `;` comments, `(...)` comments and surrounding blanks; '' when nothing is left to send.
 * Firmwares never answer empty or comment-only lines, so those must never go on the wire.
 */
export function stripGcodeLine(raw: string): string {
  let end = raw.length;
  let hasParen = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 59 /* ; */) {
      end = i;
      break;
    }
    if (c === 40 /* ( */) hasParen = true;
  }
  let s = end === raw.length ? raw : raw.slice(0, end);
  if (hasParen) {
    let out = '';
    let depth = 0;
    for (let i = 0; i < s.length; i++) {
      const ch = s[i]!;
      if (ch === '(') depth++;
      else if (ch === ')' && depth > 0) depth--;
      else if (depth === 0) out += ch;
    }
    // An unclosed `(` comments out the rest of the line, as in the firmwares' parsers.
    s = out;
  }
  // trim() also drops \r and tabs; internal runs stay (M117 text keeps its spacing).
  return s.trim();
}

/** Why `stripped` cannot be sent to this firmware, or null when it can. */
export function checkLine(stripped: string, profile: Pick<FirmwareProfile, 'checksum' | 'maxLineLength' | 'lineNumberMax'>): string | null {
  if (stripped.length === 0) return 'empty line (nothing to send)';
  for (let i = 0; i < stripped.length; i++) {
    const c = stripped.charCodeAt(i);
    if (c === 42 /* * */) return `'*' in the command (column ${i + 1}) would be taken for the checksum separator`;
    if (c === 10 || c === 13) return 'line break inside the command';
    if (c < 32 && c !== 9) return `control character 0x${c.toString(16).padStart(2, '0')} at column ${i + 1}`;
    if (c > 126) return `non-ASCII character '${stripped[i]}' at column ${i + 1} (firmwares take ASCII only)`;
  }
  return lengthProblem(stripped.length, profile);
}

/** Why a command of `length` characters is too long for this firmware once framed, or null when it fits. */
export function lengthProblem(length: number, profile: Pick<FirmwareProfile, 'checksum' | 'maxLineLength' | 'lineNumberMax'>): string | null {
  // Budget for the largest frame this line can get: `N<max> ` + cmd + `*255`.
  const framedLength = profile.checksum === 'none' ? length : 1 + String(profile.lineNumberMax).length + 1 + length + 4;
  if (framedLength > profile.maxLineLength) {
    return `line too long: ${framedLength} characters once framed, the firmware takes at most ${profile.maxLineLength}`;
  }
  return null;
}
