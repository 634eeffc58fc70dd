// The POSIX ustar header of one regular file (512 bytes): encoded and decoded here, with no I/O, so any `tar` reads our backups.

export const BLOCK = 512;
/** ustar's size field holds 11 octal digits. */
export const MAX_MEMBER_BYTES = 8 ** 11 - 1;
const NAME_LEN = 100;
const PREFIX_LEN = 155;

export interface TarEntry {
  /** Relative path with forward slashes, e.g. "files/ab/cd/<sha>.gcode". */
  path: string;
  size: number;
  /** Seconds since the epoch. */
  mtime: number;
  /** Permission bits, e.g. 0o600. */
  mode: number;
}

export class TarFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TarFormatError';
  }
}

/** Splits a long path into ustar's prefix and name at a slash, or null when it cannot be stored. */
function splitPath(p: string): { prefix: string; name: string } | null {
  if (Buffer.byteLength(p) <= NAME_LEN) return { prefix: '', name: p };
  for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) {
    const prefix = p.slice(0, i);
    const name = p.slice(i + 1);
    if (Buffer.byteLength(prefix) <= PREFIX_LEN && Buffer.byteLength(name) <= NAME_LEN && name.length > 0) return { prefix, name };
  }
  return null;
}

function writeOctal(block: Buffer, offset: number, width: number, value: number): void {
  // width - 1 digits and a NUL terminator, as GNU and BSD tar write them.
  block.write(value.toString(8).padStart(width - 1, '0') + '\0', offset, width, 'ascii');
}

function readOctal(block: Buffer, offset: number, width: number, field: string): number {
  const text = block.toString('ascii', offset, offset + width).replace(/[\0 ]+$/, '').replace(/^ +/, '');
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError(`bad ${field} field in a tar header`);
  return parseInt(text, 8);
}

function readText(block: Buffer, offset: number, width: number): string {
  const raw = block.subarray(offset, offset + width);
  const end = raw.indexOf(0);
  return raw.toString('utf8', 0, end === -1 ? width : end);
}

function checksum(block: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  return sum;
}

/** The header block of a regular file; throws TarFormatError for a path or size ustar cannot hold. */
export function encodeHeader(entry: TarEntry): Buffer {
  const split = splitPath(entry.path);
  if (!split) throw new TarFormatError(`path too long for a tar header: ${entry.path}`);
  if (!Number.isSafeInteger(entry.size) || entry.size < 0 || entry.size > MAX_MEMBER_BYTES) {
    throw new TarFormatError(`${entry.path}: size ${entry.size} does not fit a tar header`);
  }
  const block = Buffer.alloc(BLOCK);
  block.write(split.name, 0, NAME_LEN, 'utf8');
  writeOctal(block, 100, 8, entry.mode & 0o7777);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, entry.size);
  writeOctal(block, 136, 12, Math.max(0, Math.floor(entry.mtime)));
  block.write('0', 156, 1, 'ascii');
  block.write('ustar\0', 257, 6, 'ascii');
  block.write('00', 263, 2, 'ascii');
  block.write(split.prefix, 345, PREFIX_LEN, 'utf8');
  block.write(checksum(block).toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  return block;
}

/** True for the all-zero blocks that end an archive. */
export function isEndBlock(block: Buffer): boolean {
  for (const byte of block) if (byte !== 0) return false;
  return true;
}

/** Reads a header block; only regular files are accepted (a backup holds nothing else). */
export function decodeHeader(block: Buffer): TarEntry {
  if (block.length !== BLOCK) throw new TarFormatError('truncated tar header');
  if (readOctal(block, 148, 8, 'checksum') !== checksum(block)) throw new TarFormatError('tar header checksum mismatch');
  if (block.toString('ascii', 257, 262) !== 'ustar') throw new TarFormatError('not a ustar header');
  const type = String.fromCharCode(block[156]!);
  if (type !== '0' && type !== '\0') throw new TarFormatError(`unexpected tar member type "${type}" (only regular files belong in a backup)`);
  const name = readText(block, 0, NAME_LEN);
  const prefix = readText(block, 345, PREFIX_LEN);
  return {
    path: prefix ? `${prefix}/${name}` : name,
    size: readOctal(block, 124, 12, 'size'),
    mtime: readOctal(block, 136, 12, 'mtime'),
    mode: readOctal(block, 100, 8, 'mode'),
  };
}

/** Zero bytes that pad a member's content to a whole block. */
export const paddingFor = (size: number): number => (BLOCK - (size % BLOCK)) % BLOCK;
