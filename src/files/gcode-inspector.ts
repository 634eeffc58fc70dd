// Pure, streaming G-code inspector: fed byte chunks, it validates the file (file_invalid reasons with line numbers), reads slicer metadata and thumbnails, and counts what will be sent.
import { checkLine, stripGcodeLine } from '../protocol/framing.js';
import { MAX_COMMAND_CHARS, formatBytes } from './file-limits.js';
import { SlicerMetadataCollector, type SlicerMetadata } from './slicer-metadata.js';
import { ThumbnailCollector, type Thumbnail } from './thumbnail-collector.js';

export type InvalidReason = 'empty' | 'binary' | 'bgcode' | 'no_gcode_command' | 'line_too_long' | 'unsendable_line';

export interface FileInvalid {
  reason: InvalidReason;
  /** 1-based line the problem was found on, when it is about one line. */
  line: number | null;
  message: string;
}

export interface Inspection {
  /** Bytes fed. */
  size: number;
  /** Lines in the file (a last line without a newline counts). */
  line_count: number;
  /** Lines that go to the printer: comments stripped, blank lines dropped. */
  sent_lines_total: number;
  /** Bytes of those lines as sent, one newline each, before line numbers and checksums: the measure of progress. */
  sent_bytes_total: number;
  metadata: SlicerMetadata;
  thumbnail: Thumbnail | null;
}

/**
 * The inspection of a container a printer reads itself (.bgcode, .gcode.3mf): nothing is streamed line by line, so
 * there are no line counts.
 */
export const containerInspection = (size: number, metadata: SlicerMetadata, thumbnail: Thumbnail | null): Inspection => ({
  size,
  line_count: 0,
  sent_lines_total: 0,
  sent_bytes_total: 0,
  metadata,
  thumbnail,
});

export type InspectionOutcome = { ok: true; inspection: Inspection } | { ok: false; invalid: FileInvalid };

export interface InspectorOptions {
  maxThumbnailBase64Bytes: number;
}

/** Bytes of one line kept for parsing; a longer line keeps its start (its command must end well before, see below). */
export const LINE_KEEP_BYTES = 16 * 1024;

const BGCODE_MAGIC = 'GCDE';
const ZIP_MAGIC = 'PK\x03\x04';
/** checkLine's character rules without its framed-length budget (this file checks the length itself). */
const CHARACTER_RULES = { checksum: 'none', maxLineLength: Number.MAX_SAFE_INTEGER, lineNumberMax: 0 } as const;

const invalid = (reason: InvalidReason, line: number | null, message: string): FileInvalid => ({ reason, line, message });

export class GcodeInspector {
  /** Set as soon as the file is known to be invalid; the caller may stop feeding (nothing more is looked at). */
  failure: FileInvalid | null = null;
  private size = 0;
  private lines = 0;
  private sentLines = 0;
  private sentBytes = 0;
  private gmCommands = 0;
  private head = '';
  private carry: Buffer[] = [];
  private carryKept = 0;
  private carryBytes = 0;
  private carryTruncated = false;
  private readonly metadata = new SlicerMetadataCollector();
  private readonly thumbnails: ThumbnailCollector;

  constructor(options: InspectorOptions) {
    this.thumbnails = new ThumbnailCollector(options.maxThumbnailBase64Bytes);
  }

  push(chunk: Uint8Array): void {
    if (this.failure || chunk.length === 0) return;
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.size += buf.length;
    if (this.head.length < 4) {
      this.head += buf.toString('latin1', 0, Math.min(buf.length, 4 - this.head.length));
      if (this.head.length >= 4 && this.checkMagic()) return;
    }
    // One native scan per chunk finds a NUL; the line loop below reports it on its line.
    const nulAt = buf.indexOf(0);
    let start = 0;
    while (start < buf.length) {
      const nl = buf.indexOf(10, start);
      const end = nl === -1 ? buf.length : nl;
      if (nulAt !== -1 && nulAt >= start && nulAt < end) {
        this.fail('binary', this.lines + 1, 'contains a NUL byte: a binary file, not G-code text');
        return;
      }
      if (nl === -1) {
        this.keep(buf, start, end);
        return;
      }
      if (this.carryBytes === 0) {
        this.line(buf.toString('utf8', start, end > start && buf[end - 1] === 13 ? end - 1 : end), false);
      } else {
        this.keep(buf, start, end);
        this.line(this.takeCarry(), this.carryTruncatedAndReset());
      }
      if (this.failure) return;
      start = nl + 1;
    }
  }

  /** Ends the file: the verdict, and on success what was read. */
  end(): InspectionOutcome {
    if (!this.failure && this.carryBytes > 0) this.line(this.takeCarry(), this.carryTruncatedAndReset());
    if (!this.failure && this.head.length > 0 && this.head.length < 4) this.checkMagic();
    if (this.failure) return { ok: false, invalid: this.failure };
    if (this.size === 0) return { ok: false, invalid: invalid('empty', null, 'the file is empty (0 bytes)') };
    if (this.sentLines === 0) {
      return {
        ok: false,
        invalid: invalid('no_gcode_command', null, `no command in ${this.lines} line(s), only comments or blank lines: not a G-code file`),
      };
    }
    if (this.gmCommands === 0) {
      return { ok: false, invalid: invalid('no_gcode_command', null, `no G or M command in ${this.lines} line(s): not a G-code file`) };
    }
    return {
      ok: true,
      inspection: {
        size: this.size,
        line_count: this.lines,
        sent_lines_total: this.sentLines,
        sent_bytes_total: this.sentBytes,
        metadata: this.metadata.result(),
        thumbnail: this.thumbnails.result(),
      },
    };
  }

  private checkMagic(): boolean {
    if (this.head.startsWith(BGCODE_MAGIC)) {
      this.fail('bgcode', null, 'Prusa binary G-code (.bgcode) is not supported: export plain text G-code instead');
    } else if (this.head.startsWith(ZIP_MAGIC)) {
      this.fail('binary', null, 'a ZIP archive, not G-code text: upload a sliced 3MF under its .gcode.3mf name, or export plain G-code from the slicer');
    }
    return this.failure !== null;
  }

  private line(raw: string, truncated: boolean): void {
    this.lines += 1;
    const n = this.lines;
    const text = n === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
    // Comment-only lines (most of a slicer's header and footer) skip the stripping and checks.
    let i = 0;
    while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    if (i < text.length && text.charCodeAt(i) === 59 /* ; */) {
      const comment = text.slice(i + 1);
      if (!this.thumbnails.comment(comment)) this.metadata.comment(comment, n);
      return;
    }
    const stripped = stripGcodeLine(text);
    if (truncated && !text.includes(';')) {
      this.fail('line_too_long', n, `longer than ${formatBytes(LINE_KEEP_BYTES)} without a comment: not G-code text`);
      return;
    }
    if (stripped.length === 0) return;
    if (stripped.length > MAX_COMMAND_CHARS) {
      this.fail(
        'line_too_long',
        n,
        `the command is ${stripped.length} characters long after stripping comments; printers take at most ${MAX_COMMAND_CHARS}`,
      );
      return;
    }
    const problem = checkLine(stripped, CHARACTER_RULES);
    if (problem !== null) {
      if (problem.startsWith('control character')) this.fail('binary', n, `${problem}: a binary file, not G-code text`);
      // Bytes that are not UTF-8 (decoded as U+FFFD) or C1 control codes: binary data, not a typo in a command.
      else if (/[\ufffd\u0080-\u009f]/.test(stripped)) this.fail('binary', n, 'bytes that are not text: a binary file, not G-code text');
      else this.fail('unsendable_line', n, `cannot be sent to a printer: ${problem}`);
      return;
    }
    this.sentLines += 1;
    this.sentBytes += stripped.length + 1;
    const c0 = stripped.charCodeAt(0) | 0x20;
    const c1 = stripped.charCodeAt(1);
    if ((c0 === 103 /* g */ || c0 === 109) /* m */ && c1 >= 48 && c1 <= 57) this.gmCommands += 1;
  }

  /** Keeps the start of a line that continues in the next chunk, up to LINE_KEEP_BYTES. */
  private keep(buf: Buffer, start: number, end: number): void {
    this.carryBytes += end - start;
    const room = LINE_KEEP_BYTES - this.carryKept;
    if (room <= 0) {
      this.carryTruncated = true;
      return;
    }
    const take = Math.min(room, end - start);
    if (take < end - start) this.carryTruncated = true;
    // Copied: the caller's chunk may be reused after push() returns.
    this.carry.push(Buffer.from(buf.subarray(start, start + take)));
    this.carryKept += take;
  }

  private takeCarry(): string {
    const joined = Buffer.concat(this.carry, this.carryKept);
    const end = joined.length > 0 && joined[joined.length - 1] === 13 ? joined.length - 1 : joined.length;
    return joined.toString('utf8', 0, end);
  }

  private carryTruncatedAndReset(): boolean {
    const truncated = this.carryTruncated;
    this.carry = [];
    this.carryKept = 0;
    this.carryBytes = 0;
    this.carryTruncated = false;
    return truncated;
  }

  private fail(reason: InvalidReason, line: number | null, what: string): void {
    this.failure = invalid(reason, line, line === null ? what : `line ${line}: ${what}`);
  }
}

/** The whole verdict for a file held in memory (tests, small inputs). */
export function inspectGcode(input: string | Uint8Array, options: InspectorOptions): InspectionOutcome {
  const inspector = new GcodeInspector(options);
  inspector.push(typeof input === 'string' ? Buffer.from(input, 'utf8') : input);
  return inspector.end();
}
