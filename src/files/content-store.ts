// The file-content store seam: where G-code content and thumbnails live (the data directory, a shared directory, or
// chunks in the database); uploads, job starts, thumbnails and pruning all go through one of these.
import type { Readable } from 'node:stream';
import type { Db } from '../storage/db.js';

export type ThumbnailType = 'image/png' | 'image/jpeg';

/** data-dir: <dataDir>/files (one box); shared-dir: --files-dir seen by every node; database: file_chunks rows. */
export type ContentStoreKind = 'data-dir' | 'shared-dir' | 'database';

/** An upload streamed to a local temp file and hashed, not yet at its content address. */
export interface StoredTemp {
  tempPath: string;
  sha256: string;
  size: number;
}

export interface ContentStore {
  readonly kind: ContentStoreKind;
  /** Whether stored content takes room on this box's data disk (the storage reserve is only checked then). */
  readonly local: boolean;
  /**
   * Streams `source` to a temp file, hashing on the way; `observe` sees every chunk first and may throw to stop the
   * transfer. On any failure the temp file is removed and the error rethrown.
   */
  writeTemp(source: Readable, observe: (chunk: Buffer) => void): Promise<StoredTemp>;
  /** Moves a finished temp file to its content address (replacing a same-content copy is harmless). */
  commit(temp: StoredTemp): Promise<void>;
  discard(temp: StoredTemp): Promise<void>;
  /** Whether the whole content of this hash is stored. */
  hasContent(sha256: string, size: number): Promise<boolean>;
  /** Removes a file's content and thumbnail (and any local copy); what is already gone is not an error. */
  remove(sha256: string, thumbnailType: ThumbnailType | null): Promise<void>;
  writeThumbnail(sha256: string, contentType: ThumbnailType, data: Buffer): Promise<void>;
  /** null when it is missing or unreadable. */
  readThumbnail(sha256: string, contentType: ThumbnailType): Promise<Buffer | null>;
  /**
   * A path on this box holding exactly this content (printer sessions, the prepared G-code cache and the extrusion
   * index read paths). Rejects with FileContentError when the content is missing or damaged.
   */
  localCopy(file: { sha256: string; size: number }): Promise<string>;
  /**
   * For content kept in the database: removes it inside the transaction that marks the file pruned, so no node sees the
   * file as stored while its content is going. remove() still follows, after the commit (local copies).
   */
  removeWithin?(trx: Db, sha256: string): Promise<void>;
  /** Removes this node's local copies of content no longer stored (another node pruned it); run by each pruning pass. */
  sweep?(): Promise<number>;
  /**
   * Runs `fn` after every exclusive section started before it on this node: the last step of an upload and a pruning
   * removal never interleave, so a file re-uploaded while being pruned ends up stored, not half removed.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}

/** A stored file's content cannot be read back whole and intact: a job of it fails with `file_unreadable`. */
export class FileContentError extends Error {
  readonly code = 'file_unreadable';
  constructor(message: string) {
    super(message);
    this.name = 'FileContentError';
  }
}

/** Serialises async sections in start order (see ContentStore.exclusive). */
export class ExclusiveSections {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }
}
