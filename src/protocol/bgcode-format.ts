// Prusa binary G-code (.bgcode) container, pure parts: file header, block headers, block data decoding, INI metadata.
// Layout (libbgcode doc/specifications.md): "GCDE", u32 version, u16 checksum type; then blocks of
// u16 type, u16 compression, u32 uncompressed size[, u32 compressed size when compressed], type parameters, data,
// and a CRC32 over header + parameters + data when the file has checksums. Little-endian throughout.
import { inflateSync } from 'node:zlib';
import { heatshrinkDecode } from './heatshrink-decoder.js';

export const BGCODE_MAGIC = 'GCDE';
export const BGCODE_HEADER_BYTES = 10;

export const BLOCK_TYPES = ['file_metadata', 'gcode', 'slicer_metadata', 'printer_metadata', 'print_metadata', 'thumbnail'] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];
export const COMPRESSIONS = ['none', 'deflate', 'heatshrink_11_4', 'heatshrink_12_4'] as const;
export type Compression = (typeof COMPRESSIONS)[number];
export const THUMBNAIL_FORMATS = ['png', 'jpg', 'qoi'] as const;
export type ThumbnailFormat = (typeof THUMBNAIL_FORMATS)[number];

/** A structural problem of the file: the message says what and where. */
export class BgcodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BgcodeError';
  }
}

export interface BgcodeFileHeader {
  version: number;
  checksum: 'none' | 'crc32';
}

export interface BlockHeader {
  type: BlockType;
  compression: Compression;
  uncompressedSize: number;
  /** Bytes of data in the file (the compressed size, or the plain size when uncompressed). */
  dataSize: number;
  /** 8 or 12. */
  headerBytes: number;
  /** 6 for thumbnails, 2 otherwise. */
  paramBytes: number;
}

/** Whether these first bytes are a binary G-code file. */
export const isBgcode = (head: Uint8Array): boolean =>
  head.length >= 4 && Buffer.from(head.buffer, head.byteOffset, 4).toString('latin1') === BGCODE_MAGIC;

export function parseFileHeader(buf: Buffer): BgcodeFileHeader {
  if (buf.length < BGCODE_HEADER_BYTES) throw new BgcodeError(`truncated: the file is shorter than its ${BGCODE_HEADER_BYTES}-byte header`);
  if (!isBgcode(buf)) throw new BgcodeError('not a binary G-code file: it does not start with "GCDE"');
  const version = buf.readUInt32LE(4);
  if (version !== 1) throw new BgcodeError(`unsupported binary G-code version ${version} (this reader knows version 1)`);
  const cs = buf.readUInt16LE(8);
  if (cs > 1) throw new BgcodeError(`unknown checksum type ${cs}`);
  return { version, checksum: cs === 1 ? 'crc32' : 'none' };
}

/** Reads a block header from `buf` (which holds at least 12 bytes, or what is left of the file). */
export function parseBlockHeader(buf: Buffer, at: number): BlockHeader {
  if (buf.length < 8) throw new BgcodeError(`truncated: a block header at byte ${at} is cut off`);
  const typeCode = buf.readUInt16LE(0);
  const compCode = buf.readUInt16LE(2);
  const type = BLOCK_TYPES[typeCode];
  if (type === undefined) throw new BgcodeError(`unknown block type ${typeCode} at byte ${at}`);
  const compression = COMPRESSIONS[compCode];
  if (compression === undefined) throw new BgcodeError(`unknown compression ${compCode} of the block at byte ${at}`);
  const uncompressedSize = buf.readUInt32LE(4);
  let dataSize = uncompressedSize;
  let headerBytes = 8;
  if (compression !== 'none') {
    if (buf.length < 12) throw new BgcodeError(`truncated: a block header at byte ${at} is cut off`);
    dataSize = buf.readUInt32LE(8);
    headerBytes = 12;
  }
  return { type, compression, uncompressedSize, dataSize, headerBytes, paramBytes: type === 'thumbnail' ? 6 : 2 };
}

/** The block's data as stored, decompressed. */
export function decodeBlockData(h: BlockHeader, data: Buffer, at: number): Buffer {
  let out: Buffer;
  try {
    switch (h.compression) {
      case 'none':
        out = data;
        break;
      case 'deflate':
        out = inflateSync(data, { maxOutputLength: Math.max(1, h.uncompressedSize) });
        break;
      case 'heatshrink_11_4':
        out = heatshrinkDecode(data, 11, 4, h.uncompressedSize);
        break;
      case 'heatshrink_12_4':
        out = heatshrinkDecode(data, 12, 4, h.uncompressedSize);
        break;
    }
  } catch (err) {
    throw new BgcodeError(`the ${h.type} block at byte ${at} does not decompress (${h.compression}): ${(err as Error).message}`);
  }
  if (out.length !== h.uncompressedSize) {
    throw new BgcodeError(`the ${h.type} block at byte ${at} decompresses to ${out.length} bytes, its header says ${h.uncompressedSize}`);
  }
  return out;
}

/** `key=value` lines (the INI encoding of metadata blocks). Later keys win; lines without `=` are ignored. */
export function parseIniMetadata(text: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const line of text.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

/** PrusaSlicer's "1d 2h 3m 4s" (any subset, in that order) in seconds; null when it is not that. */
export function parseSlicerDuration(text: string | undefined): number | null {
  if (text === undefined) return null;
  const m = /^\s*(?:(\d+)d\s*)?(?:(\d+)h\s*)?(?:(\d+)m\s*)?(?:(\d+)s)?\s*$/.exec(text);
  if (!m || text.trim() === '') return null;
  const [d, h, mi, s] = [m[1], m[2], m[3], m[4]].map((v) => (v === undefined ? 0 : Number(v)));
  return d! * 86400 + h! * 3600 + mi! * 60 + s!;
}

/**
 * The G-code text of a whole .bgcode file held in memory (blocks with encoding 0 only: MeatPack is refused by name).
 * For the PrusaLink stand-in, which prints what a real printer would decode; checksums are the reader's business.
 */
export function plainGcodeOf(buf: Buffer): string {
  const crcBytes = parseFileHeader(buf).checksum === 'crc32' ? 4 : 0;
  const parts: string[] = [];
  for (let pos = BGCODE_HEADER_BYTES; pos < buf.length; ) {
    const h = parseBlockHeader(buf.subarray(pos, pos + 12), pos);
    const total = h.headerBytes + h.paramBytes + h.dataSize;
    if (pos + total + crcBytes > buf.length) throw new BgcodeError(`truncated: the ${h.type} block at byte ${pos}`);
    if (h.type === 'gcode') {
      const encoding = buf.readUInt16LE(pos + h.headerBytes);
      if (encoding !== 0) throw new BgcodeError(`the G-code block at byte ${pos} is MeatPack-encoded (${encoding}), which is not decoded here`);
      parts.push(decodeBlockData(h, buf.subarray(pos + h.headerBytes + h.paramBytes, pos + total), pos).toString('latin1'));
    }
    pos += total + crcBytes;
  }
  return parts.join('');
}
