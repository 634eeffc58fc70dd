// Reads the metadata of a Prusa binary G-code (.bgcode) file block by block: bounded memory (metadata and thumbnails
// are read, G-code blocks only streamed through their CRC), header and every block checksum validated.
import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import {
  BGCODE_HEADER_BYTES,
  BgcodeError,
  decodeBlockData,
  parseBlockHeader,
  parseFileHeader,
  parseIniMetadata,
  parseSlicerDuration,
  THUMBNAIL_FORMATS,
  type BgcodeFileHeader,
  type BlockHeader,
  type ThumbnailFormat,
} from '../protocol/bgcode-format.js';

export { BgcodeError, isBgcode } from '../protocol/bgcode-format.js';

export interface BgcodeThumbnail {
  format: ThumbnailFormat;
  width: number;
  height: number;
  /** The image file's bytes (PNG, JPEG or QOI). */
  data: Buffer;
}

export interface BgcodeMetadata {
  version: number;
  checksum: BgcodeFileHeader['checksum'];
  /** The raw key=value tables of each metadata block ({} when the block is absent). */
  file: Record<string, string>;
  printer: Record<string, string>;
  print: Record<string, string>;
  slicer: Record<string, string>;
  /** Values read out of the tables (print metadata first, printer metadata second); null when absent. */
  producer: string | null;
  printer_model: string | null;
  estimated_time_s: number | null;
  filament_used_mm: number | null;
  filament_used_g: number | null;
  filament_type: string | null;
  nozzle_diameter_mm: number | null;
  layer_height_mm: number | null;
  thumbnails: BgcodeThumbnail[];
  gcode_blocks: number;
  /** G-code bytes once decompressed (still MeatPack-encoded where the block says so). */
  gcode_bytes: number;
}

export interface BgcodeReadOptions {
  /** Skip the CRC of G-code blocks (metadata and thumbnail blocks are always checked). Default false. */
  skipGcodeChecksums?: boolean;
  /** A metadata block larger than this (decompressed) is refused. Default 4 MiB. */
  maxMetadataBytes?: number;
  /** A thumbnail larger than this is refused. Default 4 MiB. */
  maxThumbnailBytes?: number;
}

const CHUNK = 256 * 1024;
const ORDER: Record<BlockHeader['type'], number> = {
  file_metadata: 0,
  printer_metadata: 1,
  thumbnail: 2,
  print_metadata: 3,
  slicer_metadata: 4,
  gcode: 5,
};

/** Reads and checks a .bgcode file; rejects with a BgcodeError saying what is wrong and where. */
export async function readBgcodeMetadata(path: string, opts: BgcodeReadOptions = {}): Promise<BgcodeMetadata> {
  const fh = await open(path, 'r');
  try {
    return await readFrom(fh, (await fh.stat()).size, opts);
  } finally {
    await fh.close();
  }
}

/**
 * Positional reads through one window of the file: small blocks (most G-code blocks are a few KiB) cost no system call
 * of their own. A read larger than the window goes to the file directly. Returned buffers are views valid until the
 * next read.
 */
class FileWindow {
  private buf = Buffer.alloc(0);
  private start = 0;
  constructor(
    private readonly fh: FileHandle,
    readonly size: number,
    private readonly windowBytes = 1024 * 1024,
  ) {}

  async read(at: number, length: number, what: string): Promise<Buffer> {
    if (at + length > this.size) throw new BgcodeError(`truncated: ${what} at byte ${at} needs ${length} bytes, the file ends at ${this.size}`);
    if (at >= this.start && at + length <= this.start + this.buf.length) return this.buf.subarray(at - this.start, at - this.start + length);
    const want = Math.max(length, Math.min(this.windowBytes, this.size - at));
    const buf = Buffer.alloc(want);
    const { bytesRead } = await this.fh.read(buf, 0, want, at);
    if (bytesRead < length) throw new BgcodeError(`truncated: ${what} at byte ${at}`);
    if (want <= this.windowBytes) {
      this.buf = buf.subarray(0, bytesRead);
      this.start = at;
    }
    return buf.subarray(0, length);
  }
}

async function readFrom(fh: FileHandle, fileSize: number, opts: BgcodeReadOptions): Promise<BgcodeMetadata> {
  const file = new FileWindow(fh, fileSize);
  const maxMeta = opts.maxMetadataBytes ?? 4 * 1024 * 1024;
  const maxThumb = opts.maxThumbnailBytes ?? 4 * 1024 * 1024;
  const header = parseFileHeader(await file.read(0, Math.min(BGCODE_HEADER_BYTES, fileSize), 'the file header'));
  const crcBytes = header.checksum === 'crc32' ? 4 : 0;
  const tables: Record<'file' | 'printer' | 'print' | 'slicer', Record<string, string>> = { file: {}, printer: {}, print: {}, slicer: {} };
  const thumbnails: BgcodeThumbnail[] = [];
  let gcodeBlocks = 0;
  let gcodeBytes = 0;
  let lastOrder = -1;
  let sawPrinter = false;
  let pos = BGCODE_HEADER_BYTES;
  while (pos < fileSize) {
    const headBuf = await file.read(pos, Math.min(12, fileSize - pos), 'a block header');
    const h = parseBlockHeader(headBuf, pos);
    const order = ORDER[h.type];
    // Metadata blocks come once each, in the specification's order; thumbnails and G-code blocks repeat.
    if (order < lastOrder || (order === lastOrder && h.type !== 'thumbnail' && h.type !== 'gcode')) {
      throw new BgcodeError(`the ${h.type} block at byte ${pos} is out of the specified order`);
    }
    lastOrder = order;
    if (h.type === 'printer_metadata') sawPrinter = true;
    const total = h.headerBytes + h.paramBytes + h.dataSize;
    if (pos + total + crcBytes > fileSize) {
      throw new BgcodeError(`truncated: the ${h.type} block at byte ${pos} needs ${total + crcBytes} bytes, the file ends at ${fileSize}`);
    }
    if (h.type === 'gcode') {
      gcodeBlocks++;
      gcodeBytes += h.uncompressedSize;
      if (crcBytes && !opts.skipGcodeChecksums) await checkStreamed(file, pos, total, h);
    } else {
      const limit = h.type === 'thumbnail' ? maxThumb : maxMeta;
      if (h.uncompressedSize > limit || h.dataSize > limit) {
        throw new BgcodeError(`the ${h.type} block at byte ${pos} is ${h.uncompressedSize} bytes, more than the ${limit} allowed`);
      }
      const whole = await file.read(pos, total + crcBytes, `the ${h.type} block`);
      if (crcBytes) checkCrc(crc32(whole.subarray(0, total)), whole.readUInt32LE(total), h, pos);
      const params = whole.subarray(h.headerBytes, h.headerBytes + h.paramBytes);
      const data = decodeBlockData(h, whole.subarray(h.headerBytes + h.paramBytes, total), pos);
      if (h.type === 'thumbnail') thumbnails.push(thumbnailOf(params, data, pos));
      else {
        const encoding = params.readUInt16LE(0);
        if (encoding !== 0) throw new BgcodeError(`the ${h.type} block at byte ${pos} has unknown encoding ${encoding} (only INI is specified)`);
        tables[h.type.replace('_metadata', '') as keyof typeof tables] = parseIniMetadata(data.toString('utf8'));
      }
    }
    pos += total + crcBytes;
  }
  if (!sawPrinter) throw new BgcodeError('the file has no printer metadata block');
  if (gcodeBlocks === 0) throw new BgcodeError('the file has no G-code block');
  return describe(header, tables, thumbnails, gcodeBlocks, gcodeBytes);
}

function checkCrc(got: number, stored: number, h: BlockHeader, at: number): void {
  if (got !== stored) {
    throw new BgcodeError(`the ${h.type} block at byte ${at} fails its CRC32 (stored ${hex(stored)}, computed ${hex(got)}): the file is corrupt`);
  }
}

const hex = (n: number): string => n.toString(16).padStart(8, '0');

/** CRC32 of a G-code block, read in window-sized chunks. */
async function checkStreamed(file: FileWindow, at: number, total: number, h: BlockHeader): Promise<void> {
  let crc = 0;
  for (let done = 0; done < total; ) {
    const n = Math.min(CHUNK, total - done);
    crc = crc32(await file.read(at + done, n, `the ${h.type} block`), crc);
    done += n;
  }
  checkCrc(crc, (await file.read(at + total, 4, 'a block checksum')).readUInt32LE(0), h, at);
}

function thumbnailOf(params: Buffer, data: Buffer, at: number): BgcodeThumbnail {
  const format = THUMBNAIL_FORMATS[params.readUInt16LE(0)];
  if (format === undefined) throw new BgcodeError(`the thumbnail at byte ${at} has unknown image format ${params.readUInt16LE(0)}`);
  return { format, width: params.readUInt16LE(2), height: params.readUInt16LE(4), data: Buffer.from(data) };
}

/** A number, or the sum of a per-tool list ("12.5, 3.25" on multi-tool printers); null when it is neither. */
const number = (v: string | undefined): number | null => {
  if (v === undefined || v.trim() === '') return null;
  const parts = v.split(',').map((p) => Number(p.trim()));
  return parts.every((n) => Number.isFinite(n)) ? parts.reduce((a, b) => a + b, 0) : null;
};

function describe(
  header: BgcodeFileHeader,
  t: Record<'file' | 'printer' | 'print' | 'slicer', Record<string, string>>,
  thumbnails: BgcodeThumbnail[],
  gcodeBlocks: number,
  gcodeBytes: number,
): BgcodeMetadata {
  // The print block is the slicer's final word on time and filament; the printer block repeats them for the printer.
  const pick = (key: string): string | undefined => t.print[key] ?? t.printer[key] ?? t.slicer[key];
  return {
    version: header.version,
    checksum: header.checksum,
    ...t,
    producer: t.file.Producer ?? null,
    printer_model: t.printer.printer_model ?? t.slicer.printer_model ?? null,
    estimated_time_s: parseSlicerDuration(pick('estimated printing time (normal mode)')),
    filament_used_mm: number(pick('filament used [mm]')),
    filament_used_g: number(pick('total filament used [g]') ?? pick('filament used [g]')),
    filament_type: pick('filament_type') ?? null,
    nozzle_diameter_mm: number(pick('nozzle_diameter')),
    layer_height_mm: number(pick('layer_height')),
    thumbnails,
    gcode_blocks: gcodeBlocks,
    gcode_bytes: gcodeBytes,
  };
}
