// The main thread's face of a link hosted in a worker: a PrinterLink whose calls are messages, whose reads come from the
// state the worker last sent, and whose job handles settle when the worker says the job ended (or the worker died).
import { AppError, type ErrorCode } from '../../errors.js';
import type { EventBus } from '../../events/event-bus.js';
import type { ProtocolStats } from '../../protocol/protocol-types.js';
import type { JobStartRequest, PrinterLink } from '../printer-link.js';
import type { CommandReply, JobOutcome, JobSnapshot, PrinterSnapshot, PrinterStatus } from '../printer-state.js';
import type { ConsoleEntry } from '../session-context.js';
import type { JobHandle } from '../session-job-control.js';
import type { LinkCall, LinkCalls, LinkMethod, LinkState, WireError } from './link-messages.js';

/** What a remote link needs of the pool that hosts it. */
export interface LinkHost {
  call(printerId: string, call: LinkCall): Promise<unknown>;
  console(printerId: string, on: boolean): void;
  dispose(printerId: string, link: RemoteLink): void;
}

interface FollowedJob {
  resolve(outcome: JobOutcome): void;
  last: JobSnapshot | null;
  final: JobSnapshot | null;
}

/** The error a call rejected with in the worker, rebuilt so the API answers exactly as it does in one thread. */
export function fromWire(e: WireError): Error {
  return e.app ? new AppError(e.app.status, e.app.code as ErrorCode, e.message, e.app.details) : new Error(e.message);
}

export class RemoteLink implements PrinterLink {
  private state: LinkState;
  private readonly jobs = new Map<string, FollowedJob>();
  private readonly consoleListeners = new Set<(e: ConsoleEntry) => void>();
  /** Whether the link should be up: a restarted worker connects the links that were wanted. */
  wanted = false;

  constructor(
    readonly printerId: string,
    readonly url: string,
    private readonly host: LinkHost,
    private readonly bus: EventBus,
    /** The organization's cool-on-pause, asked by the session in the worker at each pause. */
    readonly coolOnPause: () => Promise<boolean>,
  ) {
    this.state = {
      printerId,
      snapshot: { printer_id: printerId, url, status: 'offline', firmware: null, temperatures: {}, ready: true, job: null, error: null },
      stats: null,
      linkInfo: { connectedAt: null, baudRate: null },
    };
  }

  get currentStatus(): PrinterStatus {
    return this.state.snapshot.status;
  }

  snapshot(): PrinterSnapshot {
    return structuredClone(this.state.snapshot);
  }

  stats(): ProtocolStats | null {
    return this.state.stats ? { ...this.state.stats } : null;
  }

  linkInfo(): { connectedAt: number | null; baudRate: number | null } {
    return { ...this.state.linkInfo };
  }

  onConsole(listener: (e: ConsoleEntry) => void): () => void {
    this.consoleListeners.add(listener);
    if (this.consoleListeners.size === 1) this.host.console(this.printerId, true);
    return () => {
      if (this.consoleListeners.delete(listener) && this.consoleListeners.size === 0) this.host.console(this.printerId, false);
    };
  }

  connect(): Promise<void> {
    this.wanted = true;
    return this.run('connect');
  }

  reconnect(): Promise<void> {
    this.wanted = true;
    return this.run('reconnect');
  }

  disconnect(): Promise<void> {
    this.wanted = false;
    return this.run('disconnect');
  }

  dispose(): void {
    this.host.dispose(this.printerId, this);
  }

  async startJob(req: JobStartRequest): Promise<JobHandle> {
    // Followed before the call: the job may end in the same tick that answers the start.
    let resolve!: (o: JobOutcome) => void;
    const finished = new Promise<JobOutcome>((r) => (resolve = r));
    const followed: FollowedJob = { resolve, last: null, final: null };
    this.jobs.set(req.jobId, followed);
    try {
      await this.run('startJob', {
        jobId: req.jobId,
        filePath: req.filePath,
        ...(req.remoteName ? { remoteName: req.remoteName } : {}),
        ...(req.sliced ? { sliced: req.sliced } : {}),
        ...(req.printOptions ? { printOptions: req.printOptions } : {}),
      });
    } catch (err) {
      this.jobs.delete(req.jobId);
      throw err;
    }
    return {
      id: req.jobId,
      finished,
      snapshot: () => structuredClone(followed.final ?? (this.state.snapshot.job?.id === req.jobId ? this.state.snapshot.job : followed.last)!),
    };
  }

  markReady(): void {
    // The mirror follows at once (the bed flag is ours to set); the worker's session is told by message.
    this.state.snapshot.ready = true;
    this.run('markReady').catch(() => undefined);
  }

  pause(): Promise<void> {
    return this.run('pause');
  }

  resume(): Promise<void> {
    return this.run('resume');
  }

  cancel(): Promise<'cancelled' | 'pending'> {
    return this.run('cancel');
  }

  home(): Promise<CommandReply> {
    return this.run('home');
  }

  cooldown(): Promise<void> {
    return this.run('cooldown');
  }

  /** Refused at once without a link, as in one thread; otherwise sent ahead of anything the caller does next. */
  emergencyStop(): void {
    const status = this.currentStatus;
    if (status === 'offline' || status === 'connecting') {
      throw new AppError(409, 'printer_offline', `printer ${this.printerId} is ${status}`, 'wait until it is connected and idle');
    }
    this.run('emergencyStop').catch(() => undefined);
  }

  sendCommand(text: string): Promise<CommandReply> {
    return this.run('sendCommand', text);
  }

  /** One turn of the worker's loop after the calls sent so far, and its state: what they did at once is seen here. */
  turn(): Promise<void> {
    return this.run('turn');
  }

  // ------------------------------------------------------------------ fed by the pool

  /** The worker's view of the link; running jobs keep their last counters for after they end. */
  applyState(s: LinkState): void {
    this.state = s;
    const job = s.snapshot.job;
    if (job) {
      const followed = this.jobs.get(job.id);
      if (followed) followed.last = job;
    }
  }

  jobEnded(jobId: string, outcome: JobOutcome, snapshot: JobSnapshot): void {
    const followed = this.jobs.get(jobId);
    if (!followed) return;
    this.jobs.delete(jobId);
    followed.final = snapshot;
    followed.resolve(outcome);
  }

  consoleEntry(entry: ConsoleEntry): void {
    for (const l of this.consoleListeners) l(entry);
  }

  /**
   * The worker hosting the link died: its running job fails with `host_error` and the printer is offline for that
   * reason, announced on the bus in the order a lost link announces it (job first, then the printer).
   */
  hostLost(message: string): void {
    const error = { code: 'host_error', message };
    // As a lost link says it: a printer that was still connecting was never announced online.
    const wasOnline = this.currentStatus !== 'offline' && this.currentStatus !== 'connecting';
    const ended = [...this.jobs.entries()];
    this.jobs.clear();
    const printed = ended.some(([, j]) => (j.last?.lines_acked ?? 0) > 0);
    this.state = {
      ...this.state,
      snapshot: {
        ...this.state.snapshot,
        status: 'offline',
        job: null,
        error,
        offline_reason: 'host_error',
        ready: this.state.snapshot.ready && !printed,
      },
      linkInfo: { ...this.state.linkInfo, connectedAt: null },
    };
    for (const [jobId, j] of ended) {
      j.final = j.last;
      j.resolve({ status: 'failed', error: { code: 'host_error', message } });
      this.bus.emit('job.failed', { printer_id: this.printerId, job_id: jobId, error });
    }
    if (wasOnline) this.bus.emit('printer.offline', { printer_id: this.printerId, reason: message });
  }

  private run<M extends LinkMethod>(method: M, ...args: LinkCalls[M]['args']): Promise<LinkCalls[M]['result']> {
    return this.host.call(this.printerId, { method, args } as LinkCall) as Promise<LinkCalls[M]['result']>;
  }
}
