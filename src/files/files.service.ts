// The files service: ingests G-code from a stream or a URL (validated, metadata read, stored once by hash) and serves records and thumbnails.
import { isUniqueViolation } from '../storage/engines/unique-violation.js';
import type { Readable } from 'node:stream';
import { isoTime, type Clock } from '../clock.js';
import { AppError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import type { StorageStatus } from '../storage/storage-status.js';
import { DEFAULT_FILE_LIMITS, type FileLimits } from './file-limits.js';
import { rowFromInspection, toFileListItem, toFileRecord } from './file-record.js';
import type { ContentStore, StoredTemp } from './content-store.js';
import { FileStore } from './file-store.js';
import { fileUrlHostsOf, findFileById, findFileBySha256, insertFile, markFileUsed, selectFiles, type FileListRow, type FileRow } from './files.repository.js';
import type { FileListItem, FileRecord } from './files.schemas.js';
import { runListQuery, type ListPage, type ListQuery } from '../storage/list-page.js';
import { BGCODE_MAGIC, inspectBgcode, startsAsBgcode } from './bgcode-inspection.js';
import { inspect3mf, type SlicedProject } from './threemf-inspection.js';
import { startsAsZip } from '../archive/zip-reader.js';
import { GcodeInspector, type FileInvalid, type Inspection } from './gcode-inspector.js';
import { openDownload, tooLarge } from './url-download.js';
import { systemResolver, type HostResolver } from './url-guard.js';

export interface FilesServiceDeps {
  db: Db;
  dataDir: string;
  clock: Clock;
  logger: Logger;
  /** Resolves file_url host names (the system resolver by default); every answer is checked before a socket uses it. */
  resolveHost?: HostResolver;
  /** Refuses an upload (507) when the disk is below the reserve kept for the database, before and while it streams. */
  storage?: Pick<StorageStatus, 'admitUpload'>;
  /**
   * Where content lives, shared with the file pruner (its exclusive sections order uploads and removals); the data
   * directory's by default.
   */
  store?: ContentStore;
}

export interface Thumbnail {
  file: FileRecord;
  contentType: 'image/png' | 'image/jpeg';
  data: Buffer;
}

export interface FilesService {
  readonly limits: FileLimits;
  /** Streams a file to the store; 422 file_invalid when it is not G-code, 413 over `limits.maxFileBytes`. */
  /**
   * `admit`, when given, runs once the content is read and valid but before it is kept: when it throws, nothing is
   * stored (a slicer upload whose folder names no printer of the farm).
   */
  ingestStream(source: Readable, originalName: string, limits?: FileLimits, field?: string, admit?: () => Promise<void>): Promise<FileRecord>;
  /**
   * Before a request body is read: 507 storage_full when its announced length (Content-Length; 0 when unknown) would
   * leave less than the reserve kept for the database. Content kept off this box takes none of its room: no check.
   */
  admitAnnounced(bytes: number): Promise<void>;
  /**
   * Downloads and ingests; 400 naming the failure (bad URL, DNS, refused, remote status, redirects, timeouts), 413,
   * 422 file_invalid, 422 file_url_forbidden when a hop's host or address may not be reached.
   */
  ingestUrl(url: string, limits?: FileLimits): Promise<FileRecord>;
  /** 404 resource_not_found for an unknown id. */
  getFile(id: string): Promise<FileRecord>;
  /**
   * A stored file a job is about to be queued from (POST /v1/jobs `file_id`): 404 when unknown, 410 file_deleted once
   * pruned. Counts as a use, written only while the file is still stored: pruning then leaves it alone for its grace
   * period and, once the job exists, for as long as the job is queued.
   */
  useStored(id: string): Promise<FileRecord>;
  /** GET /v1/files: one page of stored files (pruned ones too, with deleted_at) and how many jobs each fed. */
  listFiles(q: ListQuery): Promise<ListPage<Partial<FileListItem>>>;
  /**
   * A path on this box holding the stored G-code (what a printer session streams), read from the store when it lives
   * elsewhere; rejects with FileContentError when the content is missing or damaged.
   */
  localCopy(file: Pick<FileRecord, 'sha256' | 'size'>): Promise<string>;
  /** 404 when the file is unknown or has no thumbnail; 410 file_deleted when it was pruned. */
  getThumbnail(id: string): Promise<Thumbnail>;
}

/** A pruned file asked for its content or thumbnail. */
export const fileDeletedError = (file: Pick<FileRecord, 'id' | 'deleted_at'>): AppError =>
  new AppError(
    410,
    'file_deleted',
    `file ${file.id} was removed from the store at ${file.deleted_at ?? 'an earlier pruning'} (the organization's file retention policy)`,
    'upload the same G-code again to store it again',
  );

export const fileInvalidError = (invalid: FileInvalid): AppError => new AppError(422, 'file_invalid', invalid.message, invalid.reason);

const MAX_NAME_CHARS = 255;

/** The last path segment, without control characters, bounded; a name is for people, never a path. */
export function cleanFileName(name: string, fallback = 'upload.gcode'): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, MAX_NAME_CHARS);
  return clean || fallback;
}

export function createFilesService(deps: FilesServiceDeps, defaults: FileLimits = DEFAULT_FILE_LIMITS): FilesService {
  const store = deps.store ?? new FileStore(deps.dataDir);

  async function ingestStream(source: Readable, originalName: string, limits = defaults, field = 'file', admit?: () => Promise<void>): Promise<FileRecord> {
    const inspector = new GcodeInspector({ maxThumbnailBase64Bytes: limits.maxThumbnailBase64Bytes });
    let seen = 0;
    // The first bytes decide: Prusa's binary container is read from its blocks once stored, text line by line now.
    let head = Buffer.alloc(0);
    let format: FileRow['format'] | null = null;
    // A ZIP is read as a sliced 3MF only under a .3mf name; any other ZIP is refused by the text inspector.
    const named3mf = /\.3mf$/i.test(originalName.trim());
    // Before the first byte is stored: a disk below the database's reserve takes no upload (content kept on another
    // disk or server takes none of this box's room).
    const roomLeft = await (store.local ? deps.storage : undefined)?.admitUpload().catch((err: unknown) => {
      source.resume();
      throw err;
    });
    const temp = await store.writeTemp(source, (chunk) => {
      seen += chunk.length;
      if (seen > limits.maxFileBytes) throw tooLarge(field, limits.maxFileBytes);
      roomLeft?.(seen);
      if (format === null) {
        head = Buffer.concat([head, chunk]);
        if (head.length < BGCODE_MAGIC.length) return;
        format = startsAsBgcode(head) ? 'bgcode' : named3mf && startsAsZip(head) ? '3mf' : 'gcode';
        chunk = head;
      }
      if (format !== 'gcode') return;
      inspector.push(chunk);
      // Stop at the first proof of invalid content instead of storing the rest of a large binary.
      if (inspector.failure) throw fileInvalidError(inspector.failure);
    });
    if (format === null && head.length > 0) inspector.push(head);
    let inspection: Inspection & { sliced?: SlicedProject };
    if (format === 'bgcode' || format === '3mf') {
      try {
        inspection =
          format === 'bgcode'
            ? await inspectBgcode(temp.tempPath, temp.size)
            : await inspect3mf(temp.tempPath, temp.size, { maxGcodeBytes: limits.maxFileBytes, maxThumbnailBytes: limits.maxThumbnailBase64Bytes });
      } catch (err) {
        await store.discard(temp);
        throw err;
      }
    } else {
      const outcome = inspector.end();
      if (!outcome.ok) {
        await store.discard(temp);
        throw fileInvalidError(outcome.invalid);
      }
      inspection = outcome.inspection;
    }
    if (admit) {
      try {
        await admit();
      } catch (err) {
        await store.discard(temp);
        throw err;
      }
    }
    // Serialised with the pruner's removals: a file pruned while the same content arrives ends up stored.
    return store.exclusive(() => storeInspected(temp, inspection, format ?? 'gcode', originalName));
  }

  async function storeInspected(temp: StoredTemp, inspection: Inspection & { sliced?: SlicedProject }, format: FileRow['format'], originalName: string): Promise<FileRecord> {
    const nowIso = isoTime(deps.clock.now());
    const { thumbnail } = inspection;
    const existing = await findFileBySha256(deps.db, temp.sha256);
    if (existing) {
      // Same content again: one stored copy, and a use. The stored copy is trusted only if the use is written while
      // the file is still not pruned: a pruning pass on another node between the look and the write removes the
      // content with its mark, so then (as when the content went missing or was pruned) this upload stores it again.
      const stored = existing.deleted_at === null && (await store.hasContent(temp.sha256, temp.size));
      if (stored && (await markFileUsed(deps.db, existing.id, nowIso, true))) {
        await store.discard(temp);
      } else {
        await store.commit(temp);
        if (thumbnail) await store.writeThumbnail(temp.sha256, thumbnail.contentType, thumbnail.data);
        await markFileUsed(deps.db, existing.id, nowIso);
      }
      return toFileRecord({ ...existing, last_used_at: nowIso, deleted_at: null });
    }
    await store.commit(temp);
    if (thumbnail) await store.writeThumbnail(temp.sha256, thumbnail.contentType, thumbnail.data);
    const row = rowFromInspection({ id: newId('file'), sha256: temp.sha256, originalName: cleanFileName(originalName), createdAt: nowIso, format }, inspection);
    try {
      await insertFile(deps.db, row);
    } catch (err) {
      // Two uploads of the same content at once: the other one's row stands.
      if (!isUniqueViolation(err, 'files', 'sha256')) throw err;
      const winner = await findFileBySha256(deps.db, temp.sha256);
      if (!winner) throw err;
      return toFileRecord(winner);
    }
    deps.logger.info('file stored', { file: row.id, sha256: row.sha256, size: row.size, slicer: row.slicer ?? undefined });
    return toFileRecord(row);
  }

  async function ingestUrl(url: string, limits = defaults): Promise<FileRecord> {
    // Refused before connecting when the disk is below the reserve (checked again as the body streams).
    if (store.local) await deps.storage?.admitUpload();
    const access = { resolve: deps.resolveHost ?? systemResolver, allowedHosts: await fileUrlHostsOf(deps.db) };
    const download = await openDownload(url, limits, access);
    try {
      return await ingestStream(download.body, cleanFileName(download.name, 'download.gcode'), limits, 'file_url');
    } catch (err) {
      throw download.explain(err);
    } finally {
      download.close();
    }
  }

  async function getFile(id: string): Promise<FileRecord> {
    const row = await findFileById(deps.db, id);
    if (!row) throw notFound(`file ${id}`);
    return toFileRecord(row);
  }

  async function useStored(id: string): Promise<FileRecord> {
    const file = await getFile(id);
    const nowIso = isoTime(deps.clock.now());
    if (file.deleted_at !== null) throw fileDeletedError(file);
    // A pruning pass may have marked it between the read and this write: then it is gone, as the re-read says.
    if (!(await markFileUsed(deps.db, id, nowIso, true))) throw fileDeletedError(await getFile(id));
    return { ...file, last_used_at: nowIso };
  }

  async function getThumbnail(id: string): Promise<Thumbnail> {
    const file = await getFile(id);
    if (file.deleted_at !== null) throw fileDeletedError(file);
    if (!file.thumbnail) throw new AppError(404, 'resource_not_found', `file ${id} has no thumbnail`);
    const data = await store.readThumbnail(file.sha256, file.thumbnail.content_type);
    if (!data) throw new AppError(404, 'resource_not_found', `the thumbnail of file ${id} is missing from the file store (${store.kind})`);
    return { file, contentType: file.thumbnail.content_type, data };
  }

  return {
    limits: defaults,
    ingestStream,
    async admitAnnounced(bytes) {
      if (store.local && bytes > 0) await deps.storage?.admitUpload(bytes);
    },
    ingestUrl,
    getFile,
    useStored,
    listFiles: (q) => runListQuery(selectFiles(deps.db), q, (row: FileListRow) => toFileListItem(row)),
    localCopy: (file) => store.localCopy(file),
    getThumbnail,
  };
}
