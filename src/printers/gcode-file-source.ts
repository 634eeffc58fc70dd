// Pull-based G-code file reader: hands out one raw line at a time with its byte count, reading the disk only as fast as lines are taken.
import { createReadStream, type ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { AppError } from '../errors.js';

/** Longest raw line we hold in memory; a sliced file never comes near it, a binary file without newlines does. */
export const MAX_RAW_LINE_BYTES = 64 * 1024;

/** Prusa's binary G-code container starts with these bytes; we stream text only. */
const BGCODE_MAGIC = Buffer.from('GCDE', 'latin1');

export interface GcodeFileSourceOptions {
  /** Called once after nextLine() returned null because the disk had not delivered yet, when more can be taken. */
  onReadable: () => void;
  /** Called once when the file cannot be read or turns out not to be text; nextLine() then keeps returning null. */
  onError: (err: AppError) => void;
  /** Bytes read from disk at a time (memory stays bounded by a few of these). */
  chunkBytes?: number;
}

const fileError = (message: string, details = ''): AppError => new AppError(422, 'file_invalid', message, details);

/**
 * Reads a G-code file as a stream. The caller pulls lines with nextLine() until it returns null; then either
 * `done` is true (end of file), `error` is set, or onReadable() will be called when more lines can be pulled.
 * Nothing is read ahead beyond the read stream's own buffer, so memory stays flat for any file size.
 * One string per line is the only per-line allocation; the byte count of the last line is a field, not an object.
 */
export class GcodeFileSource {
  /** Size of the file in bytes, known after open(). */
  size = 0;
  /** Bytes of the raw line last returned by nextLine(), terminator included: progress counts these. */
  lastLineBytes = 0;
  /** 1-based number of the line last returned (for error messages). */
  lineNumber = 0;
  /** Bytes handed out so far, terminators included. */
  bytesConsumed = 0;
  done = false;
  error: AppError | null = null;

  private stream: ReadStream | null = null;
  private chunk: Buffer | null = null;
  private offset = 0;
  /** Part of a line that began in an earlier chunk. */
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private ended = false;
  private waiting = false;
  private firstChunk = true;
  private closed = false;

  constructor(
    readonly filePath: string,
    private readonly opts: GcodeFileSourceOptions,
  ) {}

  /** Checks the file exists and is a regular file, and starts the read stream (paused until lines are pulled). */
  async open(): Promise<void> {
    let info;
    try {
      info = await stat(this.filePath);
    } catch (err) {
      throw fileError(`cannot read G-code file ${this.filePath}`, (err as NodeJS.ErrnoException).code ?? String(err));
    }
    if (!info.isFile()) throw fileError(`${this.filePath} is not a regular file`);
    this.size = info.size;
    const stream = createReadStream(this.filePath, { highWaterMark: this.opts.chunkBytes ?? 64 * 1024 });
    this.stream = stream;
    stream.on('readable', () => {
      if (this.waiting && !this.closed) {
        this.waiting = false;
        this.opts.onReadable();
      }
    });
    stream.on('end', () => {
      this.ended = true;
      if (this.waiting && !this.closed) {
        this.waiting = false;
        this.opts.onReadable();
      }
    });
    stream.on('error', (err: NodeJS.ErrnoException) => {
      this.fail(fileError(`reading ${this.filePath} failed`, err.code ?? err.message));
    });
  }

  /**
   * The next raw line (without its \n or \r\n), or null when none is available right now.
   * `lastLineBytes` then holds its size in the file.
   */
  nextLine(): string | null {
    if (this.error || this.done || this.closed) return null;
    for (;;) {
      if (this.chunk === null && !this.pullChunk()) return this.atEndOfData();
      const chunk = this.chunk!;
      const nl = chunk.indexOf(10, this.offset);
      if (nl === -1) {
        if (this.offset < chunk.length) {
          const rest = chunk.subarray(this.offset);
          this.carry.push(rest);
          this.carryBytes += rest.length;
          if (this.carryBytes > MAX_RAW_LINE_BYTES) {
            this.fail(
              fileError(
                `line ${this.lineNumber + 1} of ${this.filePath} is longer than ${MAX_RAW_LINE_BYTES} bytes: not a G-code text file`,
              ),
            );
            return null;
          }
        }
        this.chunk = null;
        continue;
      }
      let line: string;
      let bytes = nl - this.offset + 1;
      const end = nl > this.offset && chunk[nl - 1] === 13 ? nl - 1 : nl;
      if (this.carryBytes === 0) {
        line = chunk.toString('utf8', this.offset, end);
      } else {
        bytes += this.carryBytes;
        line = this.takeCarry(chunk.subarray(this.offset, nl));
      }
      this.offset = nl + 1;
      if (this.offset >= chunk.length) this.chunk = null;
      return this.emit(line, bytes);
    }
  }

  /** Stops reading and releases the file. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.chunk = null;
    this.carry = [];
    this.stream?.destroy();
  }

  private emit(line: string, bytes: number): string {
    this.lineNumber += 1;
    this.lastLineBytes = bytes;
    this.bytesConsumed += bytes;
    return line;
  }

  /** Joins a line split across chunks; a \r before the \n may sit at the very end of the carried part. */
  private takeCarry(tail: Buffer): string {
    const joined = Buffer.concat([...this.carry, tail], this.carryBytes + tail.length);
    this.carry = [];
    this.carryBytes = 0;
    const end = joined.length > 0 && joined[joined.length - 1] === 13 ? joined.length - 1 : joined.length;
    return joined.toString('utf8', 0, end);
  }

  /** Takes the next chunk from the read stream; false when none is buffered. Checks for binary content. */
  private pullChunk(): boolean {
    const data = this.stream?.read() as Buffer | null | undefined;
    if (!data) return false;
    if (this.firstChunk) {
      this.firstChunk = false;
      if (data.length >= 4 && data.subarray(0, 4).equals(BGCODE_MAGIC)) {
        this.fail(fileError(`${this.filePath} is binary G-code (bgcode): convert it to text G-code first`));
        return false;
      }
    }
    const nul = data.indexOf(0);
    if (nul !== -1) {
      const at = this.bytesConsumed + this.carryBytes + nul;
      this.fail(fileError(`${this.filePath} contains a NUL byte at offset ${at}: not a G-code text file`));
      return false;
    }
    this.chunk = data;
    this.offset = 0;
    return true;
  }

  /** No buffered chunk: either the file is over (a last line without newline may remain) or we wait for the disk. */
  private atEndOfData(): string | null {
    if (this.error) return null;
    if (this.ended) {
      this.done = true;
      if (this.carryBytes > 0) {
        const bytes = this.carryBytes;
        return this.emit(this.takeCarry(Buffer.alloc(0)), bytes);
      }
      return null;
    }
    this.waiting = true;
    return null;
  }

  private fail(err: AppError): void {
    if (this.error || this.closed) return;
    this.error = err;
    this.close();
    this.opts.onError(err);
  }
}
