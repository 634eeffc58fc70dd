// Content-addressed storage in a directory: <dataDir>/files (or a shared --files-dir)/<aa>/<bb>/<sha256>.gcode, written
// to a temp file while hashing, then renamed into place.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isStorageFull, storageFull } from '../storage/storage-full.js';
import { ExclusiveSections, FileContentError, type ContentStore, type ContentStoreKind, type StoredTemp, type ThumbnailType } from './content-store.js';

export const FILES_DIR = 'files';
/** Uploads in progress: never part of a backup. */
export const TMP_DIR = 'tmp';

export type { StoredTemp } from './content-store.js';

export class FileStore implements ContentStore {
  readonly root: string;
  readonly kind: ContentStoreKind;
  readonly local: boolean;
  private readonly sections = new ExclusiveSections();

  /** The data directory's own store, or with `sharedDir` (--files-dir) a directory every node mounts. */
  constructor(dataDir: string, sharedDir?: string) {
    this.root = sharedDir ? path.resolve(sharedDir) : path.join(dataDir, FILES_DIR);
    this.kind = sharedDir ? 'shared-dir' : 'data-dir';
    this.local = !sharedDir;
  }

  /** Two levels of prefix directories keep any one directory small for thousands of files. */
  contentPath(sha256: string): string {
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), `${sha256}.gcode`);
  }

  thumbnailPath(sha256: string, contentType: ThumbnailType): string {
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), `${sha256}.thumb.${contentType === 'image/png' ? 'png' : 'jpg'}`);
  }

  /**
   * Streams `source` to a temp file, hashing on the way; `observe` sees every chunk first and may throw to stop the
   * transfer (size limit, invalid content). On any failure the temp file is removed and the error is rethrown; a disk
   * that fills up meanwhile is 507 storage_full.
   */
  async writeTemp(source: Readable, observe: (chunk: Buffer) => void): Promise<StoredTemp> {
    const dir = path.join(this.root, TMP_DIR);
    await mkdir(dir, { recursive: true });
    const tempPath = path.join(dir, `${Date.now()}-${randomBytes(8).toString('hex')}.part`);
    const hash = createHash('sha256');
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
        try {
          observe(chunk);
        } catch (err) {
          done(err as Error);
          return;
        }
        size += chunk.length;
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(source, tap, createWriteStream(tempPath, { flags: 'wx' }));
    } catch (err) {
      await unlink(tempPath).catch(() => undefined);
      throw isStorageFull(err) ? storageFull('the file', 'the disk filled up during the upload; the partial file was removed') : err;
    }
    return { tempPath, sha256: hash.digest('hex'), size };
  }

  /** Moves a finished temp file to its content address (replacing a same-content file is harmless). */
  async commit(temp: StoredTemp): Promise<void> {
    const dest = this.contentPath(temp.sha256);
    await mkdir(path.dirname(dest), { recursive: true });
    await rename(temp.tempPath, dest);
  }

  /**
   * Copies a local file to its content address, checking on the way that it is `size` bytes hashing to `sha256`
   * (a farm's files moving to another store); the file itself is left as it is.
   */
  async storeFile(filePath: string, sha256: string, size: number): Promise<void> {
    const temp = await this.writeTemp(createReadStream(filePath), () => undefined);
    if (temp.sha256 !== sha256 || temp.size !== size) {
      await this.discard(temp);
      throw new FileContentError(`${filePath} is ${temp.size} bytes hashing to ${temp.sha256}, not the stored file ${sha256} of ${size} bytes`);
    }
    await this.commit(temp);
  }

  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.sections.run(fn);
  }

  /** Removes a file's content and thumbnail; what is already gone is not an error. */
  async remove(sha256: string, thumbnailType: ThumbnailType | null): Promise<void> {
    const gone = (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    };
    await unlink(this.contentPath(sha256)).catch(gone);
    if (thumbnailType) await unlink(this.thumbnailPath(sha256, thumbnailType)).catch(gone);
  }

  async discard(temp: StoredTemp): Promise<void> {
    await unlink(temp.tempPath).catch(() => undefined);
  }

  async hasContent(sha256: string, size: number): Promise<boolean> {
    return stat(this.contentPath(sha256)).then(
      (info) => info.size === size,
      () => false,
    );
  }

  /** The stored file itself; a missing or truncated one is refused before a printer is sent a line of it. */
  async localCopy(file: { sha256: string; size: number }): Promise<string> {
    const at = this.contentPath(file.sha256);
    const info = await stat(at).catch((err: NodeJS.ErrnoException) => {
      throw new FileContentError(`the content of ${file.sha256} is missing from ${this.root} (${err.code ?? err.message})`);
    });
    if (info.size !== file.size) throw new FileContentError(`the content of ${file.sha256} in ${this.root} is ${info.size} bytes, not ${file.size}: damaged`);
    return at;
  }

  /** Written beside the content under a temp name first, so a reader never sees half an image. */
  async writeThumbnail(sha256: string, contentType: ThumbnailType, data: Buffer): Promise<void> {
    const dest = this.thumbnailPath(sha256, contentType);
    await mkdir(path.dirname(dest), { recursive: true });
    const tmp = `${dest}.${randomBytes(4).toString('hex')}.part`;
    await writeFile(tmp, data);
    await rename(tmp, dest);
  }

  async readThumbnail(sha256: string, contentType: ThumbnailType): Promise<Buffer | null> {
    try {
      return await readFile(this.thumbnailPath(sha256, contentType));
    } catch {
      return null;
    }
  }
}
