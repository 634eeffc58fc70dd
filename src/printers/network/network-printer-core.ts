// The skeleton every network printer shares (Moonraker, OctoPrint, PrusaLink, …): the status, temperatures and
// firmware held between reports, the snapshot, console listeners, the job we follow and its one ending, the print we
// did not start, the offline reasons and the guards of every action. A kind extends it with only its protocol: how it
// connects and keeps its reports coming (push or polling), how it maps the printer's words (held-state.ts does the
// rest), how it uploads and starts, and how it reads progress and consumption (its NetworkJob).
import type { Clock } from '../../clock.js';
import { instantOf, systemClock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { EventBus } from '../../events/event-bus.js';
import type { ProtocolStats, Temperatures } from '../../protocol/protocol-types.js';
import type { ExtrusionIndexCache } from '../extrusion-index-cache.js';
import { cancelOrPending } from './pending-cancel.js';
import type { JobStartRequest, PrinterLink } from '../printer-link.js';
import {
  printerBusy,
  printerOffline,
  wrongState,
  type CommandReply,
  type JobOutcome,
  type OfflineReason,
  type PrinterSnapshot,
  type PrinterStatus,
} from '../printer-state.js';
import type { ConsoleEntry } from '../session-context.js';
import type { JobHandle } from '../session-job-control.js';
import { adoptionStep } from './adoption.js';
import { ConsoleHub, consoleLine } from './console-hub.js';
import { externalEnded, externalView, type ExternalEnd, type ExternalPrint } from './external-print.js';
import { heldView, statusEvent, type HeldError, type StatusEvent } from './held-state.js';
import type { NetworkJob } from './network-job.js';

/** What every kind is opened with; a kind's options add its protocol's. */
export interface NetworkPrinterCoreOptions {
  printerId: string;
  url: string;
  bus: EventBus;
  /** One per program: the extrusion index of each job's file, for filament at the reported position or share. */
  extrusionIndexes: ExtrusionIndexCache;
  /** Wall readings for timestamps (started_at, ended_at, connected since); every duration runs on its monotonic one. */
  clock?: Clock;
}

/** What a kind adds: its protocol. The reading side of PrinterLink and the bookkeeping are the core's. */
export type NetworkPrinterKind = Pick<
  PrinterLink,
  'connect' | 'reconnect' | 'disconnect' | 'startJob' | 'pause' | 'resume' | 'cancel' | 'home' | 'cooldown' | 'emergencyStop' | 'sendCommand'
> & { adoptJob: NonNullable<PrinterLink['adoptJob']> };

export abstract class NetworkPrinterCore<J extends NetworkJob, X extends ExternalPrint = ExternalPrint> implements PrinterLink, NetworkPrinterKind {
  readonly printerId: string;
  readonly url: string;
  protected readonly bus: EventBus;
  protected readonly clock: Clock;
  protected readonly indexes: ExtrusionIndexCache;
  protected status: PrinterStatus = 'offline';
  protected offlineReason: OfflineReason | null = null;
  protected error: HeldError | null = null;
  protected temperatures: Temperatures = {};
  /** False after a print until the operator marks the bed cleared. */
  protected ready = true;
  protected connectedAt: number | null = null;
  /** The job of ours the printer prints (an ended one is let go at its end). */
  protected job: J | null = null;
  /** A print we did not start, while it runs. */
  protected external: X | null = null;
  protected readonly console = new ConsoleHub();

  constructor(opts: NetworkPrinterCoreOptions) {
    this.printerId = opts.printerId;
    this.url = opts.url;
    this.bus = opts.bus;
    this.clock = opts.clock ?? systemClock;
    this.indexes = opts.extrusionIndexes;
  }

  // ---------------------------------------------------------------- what the kind tells

  /** The firmware identity the snapshot and the printer events show (null until identified). */
  protected abstract firmwareView(): PrinterSnapshot['firmware'];

  abstract connect(): Promise<void>;
  abstract reconnect(): Promise<void>;
  abstract disconnect(): Promise<void>;
  abstract startJob(req: JobStartRequest): Promise<JobHandle>;
  abstract adoptJob(req: JobStartRequest & { startedAt: number }): Promise<JobHandle | null>;
  abstract pause(): Promise<void>;
  abstract resume(): Promise<void>;
  abstract cancel(): Promise<'cancelled' | 'pending'>;
  abstract home(): Promise<CommandReply>;
  abstract cooldown(): Promise<void>;
  abstract emergencyStop(): void;
  abstract sendCommand(text: string): Promise<CommandReply>;

  // ---------------------------------------------------------------- PrinterLink: reading

  get currentStatus(): PrinterStatus {
    return this.status;
  }

  snapshot(): PrinterSnapshot {
    const fw = this.firmwareView();
    return {
      printer_id: this.printerId,
      url: this.url,
      status: this.status,
      firmware: fw ? { ...fw, capabilities: { ...fw.capabilities } } : null,
      temperatures: this.heldTemperatures(),
      ready: this.ready,
      job: this.job && !this.job.outcome ? this.job.snapshot() : null,
      error: this.error ? { ...this.error } : null,
      offline_reason: this.offlineReason,
      external_job: externalView(this.external),
    };
  }

  /** The printer prints its own copy: no line counters. */
  stats(): ProtocolStats | null {
    return null;
  }

  linkInfo(): { connectedAt: number | null; baudRate: number | null } {
    return { connectedAt: this.connectedAt, baudRate: null };
  }

  onConsole(listener: (e: ConsoleEntry) => void): () => void {
    return this.console.on(listener);
  }

  markReady(): void {
    this.ready = true;
  }

  protected heldTemperatures(): Temperatures {
    return { ...this.temperatures };
  }

  // ---------------------------------------------------------------- the held status

  /** The printer's state as read: held, and its change published (printer.online/offline/error). */
  protected show(status: PrinterStatus, reason: OfflineReason | null = null, error: HeldError | null = null): void {
    this.hold(status, reason, error, statusEvent(this.status, status));
  }

  /** Our link to the printer failed (not the printer's report): offline with the reason the owner must act on. */
  protected linkDown(reason: OfflineReason, message: string): void {
    this.hold('offline', reason, { code: reason, message }, statusEvent(this.status, 'offline', true));
  }

  /** disconnect(): offline with no reason; a print the printer runs goes on (adoptJob follows it again). */
  protected closed(): void {
    const was = this.status;
    this.hold('offline', null, null, null);
    if (was !== 'offline') this.bus.emit('printer.offline', { printer_id: this.printerId, reason: 'disconnected' });
  }

  private hold(status: PrinterStatus, reason: OfflineReason | null, error: HeldError | null, event: StatusEvent | null): void {
    const v = heldView(status, reason, error);
    this.status = v.status;
    this.offlineReason = v.offlineReason;
    this.error = v.error;
    if (status === 'offline') this.connectedAt = null;
    else if (status === 'idle' || status === 'printing' || status === 'paused') this.connectedAt ??= this.clock.now();
    const why = v.error?.message;
    const firmware = this.firmwareView()?.name;
    if (event === 'printer.online') this.bus.emit(event, { printer_id: this.printerId, firmware });
    else if (event === 'printer.error') this.bus.emit(event, { printer_id: this.printerId, reason: why, firmware });
    else if (event === 'printer.offline') this.bus.emit(event, { printer_id: this.printerId, reason: why });
  }

  // ---------------------------------------------------------------- guards

  protected requireIdle(action: string): void {
    if (this.status === 'idle') return;
    if (this.status === 'printing' || this.status === 'paused') throw printerBusy(this.printerId, this.status);
    if (this.status === 'error') throw wrongState(this.printerId, action, this.status);
    throw printerOffline(this.printerId, this.status);
  }

  /** A job may start: idle, and the bed cleared since the last print. */
  protected requireStartable(): void {
    this.requireIdle('start a job');
    this.requireBedCleared();
  }

  protected requireBedCleared(): void {
    if (!this.ready) throw new AppError(409, 'printer_busy', `printer ${this.printerId} is waiting for the bed to be cleared`);
  }

  /** A reconnect drops the link: never while a print runs. */
  protected refuseWhileBusy(): void {
    if (this.status === 'printing' || this.status === 'paused') throw printerBusy(this.printerId, this.status);
  }

  /** The heaters may be turned off: idle, paused or in error. */
  protected requireCoolable(): void {
    if (this.status !== 'idle' && this.status !== 'paused' && this.status !== 'error') {
      throw this.status === 'printing' ? printerBusy(this.printerId, this.status) : printerOffline(this.printerId, this.status);
    }
  }

  protected requireLink(): void {
    if (this.status === 'offline' || this.status === 'connecting') throw printerOffline(this.printerId, this.status);
  }

  /**
   * One console line: a blank or comment line is no command, M112 goes to emergencyStop() at once, anything else to
   * `run` while the printer is reachable.
   */
  protected async consoleCommand(text: string, stripComment: boolean, run: (command: string) => Promise<CommandReply>): Promise<CommandReply> {
    const line = consoleLine(text, stripComment);
    if (line.kind === 'none') return { ok: true, lines: [] };
    if (line.kind === 'estop') {
      this.emergencyStop();
      return { ok: true, lines: [] };
    }
    this.requireLink();
    return run(line.command);
  }

  // ---------------------------------------------------------------- the job we follow

  /** The job is over: its one ending and events; the bed needs clearing when anything was printed. */
  protected endJob(job: J, outcome: JobOutcome): boolean {
    if (!job.end(outcome)) return false;
    if (this.job === job) this.job = null;
    if (job.printedAny) this.ready = false;
    const base = { printer_id: this.printerId, job_id: job.id };
    if (outcome.status === 'completed') {
      this.bus.emit('job.progress', { ...base, progress: 100, lines_acked: 0, bytes_acked: job.bytesDone });
      this.bus.emit('job.completed', base);
    } else if (outcome.status === 'cancelled') this.bus.emit('job.cancelled', base);
    else this.bus.emit('job.failed', { ...base, error: outcome.error });
    return true;
  }

  /**
   * Hands our job to the printer: held as printing while `start` uploads and starts it (the printer may not show it
   * yet), job.started once it did; a refusal fails the job as `file_invalid` and throws `refused(err)`.
   */
  protected async launch(job: J, start: () => Promise<void>, refused: (err: unknown) => Error): Promise<JobHandle> {
    this.job = job;
    this.show('printing');
    try {
      await start();
    } catch (err) {
      if (this.job === job) this.job = null;
      if (this.status === 'printing') this.show('idle');
      job.end({ status: 'failed', error: { code: 'file_invalid', message: (err as Error).message } });
      throw refused(err);
    }
    this.bus.emit('job.started', { printer_id: this.printerId, job_id: job.id });
    return job.handle;
  }

  /** M112 was sent (`send`, its failure only logged by `failed`): our job, if any, has failed. */
  protected emergencyStopped(send: () => Promise<void>, failed: (err: Error) => void, message: string): void {
    this.emitConsole('sent', 'command', 'M112 (emergency stop)');
    send().catch(failed);
    const job = this.job;
    if (job) this.endJob(job, { status: 'failed', error: { code: 'emergency_stop', message } });
  }

  protected jobProgress(job: J, progress: number): void {
    this.bus.emit('job.progress', { printer_id: this.printerId, job_id: job.id, progress, lines_acked: 0, bytes_acked: job.bytesDone });
  }

  /** The printer showed our job paused or going again. */
  protected jobEvent(job: J, event: 'job.paused' | 'job.resumed'): void {
    this.bus.emit(event, { printer_id: this.printerId, job_id: job.id });
  }

  /** adoptJob's first step: the job followed already is handed back, another one means no. */
  protected adoption(jobId: string): { step: 'same'; handle: JobHandle } | { step: 'taken' | 'look' } {
    const job = this.job;
    const step = adoptionStep(job ? { id: job.id, ended: job.outcome !== null } : null, jobId);
    return step === 'same' ? { step, handle: job!.handle } : { step };
  }

  /**
   * adoptJob's last step: the printer's print is this job from now on (unless one of ours started meanwhile), and no
   * longer an external print (`ours` tells it).
   */
  protected adopted(job: J, ours: (ext: X) => boolean): JobHandle | null {
    if (this.job && !this.job.outcome) return null;
    if (this.external && ours(this.external)) this.external = null;
    this.job = job;
    return job.handle;
  }

  /**
   * Sends a cancel and answers `cancelled` when the printer ended the print quickly, else `pending` (the job shows
   * pending_action cancel) until `done`; a late failure withdraws the pending cancel (`late` says why).
   */
  protected async cancelJob(send: () => Promise<void>, late: (err: Error) => void): Promise<'cancelled' | 'pending'> {
    const job = this.job;
    if (job) job.cancelRequested = true;
    const withdraw = (err: Error): void => {
      if (job && !job.outcome) job.cancelRequested = false;
      late(err);
    };
    try {
      return await cancelOrPending(send(), withdraw);
    } catch (err) {
      if (job && !job.outcome) job.cancelRequested = false;
      throw err;
    }
  }

  // ---------------------------------------------------------------- the print we did not start

  /** It stopped: one printer.external_job_ended, and it is no longer shown. */
  protected endExternal(end: ExternalEnd): void {
    const ext = this.external;
    if (!ext) return;
    this.external = null;
    this.bus.emit('printer.external_job_ended', externalEnded(this.printerId, ext, end, instantOf(this.clock)));
  }

  protected emitConsole(direction: ConsoleEntry['direction'], kind: ConsoleEntry['kind'], text: string): void {
    this.console.emit(direction, kind, text);
  }
}
