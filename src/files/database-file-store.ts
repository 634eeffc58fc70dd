// File content and thumbnails as ~1 MB rows of file_chunks, readable by every node sharing the database; a job start
// reads them into a per-node cache file, checked against the content hash before a printer sees it.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Db } from '../storage/db.js';
import { isDuplicateKey } from '../storage/duplicate-key.js';
import { ExclusiveSections, FileContentError, type ContentStore, type StoredTemp, type ThumbnailType } from './content-store.js';
import { FILES_DIR, FileStore } from './file-store.js';
import { chunkCount, deleteChunks, readChunk, writeChunks } from './file-chunks.repository.js';

/** Bytes per row: large enough that a 100 MB file is a hundred rows, small enough that one read stays bounded. */
export const CHUNK_BYTES = 1024 * 1024;
/** <dataDir>/files/cache: this node's verified copies of database content (never backed up: the database has them). */
export const CACHE_DIR = 'cache';

export class DatabaseFileStore implements ContentStore {
  readonly kind = 'database' as const;
  private readonly sections = new ExclusiveSections();
  /** Uploads are hashed into a local temp file first, exactly as for the directory stores. */
  private readonly temps: FileStore;
  private readonly cacheDir: string;
  /** Cache files whose hash was checked by this process, with the size and mtime they had then. */
  private readonly verified = new Map<string, { size: number; mtimeMs: number }>();
  /** One read of a file from the database at a time, however many jobs of it start together. */
  private readonly filling = new Map<string, Promise<string>>();

  constructor(
    private readonly db: Db,
    dataDir: string,
    /** Whether the database's bytes land on this box's disk (SQLite): then the storage reserve applies. */
    readonly local: boolean,
    private readonly chunkBytes = CHUNK_BYTES,
  ) {
    this.temps = new FileStore(dataDir);
    this.cacheDir = path.join(dataDir, FILES_DIR, CACHE_DIR);
  }

  writeTemp(source: Readable, observe: (chunk: Buffer) => void): Promise<StoredTemp> {
    return this.temps.writeTemp(source, observe);
  }

  discard(temp: StoredTemp): Promise<void> {
    return this.temps.discard(temp);
  }

  /** Copies the temp file into rows (see storeFile), then drops the temp file. */
  async commit(temp: StoredTemp): Promise<void> {
    await this.storeFile(temp.tempPath, temp.sha256, temp.size);
    await this.temps.discard(temp);
  }

  /**
   * Copies a local file into rows one chunk at a time, in one transaction (readers see all of it or none), checking
   * on the way that its bytes are `size` bytes hashing to `sha256`; the file itself is left as it is.
   */
  async storeFile(filePath: string, sha256: string, size: number): Promise<void> {
    const fh = await open(filePath, 'r');
    const hash = createHash('sha256');
    let total = 0;
    try {
      const buf = Buffer.alloc(this.chunkBytes);
      await writeChunks(this.db, sha256, 'content', async (idx) => {
        const { bytesRead } = await fh.read(buf, 0, buf.length, idx * this.chunkBytes);
        if (bytesRead === 0) {
          const digest = hash.digest('hex');
          // Thrown inside the transaction: nothing of a damaged source is kept.
          if (total !== size || digest !== sha256) throw new FileContentError(`${filePath} is ${total} bytes hashing to ${digest}, not the stored file ${sha256} of ${size} bytes`);
          return null;
        }
        total += bytesRead;
        hash.update(buf.subarray(0, bytesRead));
        // A copy: the row keeps its bytes while the buffer is reused for the next chunk.
        return Buffer.from(buf.subarray(0, bytesRead));
      });
    } catch (err) {
      // Another node stored the same content at the same moment (its rows won the keys): that copy serves.
      if (!(isDuplicateKey(err) && (await this.hasContent(sha256, size)))) throw err;
    } finally {
      await fh.close();
    }
  }

  async hasContent(sha256: string, size: number): Promise<boolean> {
    const { chunks, bytes } = await chunkCount(this.db, sha256, 'content');
    return bytes === size && (size === 0 || chunks > 0);
  }

  async remove(sha256: string, thumbnailType: ThumbnailType | null): Promise<void> {
    await deleteChunks(this.db, sha256, thumbnailType ? ['content', 'thumbnail'] : ['content']);
    this.verified.delete(this.cachePath(sha256));
    await unlink(this.cachePath(sha256)).catch(() => undefined);
  }

  async removeWithin(trx: Db, sha256: string): Promise<void> {
    await deleteChunks(trx, sha256, ['content', 'thumbnail']);
  }

  async writeThumbnail(sha256: string, _contentType: ThumbnailType, data: Buffer): Promise<void> {
    await writeChunks(this.db, sha256, 'thumbnail', async (idx) => {
      const start = idx * this.chunkBytes;
      return idx > 0 && start >= data.length ? null : data.subarray(start, start + this.chunkBytes);
    }).catch((err: unknown) => {
      // The same image from the same content, stored by another node at the same moment.
      if (!isDuplicateKey(err)) throw err;
    });
  }

  async readThumbnail(sha256: string): Promise<Buffer | null> {
    const parts: Buffer[] = [];
    for (let idx = 0; ; idx++) {
      const chunk = await readChunk(this.db, sha256, 'thumbnail', idx);
      if (!chunk) break;
      parts.push(chunk);
    }
    return parts.length === 0 ? null : Buffer.concat(parts);
  }

  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.sections.run(fn);
  }

  async localCopy(file: { sha256: string; size: number }): Promise<string> {
    const at = this.cachePath(file.sha256);
    const seen = this.verified.get(at);
    const info = await stat(at).catch(() => null);
    if (seen && info && info.size === seen.size && info.mtimeMs === seen.mtimeMs) return at;
    let filling = this.filling.get(at);
    if (!filling) {
      filling = this.fill(file, at).finally(() => this.filling.delete(at));
      this.filling.set(at, filling);
    }
    return filling;
  }

  async sweep(): Promise<number> {
    const names = await readdir(this.cacheDir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      // Only finished copies: a .part file may be a copy being made right now.
      const sha256 = /^([0-9a-f]{64})\.gcode$/.exec(name)?.[1];
      if (!sha256 || this.filling.has(this.cachePath(sha256))) continue;
      if ((await chunkCount(this.db, sha256, 'content')).chunks > 0) continue;
      this.verified.delete(this.cachePath(sha256));
      await unlink(this.cachePath(sha256)).catch(() => undefined);
      removed++;
    }
    return removed;
  }

  private cachePath(sha256: string): string {
    return path.join(this.cacheDir, `${sha256}.gcode`);
  }

  /**
   * Checks a cache file left by an earlier run, or reads the chunks into a new one: in order, one at a time, hashed on
   * the way; the copy is used only when every chunk is there and the bytes hash to the file's sha256.
   */
  private async fill(file: { sha256: string; size: number }, at: string): Promise<string> {
    if (await this.hashOf(at).then((h) => h === file.sha256, () => false)) return this.remember(at);
    await mkdir(this.cacheDir, { recursive: true });
    const tmp = `${at}.${randomBytes(6).toString('hex')}.part`;
    const fh = await open(tmp, 'wx');
    const hash = createHash('sha256');
    let written = 0;
    try {
      for (let idx = 0; written < file.size; idx++) {
        const chunk = await readChunk(this.db, file.sha256, 'content', idx);
        if (!chunk) throw new FileContentError(`chunk ${idx} of file content ${file.sha256} is missing from the database (${written} of ${file.size} bytes read)`);
        hash.update(chunk);
        await fh.write(chunk);
        written += chunk.length;
      }
      await fh.sync();
    } catch (err) {
      await fh.close();
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    await fh.close();
    const digest = hash.digest('hex');
    if (written !== file.size || digest !== file.sha256) {
      await unlink(tmp).catch(() => undefined);
      throw new FileContentError(`the file content ${file.sha256} read from the database is damaged: ${written} bytes hashing to ${digest}`);
    }
    await rename(tmp, at);
    return this.remember(at);
  }

  private async remember(at: string): Promise<string> {
    const info = await stat(at);
    this.verified.set(at, { size: info.size, mtimeMs: info.mtimeMs });
    return at;
  }

  private async hashOf(at: string): Promise<string> {
    const hash = createHash('sha256');
    const fh = await open(at, 'r');
    try {
      for await (const chunk of fh.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
    } finally {
      await fh.close();
    }
    return hash.digest('hex');
  }
}
