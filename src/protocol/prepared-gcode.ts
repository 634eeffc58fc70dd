// A G-code file parsed once into a compact form: the stripped lines' bytes back to back, with per-line offsets,
// payload checksums and file byte counts in typed arrays, so sending a line costs no parse, no strip and no XOR.
import { stripGcodeLine } from './framing.js';

/** Longest raw line accepted; a sliced file never comes near it, a binary file without newlines does. */
export const MAX_RAW_LINE_BYTES = 64 * 1024;

/** The lines a run of file bytes yields. Immutable once built; readers share it. */
export interface PreparedBlock {
  readonly count: number;
  /** Stripped lines (comments and surrounding blanks removed), back to back, no separators. */
  readonly text: Buffer;
  /** Line i is text[starts[i], starts[i + 1]). */
  readonly starts: Uint32Array;
  /** XOR of line i's bytes: the frame's checksum then needs only its `N<n> ` prefix. */
  readonly xor: Uint8Array;
  /** File bytes line i accounts for: its own raw line plus the blank and comment lines just before it. */
  readonly srcBytes: Uint32Array;
  /** 1-based line number in the file, for error messages. */
  readonly fileLine: Uint32Array;
  /** Lines a firmware can never take whatever its profile (control or non-ASCII characters, a `*`): index -> why. */
  readonly problems: ReadonlyMap<number, string> | null;
}

export interface PreparedTotals {
  /** Bytes of every line as sent (stripped text plus its newline): the unit of job progress. */
  bytes: number;
  lines: number;
}

const fileError = (message: string): Error => Object.assign(new Error(message), { code: 'file_invalid' });

/** Why the stripped line's characters cannot go to any firmware, or null (the length check depends on the profile). */
function charProblem(text: string): string | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 42) return `'*' in the command (column ${i + 1}) would be taken for the checksum separator`;
    if (c === 10 || c === 13) return 'line break inside the command';
    if (c < 32 && c !== 9) return `control character 0x${c.toString(16).padStart(2, '0')} at column ${i + 1}`;
    if (c > 126) return `non-ASCII character '${text[i]}' at column ${i + 1} (firmwares take ASCII only)`;
  }
  return null;
}

const isBlank = (c: number): boolean => c === 32 || c === 9 || c === 13 || c === 11 || c === 12;

/**
 * Builds PreparedBlocks from a file's bytes fed in chunks (one block per chunk). ASCII lines are stripped on the bytes
 * themselves; a line with a `(` comment or a non-ASCII byte takes stripGcodeLine's string path, so both agree exactly.
 */
export class PreparedGcodeBuilder {
  readonly totals: PreparedTotals = { bytes: 0, lines: 0 };
  /** Bytes of blank and comment-only lines since the last kept line: they ride on the next one (or stay trailing). */
  trailingBytes = 0;
  private carry: Buffer | null = null;
  private offset = 0;
  private rawLines = 0;
  private first = true;

  constructor(private readonly name: string) {}

  /** Parses the complete lines of `chunk` (plus what an earlier chunk left unfinished); throws on a non-text file. */
  push(chunk: Buffer): PreparedBlock {
    if (this.first) {
      this.first = false;
      if (chunk.length >= 4 && chunk.toString('latin1', 0, 4) === 'GCDE') {
        throw fileError(`${this.name} is binary G-code (bgcode): convert it to text G-code first`);
      }
    }
    const nul = chunk.indexOf(0);
    if (nul !== -1) throw fileError(`${this.name} contains a NUL byte at offset ${this.offset + nul}: not a G-code text file`);
    this.offset += chunk.length;
    const data = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = null;
    const end = data.lastIndexOf(10) + 1;
    const block = this.parse(data, 0, end);
    if (end < data.length) {
      if (data.length - end > MAX_RAW_LINE_BYTES) {
        throw fileError(`line ${this.rawLines + 1} of ${this.name} is longer than ${MAX_RAW_LINE_BYTES} bytes: not a G-code text file`);
      }
      this.carry = Buffer.from(data.subarray(end));
    }
    return block;
  }

  /** The last line when the file does not end with a newline. */
  end(): PreparedBlock {
    const data = this.carry ?? Buffer.alloc(0);
    this.carry = null;
    return this.parse(data, 0, data.length, true);
  }

  private parse(data: Buffer, from: number, to: number, last = false): PreparedBlock {
    // Upper bounds: every raw line in range may be kept, and stripping never lengthens a line.
    let lines = 0;
    for (let i = data.indexOf(10, from); i !== -1 && i < to; i = data.indexOf(10, i + 1)) lines++;
    if (last && to > from) lines++;
    const text = Buffer.allocUnsafe(to - from);
    const starts = new Uint32Array(lines + 1);
    const xor = new Uint8Array(lines);
    const srcBytes = new Uint32Array(lines);
    const fileLine = new Uint32Array(lines);
    let problems: Map<number, string> | null = null;
    let count = 0;
    let out = 0;
    let pos = from;
    while (pos < to) {
      let nl = data.indexOf(10, pos);
      if (nl === -1 || nl >= to) nl = to;
      const rawBytes = Math.min(nl + 1, to) - pos;
      this.rawLines++;
      if (nl - pos > MAX_RAW_LINE_BYTES) {
        throw fileError(`line ${this.rawLines} of ${this.name} is longer than ${MAX_RAW_LINE_BYTES} bytes: not a G-code text file`);
      }
      // Strip on the bytes: cut at ';', trim blanks; a '(' or a non-ASCII byte goes the string way.
      let s = pos;
      let e = nl;
      let simple = true;
      for (let i = pos; i < nl; i++) {
        const c = data[i]!;
        if (c === 59) {
          e = i;
          break;
        }
        if (c === 40 || c > 126) simple = false;
      }
      let kept: Buffer | null = null;
      let problem: string | null = null;
      /** Bytes the line counts for in the totals: its UTF-8 length, as a refused line would have had. */
      let sentLen = 0;
      if (simple) {
        while (s < e && isBlank(data[s]!)) s++;
        while (e > s && isBlank(data[e - 1]!)) e--;
        if (e > s) {
          let x = 0;
          for (let i = s; i < e; i++) {
            const c = data[i]!;
            x ^= c;
            if (problem === null && (c === 42 || (c < 32 && c !== 9))) problem = charProblem(data.toString('latin1', s, e));
          }
          data.copy(text, out, s, e);
          xor[count] = x;
          kept = text;
          sentLen = e - s;
        }
      } else {
        const stripped = stripGcodeLine(data.toString('utf8', pos, nl));
        if (stripped !== '') {
          problem = charProblem(stripped);
          // A line with a problem is refused before it is ever framed: it keeps its place, not its bytes (a non-ASCII
          // line re-encoded could even be longer than the raw one).
          const bytes = problem === null ? Buffer.from(stripped, 'latin1') : Buffer.alloc(0);
          bytes.copy(text, out);
          let x = 0;
          for (let i = 0; i < bytes.length; i++) x ^= bytes[i]!;
          xor[count] = x;
          s = 0;
          e = bytes.length;
          kept = bytes;
          sentLen = Buffer.byteLength(stripped);
        }
      }
      if (kept !== null) {
        const len = e - s;
        starts[count] = out;
        out += len;
        srcBytes[count] = this.trailingBytes + rawBytes;
        fileLine[count] = this.rawLines;
        if (problem !== null) (problems ??= new Map()).set(count, problem);
        this.trailingBytes = 0;
        this.totals.bytes += sentLen + 1;
        this.totals.lines++;
        count++;
      } else {
        this.trailingBytes += rawBytes;
      }
      pos = nl + 1;
    }
    starts[count] = out;
    return {
      count,
      text: text.subarray(0, out),
      starts: starts.subarray(0, count + 1),
      xor: xor.subarray(0, count),
      srcBytes: srcBytes.subarray(0, count),
      fileLine: fileLine.subarray(0, count),
      problems,
    };
  }
}
