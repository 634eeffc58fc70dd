// Streams files into a gzip-compressed ustar archive and back out, hashing each member on the way (one read, constant memory).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { BLOCK, decodeHeader, encodeHeader, isEndBlock, paddingFor, TarFormatError, type TarEntry } from './tar-header.js';

/** A file on disk to put into the archive under `path`. */
export interface MemberSource {
  path: string;
  file: string;
}

export interface ArchivedMember {
  path: string;
  size: number;
  sha256: string;
}

/** A member made from bytes in memory (the manifest), given the digests of everything written before it. */
export type Trailer = (written: readonly ArchivedMember[]) => { path: string; bytes: Buffer };

async function* memberBlocks(members: readonly MemberSource[], trailer: Trailer, written: ArchivedMember[]): AsyncGenerator<Buffer> {
  for (const m of members) {
    const st = await stat(m.file);
    yield encodeHeader({ path: m.path, size: st.size, mtime: st.mtimeMs / 1000, mode: st.mode & 0o777 });
    const hash = createHash('sha256');
    let read = 0;
    // `end` bounds the read to the size in the header: a file that grows meanwhile cannot overflow its member.
    if (st.size > 0) {
      for await (const chunk of createReadStream(m.file, { end: st.size - 1 })) {
        read += (chunk as Buffer).length;
        hash.update(chunk as Buffer);
        yield chunk as Buffer;
      }
    }
    if (read !== st.size) throw new Error(`${m.file} changed size while it was being backed up (${st.size} then ${read} bytes)`);
    yield Buffer.alloc(paddingFor(st.size));
    written.push({ path: m.path, size: st.size, sha256: hash.digest('hex') });
  }
  const last = trailer(written);
  yield encodeHeader({ path: last.path, size: last.bytes.length, mtime: Date.now() / 1000, mode: 0o600 });
  yield last.bytes;
  yield Buffer.alloc(paddingFor(last.bytes.length));
  // The end of a tar archive: two zero blocks.
  yield Buffer.alloc(2 * BLOCK);
}

/**
 * Writes `members` then the trailer into a new file `toFile` (mode 0600: a backup holds the secret key); resolves with
 * the digests of the members (not the trailer).
 */
export async function writeTarGz(toFile: string, members: readonly MemberSource[], trailer: Trailer): Promise<ArchivedMember[]> {
  const written: ArchivedMember[] = [];
  await pipeline(Readable.from(memberBlocks(members, trailer, written)), createGzip({ level: 6 }), createWriteStream(toFile, { flags: 'wx', mode: 0o600 }));
  return written;
}

/** A member path that stays inside the directory it is extracted to: relative, no "..", no empty or dot segments. */
export function isSafeMemberPath(p: string): boolean {
  if (p.length === 0 || p.startsWith('/') || p.includes('\\') || p.includes('\0')) return false;
  return p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

interface OpenMember {
  entry: TarEntry;
  remaining: number;
  padding: number;
  handle: FileHandle;
  hash: ReturnType<typeof createHash>;
}

/**
 * Extracts every member of `file` under `intoDir` (which should be empty), refusing unsafe paths and anything but
 * regular files; resolves with each member's size and SHA-256 as read. A truncated or corrupt archive throws.
 */
export async function extractTarGz(file: string, intoDir: string): Promise<ArchivedMember[]> {
  const out: ArchivedMember[] = [];
  const seen = new Set<string>();
  let header = Buffer.alloc(0);
  let current: OpenMember | null = null;
  let skip = 0;
  let ended = false;

  const finish = async (m: OpenMember): Promise<void> => {
    await m.handle.close();
    out.push({ path: m.entry.path, size: m.entry.size, sha256: m.hash.digest('hex') });
  };

  const input = createReadStream(file);
  const source = createGunzip();
  // pipe() does not forward a read error; the loop below must see it.
  input.on('error', (err) => source.destroy(err));
  input.pipe(source);
  try {
    for await (const raw of source) {
      let chunk = raw as Buffer;
      while (chunk.length > 0 && !ended) {
        if (skip > 0) {
          const n = Math.min(skip, chunk.length);
          skip -= n;
          chunk = chunk.subarray(n);
        } else if (current) {
          const n = Math.min(current.remaining, chunk.length);
          const part = chunk.subarray(0, n);
          current.hash.update(part);
          await current.handle.write(part);
          current.remaining -= n;
          chunk = chunk.subarray(n);
          if (current.remaining === 0) {
            skip = current.padding;
            await finish(current);
            current = null;
          }
        } else {
          const need = BLOCK - header.length;
          header = Buffer.concat([header, chunk.subarray(0, need)]);
          chunk = chunk.subarray(need);
          if (header.length < BLOCK) continue;
          const block = header;
          header = Buffer.alloc(0);
          if (isEndBlock(block)) {
            ended = true;
            break;
          }
          const entry = decodeHeader(block);
          if (!isSafeMemberPath(entry.path)) throw new TarFormatError(`unsafe member path in the archive: ${JSON.stringify(entry.path)}`);
          if (seen.has(entry.path)) throw new TarFormatError(`the archive holds ${entry.path} twice`);
          seen.add(entry.path);
          const target = path.join(intoDir, ...entry.path.split('/'));
          await mkdir(path.dirname(target), { recursive: true });
          const m: OpenMember = {
            entry,
            remaining: entry.size,
            padding: paddingFor(entry.size),
            handle: await open(target, 'wx', entry.mode & 0o777 || 0o600),
            hash: createHash('sha256'),
          };
          if (entry.size === 0) {
            skip = 0;
            await finish(m);
          } else current = m;
        }
      }
      if (ended) break;
    }
  } finally {
    if (current) await current.handle.close().catch(() => undefined);
    input.destroy();
    source.destroy();
  }
  if (!ended) throw new TarFormatError('the archive is truncated (no end-of-archive marker)');
  return out;
}
