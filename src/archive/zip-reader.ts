// Reads entries of a ZIP archive on disk (a 3MF is one): the central directory, then any entry inflated with a hard
// cap on its output, so a crafted archive (a "zip bomb", a lying size) costs at most the cap in memory and time.
import { open, type FileHandle } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { createInflateRaw, crc32, inflateRawSync } from 'node:zlib';

/** The archive is damaged, truncated, uses what we do not read, or an entry inflates beyond what it declared. */
export class ZipError extends Error {}

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated: the only two a slicer writes. */
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_MIN = 22;
/** The end record sits in the last 22 bytes plus a comment of at most 65535. */
const EOCD_SEARCH = EOCD_MIN + 0xffff;
/** A 3MF lists a few dozen entries; a directory this large is not a slicer's. */
const MAX_DIRECTORY_BYTES = 16 * 1024 * 1024;
const MAX_ENTRIES = 10_000;
const ZIP64_MARK = 0xffffffff;

export const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** Whether the first bytes of a file are a ZIP archive's (a 3MF). */
export const startsAsZip = (head: Buffer): boolean => head.length >= 4 && head.subarray(0, 4).equals(ZIP_MAGIC);

export class ZipArchive {
  private constructor(
    private readonly path: string,
    private readonly handle: FileHandle,
    readonly entries: ReadonlyMap<string, ZipEntry>,
  ) {}

  static async open(path: string): Promise<ZipArchive> {
    const handle = await open(path, 'r');
    try {
      const entries = await readDirectory(handle);
      return new ZipArchive(path, handle, entries);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  /** A small entry whole: refused when it declares or inflates to more than `maxBytes`, or its CRC differs. */
  async read(entry: ZipEntry, maxBytes: number): Promise<Buffer> {
    if (entry.size > maxBytes) throw new ZipError(`${entry.name} is ${entry.size} bytes, more than the ${maxBytes} read of it`);
    const start = await this.dataStart(entry);
    const raw = Buffer.alloc(entry.compressedSize);
    const { bytesRead } = await this.handle.read(raw, 0, raw.length, start);
    if (bytesRead !== raw.length) throw new ZipError(`${entry.name} is cut short: the archive is truncated`);
    let data: Buffer;
    if (entry.method === 0) {
      data = raw;
    } else {
      try {
        // One byte over the declared size is enough to prove it lies; never more is produced.
        data = inflateRawSync(raw, { maxOutputLength: entry.size + 1 });
      } catch (err) {
        const over = (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
        throw new ZipError(over ? `${entry.name} inflates beyond the ${entry.size} bytes it declares` : `${entry.name} does not inflate: ${(err as Error).message}`);
      }
    }
    if (data.length !== entry.size) throw new ZipError(`${entry.name} inflates to ${data.length} bytes, not the ${entry.size} it declares`);
    if (crc32(data) >>> 0 !== entry.crc32) throw new ZipError(`${entry.name} fails its CRC check: the archive is damaged`);
    return data;
  }

  /**
   * A large entry as a stream of its inflated bytes (a plate's G-code), failing as soon as it passes the size it
   * declares or `maxBytes`, or ends short or with a wrong CRC.
   */
  async stream(entry: ZipEntry, maxBytes: number): Promise<Readable> {
    if (entry.size > maxBytes) throw new ZipError(`${entry.name} is ${entry.size} bytes inflated, more than the ${maxBytes} taken`);
    const start = await this.dataStart(entry);
    const source = createReadStream(this.path, { start, end: start + entry.compressedSize - 1 });
    let seen = 0;
    let crc = 0;
    const guard = new Transform({
      transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
        seen += chunk.length;
        if (seen > entry.size) return done(new ZipError(`${entry.name} inflates beyond the ${entry.size} bytes it declares`));
        crc = crc32(chunk, crc);
        done(null, chunk);
      },
      flush(done: TransformCallback) {
        if (seen !== entry.size) return done(new ZipError(`${entry.name} inflates to ${seen} bytes, not the ${entry.size} it declares`));
        if (crc >>> 0 !== entry.crc32) return done(new ZipError(`${entry.name} fails its CRC check: the archive is damaged`));
        done();
      },
    });
    const inflate = entry.method === 0 ? null : createInflateRaw();
    const fail = (err: Error) => guard.destroy(err instanceof ZipError ? err : new ZipError(`${entry.name} does not inflate: ${err.message}`));
    source.on('error', fail);
    if (inflate) {
      inflate.on('error', fail);
      source.pipe(inflate).pipe(guard);
    } else {
      source.pipe(guard);
    }
    guard.on('close', () => {
      source.destroy();
      inflate?.destroy();
    });
    return guard;
  }

  /** Where an entry's data begins: after its local header, whose name and extra lengths may differ from the directory's. */
  private async dataStart(entry: ZipEntry): Promise<number> {
    const header = Buffer.alloc(30);
    const { bytesRead } = await this.handle.read(header, 0, 30, entry.localHeaderOffset);
    if (bytesRead !== 30 || header.readUInt32LE(0) !== LOCAL_SIGNATURE) throw new ZipError(`${entry.name} has no local header where the directory says`);
    if (header.readUInt16LE(6) & 1) throw new ZipError(`${entry.name} is encrypted`);
    return entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  }
}

async function readDirectory(handle: FileHandle): Promise<Map<string, ZipEntry>> {
  const { size } = await handle.stat();
  if (size < EOCD_MIN) throw new ZipError('too short to be a ZIP archive');
  const tailLength = Math.min(size, EOCD_SEARCH);
  const tail = Buffer.alloc(tailLength);
  await handle.read(tail, 0, tailLength, size - tailLength);
  let at = -1;
  for (let i = tailLength - EOCD_MIN; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD_SIGNATURE) {
      at = i;
      break;
    }
  }
  if (at < 0) throw new ZipError('no end of central directory: the archive is truncated or not a ZIP');
  const count = tail.readUInt16LE(at + 10);
  const dirSize = tail.readUInt32LE(at + 12);
  const dirOffset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || dirSize === ZIP64_MARK || dirOffset === ZIP64_MARK) throw new ZipError('a ZIP64 archive, which is not read (no slicer writes one for a print)');
  if (count > MAX_ENTRIES || dirSize > MAX_DIRECTORY_BYTES) throw new ZipError(`a central directory of ${count} entries (${dirSize} bytes) is more than a 3MF holds`);
  if (dirOffset + dirSize > size) throw new ZipError('the central directory lies beyond the end of the file: the archive is truncated');
  const dir = Buffer.alloc(dirSize);
  await handle.read(dir, 0, dirSize, dirOffset);
  const entries = new Map<string, ZipEntry>();
  let p = 0;
  for (let n = 0; n < count; n++) {
    if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL_SIGNATURE) throw new ZipError(`central directory entry ${n + 1} is damaged`);
    const nameLength = dir.readUInt16LE(p + 28);
    const extraLength = dir.readUInt16LE(p + 30);
    const commentLength = dir.readUInt16LE(p + 32);
    const entry: ZipEntry = {
      name: dir.toString('utf8', p + 46, p + 46 + nameLength),
      method: dir.readUInt16LE(p + 10),
      crc32: dir.readUInt32LE(p + 16),
      compressedSize: dir.readUInt32LE(p + 20),
      size: dir.readUInt32LE(p + 24),
      localHeaderOffset: dir.readUInt32LE(p + 42),
    };
    if (entry.compressedSize === ZIP64_MARK || entry.size === ZIP64_MARK || entry.localHeaderOffset === ZIP64_MARK) {
      throw new ZipError(`${entry.name} needs ZIP64, which is not read`);
    }
    if (entry.method !== 0 && entry.method !== 8) throw new ZipError(`${entry.name} uses compression method ${entry.method} (only stored and deflate are read)`);
    if (entry.localHeaderOffset + entry.compressedSize > size) throw new ZipError(`${entry.name} lies beyond the end of the file: the archive is truncated`);
    entries.set(entry.name, entry);
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
