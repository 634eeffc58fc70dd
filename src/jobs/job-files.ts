// What the jobs feature needs from the files feature (a stored, validated file from a URL, a multipart upload or the store),
// and the adapter that provides it from the files service.
import type { IncomingMessage } from 'node:http';
import { announcedBytes } from '../files/announced-bytes.js';
import { FileContentError } from '../files/content-store.js';
import type { FileRecord } from '../files/files.schemas.js';
import { fileDeletedError, type FilesService } from '../files/files.service.js';
import { parseMultipartJobUpload } from '../files/multipart-upload.js';
import type { SlicedStart } from '../printers/printer-link.js';
import type { FormFields } from './job-form.js';
import { JobFileError } from './job-runner.js';
import type { JobFileInfo } from './jobs.service.js';

export interface JobFiles {
  /** Downloads, validates and stores the file at `url` (http/https) before the job is created. */
  fromUrl(url: string): Promise<JobFileInfo>;
  /** A file already stored (POST /v1/jobs `file_id`): 404 when unknown, 410 file_deleted once pruned. */
  fromStored(fileId: string): Promise<JobFileInfo>;
  /** Streams a multipart job create: the `file` part to the store, the other parts as text fields. */
  fromMultipart(req: IncomingMessage): Promise<{ fields: FormFields; file: JobFileInfo | null }>;
  /**
   * Where a stored file lives on this box's disk (the printer session streams it from there; content kept in the
   * database is copied to a verified local cache first); 410 file_deleted once pruned, JobFileError `file_unreadable`
   * when the content is missing or damaged.
   */
  pathOf(fileId: string): Promise<string>;
  /** A sliced 3MF's first plate (the one a job prints) with its filament per slot; null for G-code files. */
  slicedOf(fileId: string): Promise<SlicedStart | null>;
}

export const toJobFileInfo = (f: FileRecord): JobFileInfo => ({
  id: f.id,
  original_name: f.original_name,
  estimated_duration_s: f.estimated_duration,
  filament_grams: f.filament_used_g,
  filament_type: f.filament_type,
  nozzle_diameter: f.nozzle_diameter,
  has_thumbnail: f.thumbnail !== null,
  format: f.format,
});

export function jobFilesFrom(files: FilesService): JobFiles {
  return {
    fromUrl: async (url) => toJobFileInfo(await files.ingestUrl(url)),
    fromStored: async (fileId) => toJobFileInfo(await files.useStored(fileId)),
    async fromMultipart(req) {
      // The whole body bounds the file from above: refused before the first byte only when even the body cannot fit,
      // else the file is checked again as it streams.
      await files.admitAnnounced(announcedBytes(req.headers));
      const upload = await parseMultipartJobUpload(req, files.limits, (source, name) => files.ingestStream(source, name));
      return { fields: upload.fields, file: upload.file ? toJobFileInfo(upload.file) : null };
    },
    async pathOf(fileId) {
      const file = await files.getFile(fileId);
      if (file.deleted_at !== null) throw fileDeletedError(file);
      try {
        return await files.localCopy(file);
      } catch (err) {
        throw err instanceof FileContentError ? new JobFileError(err.code, err.message) : err;
      }
    },
    async slicedOf(fileId) {
      const file = await files.getFile(fileId);
      const plate = file.format === '3mf' ? file.plates[0] : undefined;
      return plate ? { plate: plate.index, gcode: plate.gcode, filaments: plate.filaments.map((f) => ({ ...f })) } : null;
    },
  };
}
