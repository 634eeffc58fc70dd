// Content-addressed storage on disk: <dataDir>/files/<aa>/<bb>/<sha256>.gcode, written to a temp file while hashing, then renamed into place.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isStorageFull, storageFull } from '../storage/storage-full.js';

export const FILES_DIR = 'files';
/** Uploads in progress: never part of a backup. */
export const TMP_DIR = 'tmp';

export interface StoredTemp {
  tempPath: string;
  sha256: string;
  size: number;
}

export class FileStore {
  readonly root: string;
  /** The tail of the exclusive sections run so far (see exclusive()). */
  private sections: Promise<unknown> = Promise.resolve();

  constructor(dataDir: string) {
    this.root = path.join(dataDir, FILES_DIR);
  }

  /** Two levels of prefix directories keep any one directory small for thousands of files. */
  contentPath(sha256: string): string {
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), `${sha256}.gcode`);
  }

  thumbnailPath(sha256: string, contentType: 'image/png' | 'image/jpeg'): string {
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
  async commit(temp: StoredTemp): Promise<string> {
    const dest = this.contentPath(temp.sha256);
    await mkdir(path.dirname(dest), { recursive: true });
    await rename(temp.tempPath, dest);
    return dest;
  }

  /**
   * Runs `fn` after every exclusive section started before it: the last step of an upload (row and content in place)
   * and a pruning removal never interleave, so a file re-uploaded while being pruned ends up stored, not half removed.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.sections.then(fn, fn);
    this.sections = run.catch(() => undefined);
    return run;
  }

  /** Removes a file's content and thumbnail; what is already gone is not an error. */
  async remove(sha256: string, thumbnailType: 'image/png' | 'image/jpeg' | null): Promise<void> {
    const gone = (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    };
    await unlink(this.contentPath(sha256)).catch(gone);
    if (thumbnailType) await unlink(this.thumbnailPath(sha256, thumbnailType)).catch(gone);
  }

  async discard(temp: StoredTemp): Promise<void> {
    await unlink(temp.tempPath).catch(() => undefined);
  }

  async hasContent(sha256: string): Promise<boolean> {
    return access(this.contentPath(sha256)).then(
      () => true,
      () => false,
    );
  }

  /** Written beside the content under a temp name first, so a reader never sees half an image. */
  async writeThumbnail(sha256: string, contentType: 'image/png' | 'image/jpeg', data: Buffer): Promise<void> {
    const dest = this.thumbnailPath(sha256, contentType);
    await mkdir(path.dirname(dest), { recursive: true });
    const tmp = `${dest}.${randomBytes(4).toString('hex')}.part`;
    await writeFile(tmp, data);
    await rename(tmp, dest);
  }

  async readThumbnail(sha256: string, contentType: 'image/png' | 'image/jpeg'): Promise<Buffer | null> {
    try {
      return await readFile(this.thumbnailPath(sha256, contentType));
    } catch {
      return null;
    }
  }
}
