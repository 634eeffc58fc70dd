// Runs claimed jobs on printer sessions and turns what the sessions report (pause, resume, progress, the outcome)
// into job state changes through the jobs service's one transition path.
import path from 'node:path';
import type { Clock } from '../clock.js';
import { isoTime } from '../clock.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logger.js';
import type { SlicedStart } from '../printers/printer-link.js';
import type { JobHandle } from '../printers/session-job-control.js';
import type { JobFailureCode, JobOutcome, JobSnapshot } from '../printers/printer-state.js';
import type { SessionRegistry } from '../printers/session-registry.js';
import type { DurableWriter } from '../storage/durable-writer.js';
import type { JobRecord } from './job-record.js';
import type { JobTrigger } from './job-state.js';
import { activeJobs, jobPrintOptions, jobStatuses, updateJobProgress } from './jobs.repository.js';
import { FINAL_STATUSES } from './job-state.js';
import type { JobsService } from './jobs.service.js';
import { PendingWrites } from './pending-writes.js';

/** How often at most a running job's counters are written to its row (the API reads live counters anyway). */
export const PROGRESS_WRITE_INTERVAL_MS = 5_000;
/** job.progress goes to the live stream when progress crossed a 10 % step, or at least this often while printing. */
export const PROGRESS_EVENT_STEP_PCT = 10;
export const PROGRESS_EVENT_INTERVAL_MS = 60_000;

export interface JobRunnerDeps {
  jobs: JobsService;
  sessions: SessionRegistry;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  /**
   * Where the stored file of a job lives on this box's disk; rejects with JobFileError when the job can never print
   * from it (the content is missing or damaged).
   */
  filePath(fileId: string): Promise<string>;
  /** A sliced 3MF's plate and filaments (what a Bambu start sends); null for G-code. Absent: none is read. */
  slicedOf?(fileId: string): Promise<SlicedStart | null>;
  /** Whether the printer prints its own copy of a file (a network printer): its job outlives our restart. */
  keepsPrinting(printerId: string): Promise<boolean>;
  /** Whether this node drives the printer: jobs on other nodes' printers are theirs to settle. Absent: every printer. */
  ownsPrinter?(printerId: string): Promise<boolean>;
  /** Live-only job.progress with the job as the API shows it (never stored nor sent to webhooks). */
  publishProgress(job: JobRecord): void;
  /** A job ended on this printer (the scheduler looks again; the printer may need its bed cleared). */
  onJobEnded(printerId: string, outcome: JobOutcome): Promise<unknown>;
  /** Charges the filament each job really used (the materials feature's MaterialMeter); none: nothing is charged. */
  meter?: JobMeter;
  /**
   * Every state change of a running job is written through it: in order, and held in memory (never dropped) while the
   * disk is full.
   */
  durable: DurableWriter;
  /** Counts the starts each printer refuses (after a few in a row it is held); absent: refusals are not counted. */
  refusals?: StartRefusals;
  /**
   * Takes the job's end picture (the cameras feature) before its end is written, so the end event carries it; bounded
   * in time by the caller and never failing. Absent: no pictures.
   */
  endPicture?(jobId: string, printerId: string, status: JobOutcome['status']): Promise<void>;
}

/** What the runner tells of refused starts (printers/start-refusals.ts keeps the count in the printer's row). */
export interface StartRefusals {
  /** Counts a refused start: `held` when the printer takes no job now; `detail` is the words a job held by it shows. */
  refused(printerId: string, message: string): Promise<{ held: boolean; attempts: number; detail: string }>;
  /** The job is back in the queue: a hold is announced (dashboards, scheduler), a lone refusal is tried again later. */
  requeued(printerId: string, held: boolean): void;
  /** A start went through: the printer's earlier refusals no longer count. */
  accepted(printerId: string): Promise<void>;
}

/** A job's file cannot be read back whole and intact: the claimed job fails with `code` instead of going back to the queue. */
export class JobFileError extends Error {
  constructor(
    readonly code: JobFailureCode,
    message: string,
  ) {
    super(message);
    this.name = 'JobFileError';
  }
}

/** What the runner tells the filament meter about a job's life. */
export interface JobMeter {
  begin(jobId: string, printerId: string): void;
  /** Follows a job again after our restart, counting what was charged before it. */
  adopt(jobId: string, printerId: string): Promise<void>;
  progress(jobId: string, snap: JobSnapshot): Promise<void>;
  /** Before the job's final state is written: its event then carries the grams and the cost. */
  finish(jobId: string, snap: JobSnapshot): Promise<void>;
  interrupted(jobId: string, printerId: string | null, printingSeconds: number): Promise<void>;
}

/** How long after a start a network printer may take to answer before its interrupted job is given up. */
export const ADOPT_WAIT_MS = 10 * 60_000;

/**
 * The name a network printer stores a job's upload under: our job id and the start of the file's SHA-256 (stored files
 * are named by their hash), so the print found running after a restart is recognised as this job and this file.
 */
export function remoteNameFor(jobId: string, filePath: string): string {
  return `${jobId}-${path.basename(filePath).replace(/\.gcode$/, '').slice(0, 16)}.gcode`;
}

const outcomeTrigger = (o: JobOutcome): JobTrigger =>
  o.status === 'completed' ? { type: 'complete' } : o.status === 'cancelled' ? { type: 'cancel' } : { type: 'fail', error: o.error };

export class JobRunner {
  private readonly running = new Map<string, JobHandle>();
  /** Jobs on network printers found running at start, waiting for their printers to answer. */
  private readonly adoptable: Array<Awaited<ReturnType<typeof activeJobs>>[number]> = [];
  private stopped = false;
  private readonly lastWrite = new Map<string, number>();
  private readonly lastEvent = new Map<string, { step: number; at: number }>();
  /** Progress rows waiting for this turn's transaction. */
  private readonly progressRows = new Map<string, { progress: number; elapsed: number; at: string }>();
  private progressQueued = false;
  private readonly unsubscribe: Array<() => void> = [];
  /** Every outcome and progress write started and not yet finished (tests and shutdown wait on it). */
  private readonly writes = new PendingWrites();

  constructor(private readonly d: JobRunnerDeps) {
    this.unsubscribe.push(
      d.bus.on('job.paused', (p) => this.follow(p.job_id, { type: 'pause' })),
      d.bus.on('job.resumed', (p) => this.follow(p.job_id, { type: 'resume' })),
      d.bus.on('job.progress', (p) => this.progress(p.job_id)),
    );
  }

  /**
   * A job that was printing on a streamed link when the process died cannot be resumed safely (the firmware lost its
   * stream): it is failed with `host_restart`. A job on a printer that prints its own copy goes on there: it is kept
   * for adoptInterrupted(). Queued jobs stay queued. Call once at start, before sessions connect.
   */
  async failInterrupted(): Promise<number> {
    const stale: Awaited<ReturnType<typeof activeJobs>> = [];
    for (const row of await activeJobs(this.d.jobs.db)) {
      // Another node's printer keeps printing under that node: not ours to call cut off.
      if (row.printer_id !== null && this.d.ownsPrinter && !(await this.d.ownsPrinter(row.printer_id))) continue;
      if (row.printer_id !== null && (await this.d.keepsPrinting(row.printer_id))) this.adoptable.push(row);
      else stale.push(row);
    }
    for (const row of stale) await this.failCutOff(row, { code: 'host_restart', message: 'the server stopped while the job was printing' });
    return stale.length;
  }

  /**
   * A job whose printing was cut off where nobody follows it any more (this server stopped, or the node driving it was
   * lost): its filament is settled from what was last stored, and it fails with `error` at its last stored counters.
   */
  async failCutOff(row: Awaited<ReturnType<typeof activeJobs>>[number], error: { code: string; message: string }): Promise<void> {
    await this.d.meter
      ?.interrupted(row.id, row.printer_id, row.elapsed_time)
      .catch((err: Error) => this.d.logger.error('could not settle the filament of an interrupted job', { job_id: row.id, error: err }));
    await this.d.jobs.applyTrigger(row.id, { type: 'fail', error }, { quietIfFinal: true, counters: { progress: row.progress, elapsedSeconds: row.elapsed_time } });
  }

  /**
   * Follows again, once their printers answer, the jobs failInterrupted() kept: each printer is asked whether it still
   * prints the upload of that job (by its name, which carries the job id and the file's hash). A job the printer no
   * longer runs, or whose printer stays unreachable for `waitMs`, fails with `link_lost`. Runs in the background.
   */
  adoptInterrupted(waitMs = ADOPT_WAIT_MS, pollMs = 500): Promise<void> {
    const rows = this.adoptable.splice(0);
    return Promise.all(rows.map((row) => this.adopt(row, waitMs, pollMs))).then(() => undefined);
  }

  /**
   * Follows jobs another node was running on network printers this node just took over (that node was lost), the way
   * a restart follows its own: found running on the printer by name, else failed with link_lost.
   */
  followTakenOver(rows: Array<Awaited<ReturnType<typeof activeJobs>>[number]>, waitMs = ADOPT_WAIT_MS, pollMs = 500): Promise<void> {
    return Promise.all(rows.map((row) => this.adopt(row, waitMs, pollMs))).then(() => undefined);
  }

  private async adopt(row: Awaited<ReturnType<typeof activeJobs>>[number], waitMs: number, pollMs: number): Promise<void> {
    const printerId = row.printer_id!;
    const deadline = this.d.clock.now() + waitMs;
    let handle: JobHandle | null = null;
    let why = `the printer did not answer within ${Math.round(waitMs / 1000)} s after the server restarted`;
    try {
      const filePath = await this.d.filePath(row.file_id);
      for (;;) {
        const link = this.d.sessions.get(printerId);
        const status = link?.currentStatus;
        if (link?.adoptJob && status !== undefined && status !== 'offline' && status !== 'connecting') {
          const startedAt = row.started_at ? Date.parse(row.started_at) : this.d.clock.now();
          const sliced = (await this.d.slicedOf?.(row.file_id)) ?? null;
          handle = await link.adoptJob({ jobId: row.id, filePath, remoteName: remoteNameFor(row.id, filePath), startedAt, ...(sliced ? { sliced } : {}) });
          if (!handle) why = 'after the server restarted, the printer was no longer printing this job';
          break;
        }
        if (this.stopped || this.d.clock.now() >= deadline) break;
        await new Promise((r) => setTimeout(r, pollMs).unref());
      }
    } catch (err) {
      why = `could not follow the job again after the restart: ${(err as Error).message}`;
    }
    if (this.stopped) return;
    if (!handle) {
      await this.d.meter?.interrupted(row.id, printerId, row.elapsed_time).catch(() => undefined);
      await this.d.jobs.applyTrigger(row.id, { type: 'fail', error: { code: 'link_lost', message: why } }, {
        quietIfFinal: true,
        counters: { progress: row.progress, elapsedSeconds: row.elapsed_time },
      });
      return;
    }
    this.d.logger.info('job followed again on its printer after the restart', { job_id: row.id, printer_id: printerId });
    this.running.set(row.id, handle);
    await this.d.meter?.adopt(row.id, printerId);
    const adopted = handle;
    void adopted.finished.then((outcome) => this.ended(row.id, printerId, adopted, outcome));
  }

  /**
   * Claims the job for the printer and starts streaming it. Returns false when the claim or the start did not happen
   * (the job is queued again if the printer refused it before a line was sent).
   */
  async start(jobId: string, printerId: string, fileId: string): Promise<boolean> {
    const session = this.d.sessions.get(printerId);
    // A printer whose last job's end is not stored yet (the disk is full) is not free in our records.
    if (!session || session.currentStatus !== 'idle' || this.d.sessions.heldJob(printerId)) return false;
    try {
      await this.d.jobs.applyTrigger(jobId, { type: 'start', printerId });
    } catch (err) {
      this.d.logger.info('job claim lost', { job_id: jobId, printer_id: printerId, reason: (err as Error).message });
      return false;
    }
    let handle: JobHandle;
    try {
      const filePath = await this.d.filePath(fileId);
      const sliced = (await this.d.slicedOf?.(fileId)) ?? null;
      const printOptions = await jobPrintOptions(this.d.jobs.db, jobId);
      handle = await session.startJob({
        jobId,
        filePath,
        remoteName: remoteNameFor(jobId, filePath),
        ...(sliced ? { sliced } : {}),
        ...(printOptions ? { printOptions } : {}),
      });
    } catch (err) {
      if (err instanceof JobFileError) {
        // Queued again it would fail the same way on every printer: it ends here, saying why.
        this.d.logger.error('the file of a job cannot be read; the job fails', { job_id: jobId, printer_id: printerId, reason: err.message });
        const outcome: JobOutcome = { status: 'failed', error: { code: err.code, message: err.message } };
        await this.d.durable.write(`fail job ${jobId}`, () => this.d.jobs.applyTrigger(jobId, outcomeTrigger(outcome), { quietIfFinal: true }));
        // The printer is still free: the scheduler looks again.
        await this.d.onJobEnded(printerId, outcome);
        return false;
      }
      const message = (err as Error).message;
      // Busy (a print started on the printer's own screen) or offline says nothing of whether it can print our jobs:
      // the job goes back without counting against the printer.
      // (Read by its code: an error from a worker thread's session arrives as a plain copy, not an AppError.)
      const code = (err as { code?: unknown } | null)?.code;
      const passing = code === 'printer_busy' || code === 'printer_offline';
      const count = passing ? { held: false, attempts: 0, detail: message } : await this.countRefusal(printerId, message);
      this.d.logger.warn('printer refused a job start; the job goes back to the queue', {
        job_id: jobId,
        printer_id: printerId,
        reason: message,
        refused_in_a_row: count.attempts,
        held: count.held,
      });
      // Held: the job says at once why it waits (the scheduler's next pass may find it another printer).
      const waiting = count.held ? { reason: 'printer_refused', detail: count.detail } : undefined;
      await this.d.durable.write(`requeue job ${jobId}`, () =>
        this.d.jobs.applyTrigger(jobId, { type: 'requeue', ...(waiting ? { waiting } : {}) }, { quietIfFinal: true }),
      );
      this.d.refusals?.requeued(printerId, count.held);
      return false;
    }
    if (this.d.refusals) this.track(this.d.refusals.accepted(printerId), jobId);
    this.running.set(jobId, handle);
    this.d.meter?.begin(jobId, printerId);
    // Cancelled on another node while the start was on its way (its signal found nothing running here yet).
    this.stopJobsEndedElsewhere([jobId]).catch((err: Error) => this.d.logger.error('could not stop a job ended by another node', { job_id: jobId, error: err }));
    void handle.finished.then((outcome) => this.ended(jobId, printerId, handle, outcome));
    return true;
  }

  /** Counts a refused start; a count that cannot be stored holds nothing (the start is tried again as before). */
  private async countRefusal(printerId: string, message: string): Promise<{ held: boolean; attempts: number; detail: string }> {
    if (!this.d.refusals) return { held: false, attempts: 0, detail: message };
    try {
      return await this.d.refusals.refused(printerId, message);
    } catch (err) {
      this.d.logger.error('could not count a refused start', { printer_id: printerId, error: err as Error });
      return { held: false, attempts: 0, detail: message };
    }
  }

  /**
   * A job this node runs that another node ended in the rows (cancelled through its API, or failed node_lost while this
   * node was cut off) stops on its printer too: the print must not go on for a job that is over.
   */
  async stopJobsEndedElsewhere(ids: readonly string[] = [...this.running.keys()]): Promise<void> {
    for (const row of await jobStatuses(this.d.jobs.db, ids)) {
      if (!FINAL_STATUSES.includes(row.status) || row.printer_id === null) continue;
      const session = this.d.sessions.get(row.printer_id);
      if (session?.snapshot().job?.id !== row.id) continue;
      this.d.logger.info('job ended by another node: stopping it on its printer', { job_id: row.id, printer_id: row.printer_id, status: row.status });
      await session.cancel();
    }
  }

  /** Waits until every session report seen so far has been written. */
  async settled(): Promise<void> {
    await this.writes.settled();
  }

  stop(): void {
    this.stopped = true;
    for (const off of this.unsubscribe.splice(0)) off();
  }

  private ended(jobId: string, printerId: string, handle: JobHandle, outcome: JobOutcome): void {
    this.running.delete(jobId);
    this.lastWrite.delete(jobId);
    this.lastEvent.delete(jobId);
    const snap = handle.snapshot();
    const elapsedMs = (snap as { elapsed_ms?: number }).elapsed_ms ?? this.d.clock.now() - snap.started_at;
    const counters = { progress: outcome.status === 'completed' ? 100 : snap.progress, elapsedSeconds: elapsedMs / 1000 };
    // Until the end is stored the printer shows this job, so nothing reads it as free while the write is held.
    this.d.sessions.holdJob(printerId, { id: jobId, progress: counters.progress });
    const charged = this.d.meter?.finish(jobId, snap) ?? Promise.resolve();
    const pictured = this.d.endPicture?.(jobId, printerId, outcome.status) ?? Promise.resolve();
    this.track(
      Promise.all([charged, pictured])
        .then(() => this.d.durable.write(`the end of job ${jobId}`, () => this.d.jobs.applyTrigger(jobId, outcomeTrigger(outcome), { quietIfFinal: true, counters })))
        .finally(() => this.d.sessions.releaseJob(printerId, jobId))
        .then(() => this.d.onJobEnded(printerId, outcome)),
      jobId,
    );
  }

  /** A session paused or resumed on its own (or for a printer action): the job follows. */
  private follow(jobId: string, trigger: JobTrigger): void {
    if (!this.running.has(jobId)) return;
    this.track(this.d.durable.write(`${trigger.type} job ${jobId}`, () => this.d.jobs.applyTrigger(jobId, trigger, { quietIfFinal: true })), jobId);
  }

  private progress(jobId: string): void {
    const handle = this.running.get(jobId);
    if (!handle) return;
    const now = this.d.clock.now();
    if (this.d.meter) this.track(this.d.meter.progress(jobId, handle.snapshot()), jobId);
    this.maybePublishProgress(jobId, handle, now);
    if (now - (this.lastWrite.get(jobId) ?? 0) < PROGRESS_WRITE_INTERVAL_MS) return;
    this.lastWrite.set(jobId, now);
    const snap = handle.snapshot();
    const elapsedMs = (snap as { elapsed_ms?: number }).elapsed_ms ?? now - snap.started_at;
    this.writeProgress(jobId, { progress: snap.progress, elapsed: elapsedMs / 1000, at: isoTime(now) });
  }

  /**
   * Counters of every job reported in this turn of the loop go to the database in one transaction: with sessions in
   * worker threads a turn brings one message with the reports of many printers, and one commit serves them all. The
   * batch goes through the durable writer; it reads the rows when it runs, so a batch held by a full disk writes the
   * newest counters of every job once space returns, and a row leaves the map only once stored.
   */
  private writeProgress(jobId: string, row: { progress: number; elapsed: number; at: string }): void {
    this.progressRows.set(jobId, row);
    if (this.progressQueued) return;
    this.progressQueued = true;
    const write = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.progressQueued = false;
      return this.d.durable.write('job progress', () => this.storeProgressRows(), 'progress');
    });
    this.track(write, jobId);
  }

  private async storeProgressRows(): Promise<void> {
    const rows = [...this.progressRows];
    if (rows.length === 0) return;
    await this.d.jobs.db.transaction().execute(async (trx) => {
      for (const [id, r] of rows) await updateJobProgress(trx, id, r.progress, r.elapsed, r.at);
    });
    for (const [id, r] of rows) if (this.progressRows.get(id) === r) this.progressRows.delete(id);
  }

  private maybePublishProgress(jobId: string, handle: JobHandle, now: number): void {
    const step = Math.floor(handle.snapshot().progress / PROGRESS_EVENT_STEP_PCT);
    const last = this.lastEvent.get(jobId);
    if (last && step === last.step && now - last.at < PROGRESS_EVENT_INTERVAL_MS) return;
    this.lastEvent.set(jobId, { step, at: now });
    this.track(
      this.d.jobs.get(jobId).then((job) => this.d.publishProgress(job)),
      jobId,
    );
  }

  private track(p: Promise<unknown>, jobId: string): void {
    const guarded = p.catch((err: Error) => this.d.logger.error('job state write failed', { job_id: jobId, error: err }));
    this.writes.track(guarded);
  }
}
