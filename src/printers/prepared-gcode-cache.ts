// G-code files prepared once (read in large chunks, parsed into the compact form of protocol/prepared-gcode.ts) and
// shared by every job printing the same file; an entry lives while a job reads it and is dropped with the last one.
import { open, stat, type FileHandle } from 'node:fs/promises';
import { AppError } from '../errors.js';
import { PreparedGcodeBuilder, type PreparedBlock, type PreparedTotals } from '../protocol/prepared-gcode.js';

/** Bytes read at a time; each read becomes one block. */
const CHUNK_BYTES = 1024 * 1024;
/**
 * Files up to this size are held whole while jobs print them: at most about this much memory per file printed (the
 * compact form drops comments and thumbnails and adds 13 bytes a line). A bigger file is not prepared: its job streams
 * it (GcodeFileSource) with flat memory, as every job did before.
 */
const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

const fileError = (message: string, details = ''): AppError => new AppError(422, 'file_invalid', message, details);

/** One file being (or done being) prepared, shared by its readers. */
class Entry {
  readonly blocks: PreparedBlock[] = [];
  done = false;
  error: AppError | null = null;
  refs = 0;
  private readonly waiters = new Set<() => void>();
  readonly builder: PreparedGcodeBuilder;

  constructor(
    readonly key: string,
    readonly filePath: string,
    readonly size: number,
  ) {
    this.builder = new PreparedGcodeBuilder(filePath);
  }

  /** Calls `fn` once when more blocks, the end or an error come. */
  wait(fn: () => void): () => void {
    this.waiters.add(fn);
    return () => this.waiters.delete(fn);
  }

  wake(): void {
    const fns = [...this.waiters];
    this.waiters.clear();
    for (const fn of fns) fn();
  }
}

/** A job's position in a prepared file. Lines are read in place: `block` and `index` name the current one. */
export class PreparedReader {
  block: PreparedBlock | null = null;
  /** Index of the current line in `block`, valid after next() returned true. */
  index = -1;
  private blockNo = 0;
  private released = false;
  private unwait: (() => void) | null = null;

  constructor(
    private readonly entry: Entry,
    private readonly onRelease: (entry: Entry) => void,
  ) {}

  get size(): number {
    return this.entry.size;
  }

  /** Sent bytes and lines of the whole file, once it is all read (null before). */
  get totals(): PreparedTotals | null {
    return this.entry.done ? this.entry.builder.totals : null;
  }

  /** Every line was read and the file is over. */
  get done(): boolean {
    return this.entry.done && this.blockNo >= this.entry.blocks.length && (this.block === null || this.index + 1 >= this.block.count);
  }

  get error(): AppError | null {
    return this.entry.error;
  }

  /** File bytes after the last line (trailing comments and blanks), known once the file is read. */
  get trailingBytes(): number {
    return this.entry.done ? this.entry.builder.trailingBytes : 0;
  }

  /**
   * Moves to the next line; false when none is ready now. Then `done` or `error` tell whether it is the end, and
   * otherwise `onReadable` is called once when more lines are ready.
   */
  next(onReadable: () => void): boolean {
    if (this.released) return false;
    for (;;) {
      if (this.block !== null && this.index + 1 < this.block.count) {
        this.index++;
        return true;
      }
      const blocks = this.entry.blocks;
      if (this.blockNo < blocks.length) {
        this.block = blocks[this.blockNo++]!;
        this.index = -1;
        continue;
      }
      if (!this.entry.done && !this.entry.error && this.unwait === null) {
        this.unwait = this.entry.wait(() => {
          this.unwait = null;
          if (!this.released) onReadable();
        });
      }
      return false;
    }
  }

  /** The job is over: the entry goes when its last reader does. Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.unwait?.();
    this.unwait = null;
    this.block = null;
    this.onRelease(this.entry);
  }
}

export class PreparedGcodeCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly opts: { maxFileBytes?: number; chunkBytes?: number } = {}) {}

  /** Files currently held (for tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * A reader on the file as it is now, sharing the entry of a job already printing it (stored files are named by
   * their SHA-256, and the key also holds size and mtime, so a file replaced in place gets a new entry). Null when
   * the file is too big to hold: the caller streams it. Throws file_invalid when the file cannot be read.
   */
  async open(filePath: string): Promise<PreparedReader | null> {
    let info;
    try {
      info = await stat(filePath);
    } catch (err) {
      throw fileError(`cannot read G-code file ${filePath}`, (err as NodeJS.ErrnoException).code ?? String(err));
    }
    if (!info.isFile()) throw fileError(`${filePath} is not a regular file`);
    if (info.size > (this.opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES)) return null;
    const key = `${filePath}\0${info.size}\0${info.mtimeMs}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = new Entry(key, filePath, info.size);
      this.entries.set(key, entry);
      void this.read(entry);
    }
    entry.refs++;
    return new PreparedReader(entry, (e) => this.release(e));
  }

  private release(entry: Entry): void {
    entry.refs--;
    // The last reader gone: nothing keeps the blocks (a read still under way stops at its next chunk).
    if (entry.refs <= 0 && this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
  }

  /** Reads the file in large chunks, one block each, waking the readers as blocks come. */
  private async read(entry: Entry): Promise<void> {
    let fh: FileHandle | null = null;
    try {
      fh = await open(entry.filePath, 'r');
      const chunk = Buffer.allocUnsafe(this.opts.chunkBytes ?? CHUNK_BYTES);
      for (;;) {
        if (this.entries.get(entry.key) !== entry) return;
        const { bytesRead } = await fh.read(chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        // The builder copies what it keeps: the chunk buffer is reused for the next read.
        entry.blocks.push(entry.builder.push(chunk.subarray(0, bytesRead)));
        entry.wake();
      }
      entry.blocks.push(entry.builder.end());
      entry.done = true;
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      entry.error = e.code === 'file_invalid' ? fileError(e.message) : fileError(`reading ${entry.filePath} failed`, e.code ?? e.message);
      // A broken file is not kept for the next job: it reads it again (and fails again, or the file was replaced).
      if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    } finally {
      await fh?.close().catch(() => undefined);
      entry.wake();
    }
  }
}
