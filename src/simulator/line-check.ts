// What a firmware makes of one received line: the N/`*` checks with its own `*` rule, before anything executes.
import type { FirmwareDialect } from './firmware-dialects.js';

export type LineVerdict =
  /** `n` is null for a line sent without a line number. */
  | { kind: 'accept'; n: number | null; command: string }
  | { kind: 'empty' }
  | { kind: 'bad'; error: 'sequence' | 'checksum'; message: string }
  /** Repetier: a line number it has already received. */
  | { kind: 'duplicate'; n: number };

/** XOR of every byte of `text`, as the checksum after `*`. */
export function xorChecksum(text: string, end = text.length): number {
  let cs = 0;
  for (let i = 0; i < end; i++) cs ^= text.charCodeAt(i) & 0xff;
  return cs;
}

// Marlin takes any line starting with N as numbered (strtol of no digits is 0), so `N` alone is a sequence error.
const LINE_NUMBER = /^N(-?\d*)[ \t]*/;

/** Compares line numbers the way the firmware stores them (Repetier keeps 16 bits). */
export function sameLineNumber(a: number, b: number, bits: number): boolean {
  if (bits >= 32) return a === b;
  const m = 2 ** bits;
  return (((a - b) % m) + m) % m === 0;
}

/**
 * Marlin's order: sequence first (M110 exempt), then the checksum. `lastN` is the last accepted line number.
 * Comments (`;` onwards) never reach the checks: the firmware does not store them.
 */
export function checkLine(raw: string, dialect: FirmwareDialect, lastN: number): LineVerdict {
  const semi = raw.indexOf(';');
  const line = (semi >= 0 ? raw.slice(0, semi) : raw).trim();
  if (line === '') return { kind: 'empty' };

  const numbered = LINE_NUMBER.exec(line);
  if (!dialect.checksLines) {
    // Klipper: a leading N word and a trailing checksum are simply ignored.
    let body = numbered ? line.slice(numbered[0].length) : line;
    const star = body.lastIndexOf('*');
    if (star >= 0 && /^\*\d*$/.test(body.slice(star).trim())) body = body.slice(0, star);
    body = body.trim();
    return body === '' ? { kind: 'empty' } : { kind: 'accept', n: null, command: body };
  }

  const star = dialect.star === 'last' ? line.lastIndexOf('*') : line.indexOf('*');
  if (numbered === null) {
    if (star >= 0) return { kind: 'bad', error: 'checksum', message: 'No Line Number with checksum' };
    return { kind: 'accept', n: null, command: line };
  }

  const n = Number(numbered[1]);
  const body = line.slice(numbered[0].length, star >= 0 ? star : line.length).trim();
  const isM110 = /^M110(?!\d)/i.test(body);
  if (dialect.checksSequence && !isM110 && !sameLineNumber(n, lastN + 1, dialect.lineNumberBits)) {
    if (dialect.skipDuplicates) {
      const behind = (lastN - n) & ((1 << dialect.lineNumberBits) - 1);
      if (behind < 40) return { kind: 'duplicate', n };
    }
    return { kind: 'bad', error: 'sequence', message: 'Line Number is not Last Line Number+1' };
  }
  if (star < 0) return { kind: 'bad', error: 'checksum', message: 'No Checksum with line number' };
  const given = line.slice(star + 1).trim();
  if (!/^\d+$/.test(given) || Number(given) !== xorChecksum(line, star)) {
    return { kind: 'bad', error: 'checksum', message: 'checksum mismatch' };
  }
  if (body === '') return { kind: 'empty' };
  return { kind: 'accept', n, command: body };
}
