// The jobs feature's rules: create (files, copies, batches), read with live counters, update while queued, cancel,
// and the one path every status change takes (applyTrigger → transition → conditional write + event, one transaction).
import { engineSqlOf } from '../storage/engines/engine-sql.js';
import { sql, type Kysely, type Updateable } from 'kysely';
import type { Clock } from '../clock.js';
import { isoTime } from '../clock.js';
import { AppError, notFound } from '../errors.js';
import { runListQuery, withCustomCondition, type ListQuery } from '../storage/list-page.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { PrintOptions } from '../printers/printer-link.js';
import type { JobSnapshot } from '../printers/printer-state.js';
import type { SessionRegistry } from '../printers/session-registry.js';
import type { Database, JobTable } from '../storage/schema.js';
import { toJobRecord, type JobRecord, type LiveJobCounters } from './job-record.js';
import { transition, type JobEventType, type JobTrigger } from './job-state.js';
import type { FileFormat } from '../printers/network-url.js';
import { claimJob, findJob, insertJobs, PRIORITY_RANK, selectJobs, updateJobIf, type JobReadRow, type JobRow } from './jobs.repository.js';
import type { JobPriority } from './jobs.schemas.js';

/** What a stored file tells the job about itself (from the files feature's slicer metadata). */
/** A file pinned to a printer that cannot read its format (binary G-code, a sliced 3MF): it could never print there. */
const formatForOtherPrinter = (printerId: string, format: FileFormat): AppError =>
  format === '3mf'
    ? new AppError(422, 'file_invalid', `printer ${printerId} cannot print a sliced 3MF (.gcode.3mf): only Bambu printers do`, 'pin a Bambu printer of the model it was sliced for, or upload plain G-code')
    : format === 'bgcode'
      ? new AppError(422, 'file_invalid', `printer ${printerId} cannot print binary G-code (.bgcode): only PrusaLink printers do`, 'pin a PrusaLink printer, or upload plain G-code')
      : new AppError(422, 'file_invalid', `printer ${printerId} cannot print plain G-code: it prints only sliced 3MF (.gcode.3mf)`, 'pin another printer, or upload the sliced 3MF');

/** A print started on the printer itself, as it ended there. */
export interface ExternalEnd {
  printerId: string;
  fileName: string;
  status: 'completed' | 'cancelled' | 'failed';
  error?: { code: string; message: string };
  /** Clock ms. */
  startedAt: number;
  endedAt: number;
  printSeconds: number;
}

export interface JobFileInfo {
  id: string;
  /** gcode, or bgcode (printed only by PrusaLink printers). */
  format: FileFormat;
  original_name: string | null;
  estimated_duration_s: number | null;
  filament_grams: number | null;
  filament_type: string | null;
  nozzle_diameter: number | null;
  /** Whether the file carries a thumbnail (the job record then links it). */
  has_thumbnail: boolean;
}

/** The public event log: writes the event (and its webhook deliveries) inside the caller's transaction. */
export type JobEventType2 = JobEventType | 'job.created';
export type PublishJobEvent = (trx: Kysely<Database>, type: JobEventType2, job: JobRecord) => Promise<void>;

export interface JobsServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  sessions: SessionRegistry;
  publish: PublishJobEvent;
  /** Whether a printer with this id exists (a body naming an unknown one is 400 invalid_printer). */
  /** The file formats a printer prints; null when there is no such printer. */
  printerFormats(id: string): Promise<readonly FileFormat[] | null>;
  /** Something changed that the scheduler should look at (a job was created, re-prioritised, cancelled...). */
  wakeScheduler(): void;
  /**
   * Resolves once what the sessions reported so far is written (the job runner's settled()): a cancel then finds the
   * job ended by the runner, with the filament it used and its cost in the row and in its job.cancelled event.
   */
  runnerSettled?(): Promise<void>;
  /** The running job another node's printer last published (several nodes): its progress reads the same everywhere. */
  remoteJob?(printerId: string): JobSnapshot | null;
}

/** The create fields once both JSON and multipart forms were normalised. */
export interface NewJobFields {
  name?: string;
  /** Without `name`: what the jobs are called instead of the file's stem (copies are numbered from it). */
  base_name?: string;
  priority?: JobPriority;
  printer_id?: string;
  group?: string;
  material?: { type: string; color?: string | null } | null;
  copies?: number;
  tags?: string[];
  print_options?: PrintOptions;
}

export interface JobPatch {
  name?: string;
  tags?: string[];
  priority?: JobPriority;
  printer_id?: string | null;
  group?: string | null;
  material?: { type: string; color?: string | null } | null;
}

const QUEUED_ONLY: readonly (keyof JobPatch)[] = ['priority', 'printer_id', 'group', 'material'];

export class JobsService {
  constructor(private readonly d: JobsServiceDeps) {}

  get db(): Kysely<Database> {
    return this.d.db;
  }

  /** Live counters of a job running on a session, fresher than its row. */
  live(row: JobRow): LiveJobCounters | null {
    if (!row.printer_id || (row.status !== 'printing' && row.status !== 'paused')) return null;
    const snap = this.d.sessions.get(row.printer_id)?.snapshot().job ?? this.d.remoteJob?.(row.printer_id);
    if (!snap || snap.id !== row.id) return null;
    const elapsedMs = (snap as { elapsed_ms?: number }).elapsed_ms ?? this.d.clock.now() - snap.started_at;
    return { progress: snap.progress, elapsedSeconds: elapsedMs / 1000, pendingAction: snap.pending_action ?? null };
  }

  record(row: JobReadRow): JobRecord {
    return toJobRecord(row, this.live(row));
  }

  async get(id: string): Promise<JobRecord> {
    const row = await findJob(this.d.db, id);
    if (!row) throw notFound(`job ${id}`);
    return this.record(row);
  }

  async list(q: ListQuery) {
    const tagged = withCustomCondition(q, 'tag', (v) => engineSqlOf(this.d.db).jsonArrayHas(sql.ref('tags'), String(v)));
    return runListQuery(selectJobs(this.d.db), tagged, (row: JobReadRow) => this.record(row));
  }

  /** `slicerApi`: the emulated host API a slicer uploaded through (src/slicer), recorded with origin `slicer`. */
  async create(
    fields: NewJobFields,
    file: JobFileInfo,
    fileUrl: string | null,
    keyId: string | null,
    slicerApi: JobRow['slicer_api'] = null,
  ): Promise<{ first: JobRecord; jobIds: string[] }> {
    if (fields.printer_id) {
      const formats = await this.d.printerFormats(fields.printer_id);
      if (formats === null) throw new AppError(400, 'invalid_printer', `printer ${fields.printer_id} does not exist`, 'list printers with GET /v1/printers');
      if (!formats.includes(file.format)) throw formatForOtherPrinter(fields.printer_id, file.format);
    }
    const copies = fields.copies ?? 1;
    const now = isoTime(this.d.clock.now());
    const priority = fields.priority ?? 'normal';
    const batchId = copies > 1 ? newId('bat') : null;
    const baseName = fields.name ?? fields.base_name ?? file.original_name?.replace(/\.(gcode\.3mf|gcode|gco|g)$/i, '') ?? 'print';
    const rows: JobRow[] = Array.from({ length: copies }, (_, i) => ({
      id: newId('job'),
      name: copies > 1 && !fields.name ? `${baseName} (${i + 1}/${copies})` : baseName,
      status: 'queued',
      origin: 'queue',
      slicer_api: slicerApi,
      material_used_basis: null,
      priority,
      priority_rank: PRIORITY_RANK[priority],
      printer_id: fields.printer_id ?? null,
      pinned: fields.printer_id ? 1 : 0,
      group_name: fields.group ?? null,
      file_id: file.id,
      file_url: fileUrl,
      file_name: file.original_name,
      estimated_duration: file.estimated_duration_s,
      // The request names the material; the slicer's filament type fills in when it does not.
      material_type: fields.material?.type ?? file.filament_type,
      material_color: fields.material?.color ?? null,
      material_estimated_usage: file.filament_grams,
      nozzle_diameter: file.nozzle_diameter,
      print_options: fields.print_options && Object.keys(fields.print_options).length > 0 ? JSON.stringify(fields.print_options) : null,
      tags: JSON.stringify(fields.tags ?? []),
      batch_id: batchId,
      progress: 0,
      elapsed_time: 0,
      waiting_reason: null,
      waiting_detail: null,
      error_code: null,
      error_message: null,
      created_by_key_id: keyId,
      created_at: now,
      started_at: null,
      completed_at: null,
      updated_at: now,
      material_used_g: null,
      material_used: null,
      cost: null,
    }));
    await this.d.db.transaction().execute(async (trx) => {
      await insertJobs(trx, rows);
      for (const row of rows) await this.d.publish(trx, 'job.created', toJobRecord({ ...row, file_has_thumbnail: file.has_thumbnail, file_deleted: false }));
    });
    this.d.wakeScheduler();
    return { first: toJobRecord({ ...rows[0]!, file_has_thumbnail: file.has_thumbnail, file_deleted: false }), jobIds: rows.map((r) => r.id) };
  }

  /** PATCH: name and tags any time; priority, printer, group and material only while queued. */
  /**
   * A print started on the printer itself just ended: it is written as a job of origin `external` (no stored file) in
   * its final state, from `startedAt` to `endedAt`. It never passes through `printing` here, so it can never collide
   * with a job of ours that starts on that printer meanwhile. Its end event goes out with publishExternalEnd(), once
   * its filament is charged. Returns its id.
   */
  async recordExternal(p: ExternalEnd): Promise<string> {
    const row: JobRow = {
      id: newId('job'),
      name: p.fileName.replace(/\.(b?gcode|gco|g)$/i, '') || p.fileName,
      status: p.status,
      origin: 'external',
      slicer_api: null,
      material_used_basis: null,
      priority: 'normal',
      priority_rank: PRIORITY_RANK.normal,
      printer_id: p.printerId,
      pinned: 1,
      group_name: null,
      file_id: '',
      file_url: null,
      file_name: p.fileName,
      estimated_duration: null,
      material_type: null,
      material_color: null,
      material_estimated_usage: null,
      nozzle_diameter: null,
      print_options: null,
      tags: '[]',
      batch_id: null,
      progress: p.status === 'completed' ? 100 : 0,
      elapsed_time: p.printSeconds,
      waiting_reason: null,
      waiting_detail: null,
      error_code: p.error?.code ?? null,
      error_message: p.error?.message ?? null,
      created_by_key_id: null,
      created_at: isoTime(p.startedAt),
      started_at: isoTime(p.startedAt),
      completed_at: isoTime(p.endedAt),
      updated_at: isoTime(this.d.clock.now()),
      material_used_g: null,
      material_used: null,
      cost: null,
    };
    await insertJobs(this.d.db, [row]);
    return row.id;
  }

  /** The end event of an external job (job.completed, job.failed or job.cancelled), with its grams and cost. */
  async publishExternalEnd(id: string): Promise<void> {
    await this.d.db.transaction().execute(async (trx) => {
      const row = await findJob(trx, id);
      if (!row || row.origin !== 'external') return;
      const type = row.status === 'completed' ? 'job.completed' : row.status === 'cancelled' ? 'job.cancelled' : 'job.failed';
      await this.d.publish(trx, type, toJobRecord(row));
    });
  }

  async update(id: string, patch: JobPatch, attempt = 0): Promise<JobRecord> {
    const row = await findJob(this.d.db, id);
    if (!row) throw notFound(`job ${id}`);
    const queuedOnly = QUEUED_ONLY.filter((k) => patch[k] !== undefined);
    if (row.status !== 'queued' && queuedOnly.length > 0) {
      throw new AppError(409, 'invalid_state', `cannot change ${queuedOnly.join(', ')} of job ${id}: it is ${row.status}`, 'only name and tags change after a job left the queue');
    }
    if (patch.printer_id) {
      const formats = await this.d.printerFormats(patch.printer_id);
      if (formats === null) throw new AppError(400, 'invalid_printer', `printer ${patch.printer_id} does not exist`);
      const file = await this.d.db.selectFrom('files').select('format').where('id', '=', row.file_id).executeTakeFirst();
      const format = file?.format ?? 'gcode';
      if (!formats.includes(format)) throw formatForOtherPrinter(patch.printer_id, format);
    }
    const set: Updateable<JobTable> = { updated_at: isoTime(this.d.clock.now()) };
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.tags !== undefined) set.tags = JSON.stringify(patch.tags);
    if (patch.priority !== undefined) {
      set.priority = patch.priority;
      set.priority_rank = PRIORITY_RANK[patch.priority];
    }
    if (patch.printer_id !== undefined) {
      set.printer_id = patch.printer_id;
      set.pinned = patch.printer_id ? 1 : 0;
    }
    if (patch.group !== undefined) set.group_name = patch.group;
    if (patch.material !== undefined) {
      set.material_type = patch.material?.type ?? null;
      set.material_color = patch.material?.color ?? null;
    }
    if (!(await updateJobIf(this.d.db, id, row.status, set))) {
      // The scheduler started it (or someone cancelled it) between the read and the write: answer from the new state.
      if (attempt >= 4) throw new AppError(409, 'invalid_state', `job ${id} changed too often while being updated; try again`);
      return this.update(id, patch, attempt + 1);
    }
    if (queuedOnly.length > 0) this.d.wakeScheduler();
    return this.get(id);
  }

  /**
   * DELETE /v1/jobs/:id: a queued job is cancelled at once; a running one gets the profile's cancel script first.
   * `pending`: the printer is in a wait its firmware cannot break; the job stays printing with `pending_action:
   * cancel` and is cancelled the moment the wait ends.
   */
  async cancel(id: string): Promise<{ job: JobRecord; pending: boolean }> {
    const row = await findJob(this.d.db, id);
    if (!row) throw notFound(`job ${id}`);
    transition(id, row.status, { type: 'cancel' });
    if ((row.status === 'printing' || row.status === 'paused') && row.printer_id) {
      const session = this.d.sessions.get(row.printer_id);
      const snap = session?.snapshot().job;
      if (session && snap?.id === id) {
        if ((await session.cancel()) === 'pending') return { job: this.record(row), pending: true };
        await this.d.runnerSettled?.();
      }
    }
    const after = await this.applyTrigger(id, { type: 'cancel' }, { quietIfFinal: true });
    this.d.wakeScheduler();
    return { job: this.record(after), pending: false };
  }

  /**
   * The one path of every status change: reads the job, asks the state machine, writes the new state only if the job
   * is still where it was read (else re-reads and asks again), and publishes the event in the same transaction.
   * `quietIfFinal`: a job that already ended is returned as it is (a late session outcome after an API cancel).
   */
  async applyTrigger(id: string, trigger: JobTrigger, opts: { quietIfFinal?: boolean; counters?: LiveJobCounters | null } = {}): Promise<JobReadRow> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await findJob(this.d.db, id);
      if (!row) throw notFound(`job ${id}`);
      if (opts.quietIfFinal && (row.status === 'completed' || row.status === 'failed' || row.status === 'cancelled')) return row;
      const t = transition(id, row.status, trigger);
      const nowIso = isoTime(this.d.clock.now());
      const live = opts.counters ?? this.live(row);
      const set: Updateable<JobTable> = { status: t.to, updated_at: nowIso };
      if (t.sets.started) {
        set.started_at = nowIso;
        set.waiting_reason = null;
        set.waiting_detail = null;
      }
      if (t.sets.printerId) set.printer_id = t.sets.printerId;
      if (t.sets.completed) set.completed_at = nowIso;
      if (t.sets.requeued) {
        set.started_at = null;
        set.progress = 0;
        set.elapsed_time = 0;
        if (!row.pinned) set.printer_id = null;
        if (trigger.type === 'requeue' && trigger.waiting) {
          set.waiting_reason = trigger.waiting.reason;
          set.waiting_detail = trigger.waiting.detail;
        }
      }
      if (t.sets.error) {
        set.error_code = t.sets.error.code;
        set.error_message = t.sets.error.message;
      }
      if (live && !t.sets.requeued) {
        set.progress = live.progress;
        set.elapsed_time = live.elapsedSeconds;
      }
      if (t.to === 'completed') set.progress = 100;
      const written = await this.d.db.transaction().execute(async (trx) => {
        const won = t.sets.started
          ? await claimJob(trx, id, t.sets.printerId!, nowIso)
          : await updateJobIf(trx, id, row.status, set);
        if (!won) return null;
        const after = (await findJob(trx, id))!;
        if (t.event) await this.d.publish(trx, t.event, toJobRecord(after, live));
        return after;
      });
      if (written) return written;
      // A lost claim is final: another printer took the job, or it was cancelled, or it is pinned elsewhere.
      if (t.sets.started) throw new AppError(409, 'invalid_state', `job ${id} could not be claimed for printer ${t.sets.printerId}`);
    }
    throw new AppError(409, 'invalid_state', `job ${id} changed too often while being updated; try again`);
  }

}
