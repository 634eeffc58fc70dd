// Turns a slicer's upload into the farm's own: the file streamed into the store as /v1 uploads are, then a queued job
// (Upload and print) or only the stored file (Upload), with the group, printer, copies and priority its folder named.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { AppError } from '../errors.js';
import { announcedBytes } from '../files/announced-bytes.js';
import { fileDeletedError, type FilesService } from '../files/files.service.js';
import type { FileRecord } from '../files/files.schemas.js';
import { parseMultipartJobUpload, type MultipartFields } from '../files/multipart-upload.js';
import { slicerFileName } from './slicer-form.js';
import { toJobFileInfo } from '../jobs/job-files.js';
import type { JobsService, NewJobFields } from '../jobs/jobs.service.js';
import type { JobRecord } from '../jobs/job-record.js';
import { allPrinters } from '../printers/printers.repository.js';
import type { Db } from '../storage/db.js';
import { plateProblem } from './slicer-plate.js';
import { fileFormatOf, isTargetProblem, parseSlicerTarget, type SlicerTarget, type TargetProblem } from './slicer-target.js';

export type SlicerApi = 'octoprint' | 'prusalink' | 'moonraker';

export interface SlicerUploadsDeps {
  db: Db;
  files: FilesService;
  jobs: Pick<JobsService, 'create'>;
}

/** What an upload became: the stored file, and the queued jobs when the slicer asked to print. */
export interface SlicerUploadResult {
  file: FileRecord;
  target: SlicerTarget;
  jobs: JobRecord[];
  jobIds: string[];
}

/** How one upload arrives: the folder and name it was sent to, whether to print, who sent it and through which API. */
export interface UploadRequest {
  api: SlicerApi;
  keyId: string | null;
  /** The folder part (form field `path`, a storage, a Moonraker root); '' for the top. */
  folder: string;
  fileName: string;
  print: boolean;
  /** OrcaSlicer's `plateindex` with a .gcode.3mf (Moonraker host): the 1-based plate to print; absent otherwise. */
  plateIndex?: string;
}

export const problemError = (p: TargetProblem): AppError =>
  new AppError(p.status, p.status === 415 ? 'file_invalid' : 'invalid_request', p.message);

export class SlicerUploads {
  constructor(private readonly d: SlicerUploadsDeps) {}

  /** The largest file the store takes (the same limit as /v1 uploads). */
  get maxFileBytes(): number {
    return this.d.files.limits.maxFileBytes;
  }

  /** The folder and name checked against the farm: 400/415 for what no job could use, before any byte is stored. */
  async target(folder: string, fileName: string): Promise<{ target: SlicerTarget; fields: NewJobFields }> {
    const target = parseSlicerTarget(folder, fileName);
    if (isTargetProblem(target)) throw problemError(target);
    return { target, fields: await this.jobFields(target) };
  }

  /** The groups that have printers, in name order (the PrusaLink storage list and Moonraker roots offer them). */
  async groups(): Promise<string[]> {
    const names = (await allPrinters(this.d.db)).map((p) => p.group_name).filter((g): g is string => g !== null && g !== '');
    return [...new Set(names)].sort((a, b) => a.localeCompare(b));
  }

  /** The printers, by name, for the storage list. */
  async printers(): Promise<{ id: string; name: string }[]> {
    return (await allPrinters(this.d.db)).map((p) => ({ id: p.id, name: p.name })).sort((a, b) => a.name.localeCompare(b.name));
  }

  private async jobFields(target: SlicerTarget): Promise<NewJobFields> {
    // The stored file may carry an earlier upload's name (one copy per content): the name comes from this upload.
    const fields: NewJobFields = { base_name: target.jobName };
    if (target.copies !== undefined) fields.copies = target.copies;
    if (target.priority !== undefined) fields.priority = target.priority;
    if (target.group !== undefined || target.printer !== undefined) {
      const printers = await allPrinters(this.d.db);
      if (target.group !== undefined) {
        const wanted = target.group.toLowerCase();
        const group = printers.find((p) => p.group_name !== null && p.group_name.toLowerCase() === wanted)?.group_name;
        if (!group) throw problemError({ status: 400, message: `no printer of this farm is in group "${target.group}"; groups: ${listOrNone(await this.groups())}` });
        fields.group = group;
      }
      if (target.printer !== undefined) {
        const ref = target.printer;
        const byId = printers.find((p) => p.id === ref);
        const byName = printers.filter((p) => p.name.toLowerCase() === ref.toLowerCase());
        if (!byId && byName.length > 1) throw problemError({ status: 400, message: `${byName.length} printers are named "${ref}": use the printer's id (prn_…) in the folder` });
        const printer = byId ?? byName[0];
        if (!printer) {
          const names = printers.map((p) => p.name).sort((a, b) => a.localeCompare(b));
          throw problemError({ status: 400, message: `no printer of this farm is named "${ref}"; printers: ${listOrNone(names)}` });
        }
        fields.printer_id = printer.id;
      }
    }
    return fields;
  }

  /** 507 storage_full before a byte is read when a body of `bytes` cannot fit above the reserve kept for the database. */
  admitAnnounced(bytes: number): Promise<void> {
    return this.d.files.admitAnnounced(bytes);
  }

  /** A multipart upload (OctoPrint's and Moonraker's form, PrusaLink's older POST): `read` takes folder, name and print from the form. */
  async fromMultipart(
    req: IncomingMessage,
    read: (fields: MultipartFields, fileName: string) => UploadRequest,
  ): Promise<SlicerUploadResult> {
    // The whole form bounds the file from above: refused at once only when even the form cannot fit.
    await this.admitAnnounced(announcedBytes(req.headers));
    let admitted: { request: UploadRequest; target: SlicerTarget; fields: NewJobFields } | null = null;
    const ingest = (source: Readable, name: string, admit?: () => Promise<void>) => {
      // A model or a 3MF is refused by its name before a byte is stored (its content would only say "not G-code").
      const kind = fileFormatOf(slicerFileName(name).replace(/\\/g, '/').split('/').pop() ?? '');
      if (isTargetProblem(kind)) {
        source.resume();
        return Promise.reject(problemError(kind));
      }
      return this.d.files.ingestStream(source, name, undefined, 'file', admit);
    };
    const upload = await parseMultipartJobUpload(req, this.d.files.limits, ingest, {
      // The form's fields may follow the file: the target is checked once all of it is read, before the file is kept.
      paramCharset: 'latin1',
      admit: async (formFields, fileName) => {
        const request = read(formFields, fileName);
        const { target, fields } = await this.target(request.folder, request.fileName);
        admitted = { request, target, fields };
      },
    });
    const done = admitted as { request: UploadRequest; target: SlicerTarget; fields: NewJobFields } | null;
    if (!upload.file || !done) throw problemError({ status: 400, message: 'the form has no file part named "file"' });
    return this.finish(upload.file, done.request, done.target, done.fields);
  }

  /** A raw body (PrusaLink's PUT): the target is known from the URL before the first byte is read. */
  async fromBody(source: Readable, request: UploadRequest): Promise<SlicerUploadResult> {
    const { target, fields } = await this.target(request.folder, request.fileName);
    const file = await this.d.files.ingestStream(source, target.fileName, undefined, 'file');
    return this.finish(file, request, target, fields);
  }

  /**
   * Cura's select command with print=true on a file uploaded earlier without print: the stored file is queued with
   * the folder its Location carries. 404 for an unknown file, 410 when retention removed it.
   */
  async queueStored(fileId: string, request: UploadRequest): Promise<SlicerUploadResult> {
    const file = await this.d.files.getFile(fileId);
    if (file.deleted_at !== null) throw fileDeletedError(file);
    const { target, fields } = await this.target(request.folder, request.fileName);
    return this.finish(file, { ...request, print: true }, target, fields);
  }

  private async finish(file: FileRecord, request: UploadRequest, target: SlicerTarget, fields: NewJobFields): Promise<SlicerUploadResult> {
    if (!request.print) return { file, target, jobs: [], jobIds: [] };
    const plate = plateProblem(file, request.plateIndex);
    if (plate) throw problemError(plate);
    const created = await this.d.jobs.create(fields, { ...toJobFileInfo(file), original_name: target.fileName }, null, request.keyId, request.api);
    return { file, target, jobs: [created.first], jobIds: created.jobIds };
  }
}

const listOrNone = (names: string[]): string => (names.length === 0 ? 'none yet' : names.slice(0, 20).join(', ') + (names.length > 20 ? ', …' : ''));
