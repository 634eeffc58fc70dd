// The OctoPrint driver: a PrinterLink over OctoPrint's REST API and push socket. OctoPrint holds the whole file and
// prints it itself; we upload, command, and follow its state (push `current`, or polling every 2 s without the socket).
// Over 400 lines on purpose: status, the tracked job, the external print and the waiters all change on the same
// updates, and one class keeps those transitions in one place (apply()).
import { stat } from 'node:fs/promises';
import { AppError, badRequest } from '../../errors.js';
import type { Clock, Instant } from '../../clock.js';
import { instantOf, systemClock } from '../../clock.js';
import type { EventBus } from '../../events/event-bus.js';
import type { ProtocolStats, Temperatures } from '../../protocol/protocol-types.js';
import type { ExtrusionIndexCache } from '../extrusion-index-cache.js';
import type { JobStartRequest, PrinterLink } from '../printer-link.js';
import {
  printerBusy,
  printerOffline,
  wrongState,
  type CommandReply,
  type ExternalJob,
  type JobOutcome,
  type OfflineReason,
  type PrinterSnapshot,
  type PrinterStatus,
} from '../printer-state.js';
import type { ConsoleEntry } from '../session-context.js';
import type { JobHandle } from '../session-job-control.js';
import { cancelOrPending } from '../pending-cancel.js';
import { OctoPrintHttpClient, OctoPrintHttpError } from './octoprint-http-client.js';
import { OctoPrintJob } from './octoprint-job.js';
import { OctoPrintPushSocket } from './octoprint-push-socket.js';
import {
  ReplyMatcher,
  endFromEvent,
  inferEnd,
  isOurUpload,
  mapJob,
  mapState,
  mapTemperatures,
  offlineReasonFor,
  type EndStatus,
  type MappedState,
  type OpActivity,
  type OpCurrent,
} from './octoprint-state-map.js';
import { parseOctoPrintUrl, type OctoPrintEndpoint } from './octoprint-url.js';

export interface OctoPrintPrinterOptions {
  printerId: string;
  /** `octoprint://host[:port]` or `octoprint+https://host[:port]?fingerprint=<sha256>`. */
  url: string;
  /** The API key in clear (decrypted by the caller); sent as X-Api-Key. */
  apiKey: string;
  bus: EventBus;
  extrusionIndexes: ExtrusionIndexCache;
  /** Wall readings for timestamps (started_at, ended_at, connected since); every duration runs on its monotonic one. */
  clock?: Clock;
  /** Polling interval while the push socket is down, and between reconnect attempts while offline (default 2000 ms). */
  pollMs?: number;
  /** Per HTTP request (default 5000 ms); retries of reads (default 2). */
  requestTimeoutMs?: number;
  retries?: number;
  /** How long pause/resume/cancel wait for OctoPrint to reach the state (default 120 s). */
  actionTimeoutMs?: number;
  /** How long a console command waits for its `ok` in the terminal log (default 10 s). */
  replyTimeoutMs?: number;
  /** After an upload with print=true, how long an idle printer is not yet read as "the print ended" (default 15 s). */
  startGraceMs?: number;
  /** Use the push socket (default true); false = polling only. */
  pushSocket?: boolean;
  /** One line per notable thing (socket down, garbage answers); default: none. */
  log?: (line: string) => void;
}

interface StateWaiter {
  until: (m: MappedState) => boolean;
  resolve(): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class OctoPrintPrinter implements PrinterLink {
  readonly printerId: string;
  readonly url: string;
  private readonly endpoint: OctoPrintEndpoint;
  private readonly http: OctoPrintHttpClient;
  private readonly socket: OctoPrintPushSocket | null;
  private readonly bus: EventBus;
  private readonly clock: Clock;
  private readonly indexes: ExtrusionIndexCache;
  private readonly pollMs: number;
  private readonly actionTimeoutMs: number;
  private readonly replyTimeoutMs: number;
  private readonly startGraceMs: number;
  private readonly log: (line: string) => void;

  private status: PrinterStatus = 'offline';
  private error: { code: string; message: string } | null = null;
  private offlineReason: OfflineReason | null = null;
  private firmwareName: string | null = null;
  private temperatures: Temperatures = {};
  private ready = true;
  private connectedAt: number | null = null;
  private job: OctoPrintJob | null = null;
  /** Monotonic reading of our last start: the grace before an idle printer means the print ended. */
  private jobStartMono = 0;
  /** startMono: the print's start on the monotonic clock, to measure it when OctoPrint stops reporting its printTime. */
  private external:
    | (ExternalJob & { lastActivity: OpActivity; printSeconds: number | null; lastFilepos: number | null; size: number | null; startMono: number })
    | null = null;
  /** An end event from the push socket, waiting for the state update that follows it. */
  private pendingEnd: { file: string; status: EndStatus; message?: string } | null = null;

  private stopped = true;
  private pollTimer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private readonly waiters = new Set<StateWaiter>();
  private readonly matchers = new Set<ReplyMatcher & { done(r: CommandReply): void }>();
  private readonly consoleListeners = new Set<(e: ConsoleEntry) => void>();

  constructor(opts: OctoPrintPrinterOptions) {
    this.printerId = opts.printerId;
    this.url = opts.url;
    this.endpoint = parseOctoPrintUrl(opts.url);
    this.bus = opts.bus;
    this.clock = opts.clock ?? systemClock;
    this.indexes = opts.extrusionIndexes;
    this.pollMs = opts.pollMs ?? 2000;
    this.actionTimeoutMs = opts.actionTimeoutMs ?? 120_000;
    this.replyTimeoutMs = opts.replyTimeoutMs ?? 10_000;
    this.startGraceMs = opts.startGraceMs ?? 15_000;
    this.log = opts.log ?? (() => undefined);
    this.http = new OctoPrintHttpClient({ endpoint: this.endpoint, apiKey: opts.apiKey, timeoutMs: opts.requestTimeoutMs, retries: opts.retries });
    this.socket =
      opts.pushSocket === false
        ? null
        : new OctoPrintPushSocket({
            endpoint: this.endpoint,
            login: () => this.passiveLogin(),
            onMessage: (type, payload) => this.pushMessage(type, payload),
            onUp: () => this.log(`${this.printerId}: push socket up`),
            onDown: (reason) => {
              this.log(`${this.printerId}: ${reason}; polling every ${this.pollMs} ms`);
              this.failMatchersSoon();
            },
          });
  }

  // ---------------------------------------------------------------- PrinterLink: reading

  get currentStatus(): PrinterStatus {
    return this.status;
  }

  /** True while live updates come from the push socket (false: polling). */
  get pushing(): boolean {
    return this.socket?.isUp ?? false;
  }

  snapshot(): PrinterSnapshot {
    const ext = this.external;
    return {
      printer_id: this.printerId,
      url: this.url,
      status: this.status,
      firmware: this.firmwareName ? { name: this.firmwareName, profile: 'octoprint', capabilities: { push_socket: this.pushing } } : null,
      temperatures: { ...this.temperatures },
      ready: this.ready,
      job: this.job ? this.job.snapshot(this.clock.monotonic()) : null,
      error: this.error ? { ...this.error } : null,
      offline_reason: this.offlineReason,
      external_job: ext ? { file_name: ext.file_name, progress: ext.progress, started_at: ext.started_at } : null,
    };
  }

  stats(): ProtocolStats | null {
    return null;
  }

  linkInfo(): { connectedAt: number | null; baudRate: number | null } {
    return { connectedAt: this.connectedAt, baudRate: null };
  }

  onConsole(listener: (e: ConsoleEntry) => void): () => void {
    this.consoleListeners.add(listener);
    return () => this.consoleListeners.delete(listener);
  }

  // ---------------------------------------------------------------- connecting

  /** Reads identity and state; resolves when OctoPrint and its printer are up, rejects with why not (and keeps trying). */
  async connect(): Promise<void> {
    if (this.stopped) {
      this.stopped = false;
      this.socket?.start();
      this.schedulePoll();
    }
    await this.refresh();
    if (this.status === 'offline' || this.status === 'error') {
      throw new AppError(409, 'printer_offline', `printer ${this.printerId} is ${this.status}: ${this.error?.message ?? 'unknown'}`);
    }
  }

  async reconnect(): Promise<void> {
    if (this.status === 'printing' || this.status === 'paused') throw printerBusy(this.printerId, this.status);
    await this.disconnect();
    await this.connect();
  }

  /** Stops following the printer. A print OctoPrint runs goes on: a new link re-adopts it (adoptJob). */
  async disconnect(): Promise<void> {
    this.stopped = true;
    this.socket?.stop();
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
    if (this.refreshing) await this.refreshing.catch(() => undefined);
    this.rejectWaiters(printerOffline(this.printerId, 'offline'));
    this.failMatchers();
    const was = this.status;
    this.status = 'offline';
    this.connectedAt = null;
    this.offlineReason = null;
    this.error = null;
    if (was !== 'offline') this.bus.emit('printer.offline', { printer_id: this.printerId, reason: 'disconnected' });
  }

  private schedulePoll(): void {
    if (this.stopped) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      // With the socket up, state arrives pushed; polling is the fallback and the way back from offline.
      const due = !this.socket?.isUp || this.status === 'offline' || this.status === 'connecting';
      const run = due ? this.refresh() : Promise.resolve();
      run.catch(() => undefined).finally(() => this.schedulePoll());
    }, this.pollMs);
  }

  /** One polling round: identity when needed, connection state, printer state and job; then apply(). */
  refresh(): Promise<void> {
    if (!this.refreshing) {
      this.refreshing = this.poll().finally(() => (this.refreshing = null));
    }
    return this.refreshing;
  }

  private async poll(): Promise<void> {
    try {
      if (this.firmwareName === null || this.status === 'offline') {
        const v = asObject(await this.http.get('/api/version'));
        const text = typeof v.text === 'string' ? v.text : typeof v.server === 'string' ? `OctoPrint ${v.server}` : null;
        if (text === null) throw new OctoPrintHttpError('garbage', 'GET /api/version: not an OctoPrint version answer');
        this.firmwareName = text;
      }
      const conn = asObject(await this.http.get('/api/connection'));
      const connState = typeof asObject(conn.current).state === 'string' ? (asObject(conn.current).state as string) : null;
      if (connState === null) throw new OctoPrintHttpError('garbage', 'GET /api/connection: no current.state');
      const fromConnection = mapState({ text: connState });
      if (fromConnection.status === 'offline' || fromConnection.status === 'error') {
        this.apply({ state: { text: connState, error: connState } });
        return;
      }
      let printer: Record<string, unknown>;
      try {
        printer = asObject(await this.http.get('/api/printer'));
      } catch (err) {
        // 409: "Printer is not operational" between the two reads.
        if (err instanceof OctoPrintHttpError && err.kind === 'conflict') {
          this.apply({ state: { text: 'Offline' } });
          return;
        }
        throw err;
      }
      const job = asObject(await this.http.get('/api/job'));
      const state = printer.state && typeof printer.state === 'object' ? (printer.state as OpCurrent['state']) : { text: String(job.state ?? '') };
      this.apply({ state, job: job.job as OpCurrent['job'], progress: job.progress as OpCurrent['progress'], temps: printer.temperature });
    } catch (err) {
      this.linkFailed(err);
    }
  }

  private linkFailed(err: unknown): void {
    const e = err instanceof OctoPrintHttpError ? err : new OctoPrintHttpError('unreachable', (err as Error).message);
    const reason = offlineReasonFor(e.kind);
    if (e.kind === 'garbage' || e.kind === 'server') this.log(`${this.printerId}: ${e.message}`);
    this.goOffline(reason, e.message);
  }

  private goOffline(reason: OfflineReason, message: string): void {
    const was = this.status;
    this.status = 'offline';
    this.offlineReason = reason;
    this.error = { code: reason, message };
    this.connectedAt = null;
    // Our own link is down, not the print: OctoPrint keeps printing, the job stays ours until OctoPrint says it ended.
    if (was !== 'offline') this.bus.emit('printer.offline', { printer_id: this.printerId, reason: message });
  }

  private async passiveLogin(): Promise<string | null> {
    const r = asObject(await this.http.post('/api/login', { passive: true }));
    return typeof r.name === 'string' && typeof r.session === 'string' ? `${r.name}:${r.session}` : null;
  }

  // ---------------------------------------------------------------- push messages

  private pushMessage(type: string, payload: unknown): void {
    if (type === 'current' || type === 'history') {
      const p = asObject(payload);
      if (Array.isArray(p.logs)) this.logLines(p.logs.filter((l): l is string => typeof l === 'string'));
      if (p.state && typeof p.state === 'object') this.apply(p as unknown as OpCurrent);
    } else if (type === 'event') {
      const e = asObject(payload);
      const end = typeof e.type === 'string' ? endFromEvent(e.type) : null;
      if (end) {
        const data = asObject(e.payload);
        const file = typeof data.path === 'string' ? data.path : typeof data.name === 'string' ? data.name : '';
        this.pendingEnd = { file, status: end, message: typeof data.reason === 'string' ? data.reason : undefined };
      }
    } else if (type === 'reauthRequired') {
      // The session expired: a new socket logs in again.
      this.socket?.stop();
      this.socket?.start();
    }
  }

  private logLines(lines: string[]): void {
    for (const line of lines) {
      const sent = /^Send:\s*/.test(line);
      const recv = /^Recv:\s?/.exec(line);
      if (sent || recv) this.emitConsole(sent ? 'sent' : 'received', 'info', line.replace(/^(Send|Recv):\s?/, ''));
      for (const m of [...this.matchers]) {
        const reply = m.feed(line);
        if (reply) m.done(reply);
      }
    }
  }

  // ---------------------------------------------------------------- the one state transition

  /** Every update (pushed or polled) passes here: status, temperatures, our job, an external print, waiters. */
  private apply(current: OpCurrent): void {
    if (this.stopped) return;
    // Wall for the timestamps people read, monotonic for every duration (a wall jump must not end or stretch a job).
    const now = instantOf(this.clock);
    const m = mapState(current.state ?? {});
    const temps = mapTemperatures(current.temps);
    if (temps) this.temperatures = { ...this.temperatures, ...temps };
    const view = mapJob(current);
    const was = this.status;

    const job = this.job;
    if (job) {
      const busy = m.status === 'printing' || m.status === 'paused';
      const ours = busy && isOurUpload(view, job.remoteName);
      if (ours) {
        job.seenPrinting = true;
        const before = job.phase;
        if (job.update(view!.filepos, view!.progress, m.activity, now.monotonic)) this.emitProgress(job);
        if (before !== 'paused' && job.phase === 'paused') this.bus.emit('job.paused', { printer_id: this.printerId, job_id: job.id });
        if (before === 'paused' && job.phase !== 'paused' && m.activity !== 'cancelling') this.bus.emit('job.resumed', { printer_id: this.printerId, job_id: job.id });
      } else if (job.seenPrinting || now.monotonic - this.jobStartMono > this.startGraceMs || m.status === 'error') {
        // The print is over (or OctoPrint prints something else): how it ended comes from the event, else the states.
        // OctoPrint keeps the finished print's progress: its last file position is what ran.
        if (isOurUpload(view, job.remoteName) && job.update(view!.filepos, view!.progress, job.lastActivity, now.monotonic)) this.emitProgress(job);
        this.endJob(job, m);
      }
    }

    if (!this.job && (m.status === 'printing' || m.status === 'paused') && view) this.trackExternal(view, m, now);
    else if (this.external && !(m.status === 'printing' || m.status === 'paused')) this.endExternal(m, now);

    // Status: the printer's, but our job keeps `printing` while its upload starts.
    let status = m.status;
    if (this.job && status === 'idle') status = 'printing';
    this.status = status;
    if (status === 'offline' || status === 'error') {
      this.offlineReason = m.offlineReason;
      this.error = { code: m.offlineReason ?? 'printer_disconnected', message: m.message ?? 'printer unavailable' };
      this.connectedAt = null;
      if (status === 'error' && was !== 'error') this.bus.emit('printer.error', { printer_id: this.printerId, reason: this.error.message, firmware: this.firmwareName ?? undefined });
      if (status === 'offline' && was !== 'offline') this.bus.emit('printer.offline', { printer_id: this.printerId, reason: this.error.message });
    } else {
      this.offlineReason = null;
      this.error = null;
      if (this.connectedAt === null) this.connectedAt = now.wall;
      if (was === 'offline' || was === 'error' || was === 'connecting') this.bus.emit('printer.online', { printer_id: this.printerId, firmware: this.firmwareName ?? undefined });
    }
    for (const w of [...this.waiters]) {
      if (w.until(m)) {
        this.waiters.delete(w);
        clearTimeout(w.timer);
        w.resolve();
      }
    }
  }

  private endJob(job: OctoPrintJob, m: MappedState): void {
    const pending = this.pendingEnd && isOurUpload({ fileName: this.pendingEnd.file, filepos: null, size: null, progress: 0, printSeconds: null }, job.remoteName) ? this.pendingEnd : null;
    this.pendingEnd = null;
    const status: EndStatus = job.cancelRequested
      ? 'cancelled'
      : (pending?.status ?? inferEnd({ now: m, lastActivity: job.lastActivity, cancelRequested: false, lastFilepos: job.filepos, size: job.size, lastProgress: job.progress }));
    let outcome: JobOutcome;
    if (status === 'failed') {
      const message = m.message ?? pending?.message ?? 'OctoPrint reported the print failed';
      outcome = { status: 'failed', error: { code: m.status === 'error' ? 'firmware_error' : 'link_lost', message } };
    } else outcome = { status };
    this.finishJob(job, outcome);
  }

  private finishJob(job: OctoPrintJob, outcome: JobOutcome): void {
    if (!job.end(outcome, this.clock.monotonic())) return;
    if (this.job === job) this.job = null;
    if (job.seenPrinting) this.ready = false;
    const base = { printer_id: this.printerId, job_id: job.id };
    if (outcome.status === 'completed') {
      this.bus.emit('job.progress', { ...base, progress: 100, lines_acked: 0, bytes_acked: job.filepos });
      this.bus.emit('job.completed', base);
    } else if (outcome.status === 'cancelled') this.bus.emit('job.cancelled', base);
    else this.bus.emit('job.failed', { ...base, error: outcome.error });
  }

  private trackExternal(view: NonNullable<ReturnType<typeof mapJob>>, m: MappedState, now: Instant): void {
    const ext = this.external;
    if (ext && ext.file_name === view.fileName) {
      ext.progress = view.progress;
      ext.lastActivity = m.activity;
      ext.printSeconds = view.printSeconds;
      ext.lastFilepos = view.filepos;
      return;
    }
    if (ext) this.endExternal(m, now);
    // OctoPrint's printTime says how long ago the print started; without it, it starts now.
    const sinceMs = (view.printSeconds ?? 0) * 1000;
    this.external = {
      file_name: view.fileName,
      progress: view.progress,
      started_at: now.wall - sinceMs,
      startMono: now.monotonic - sinceMs,
      lastActivity: m.activity,
      printSeconds: view.printSeconds,
      lastFilepos: view.filepos,
      size: view.size,
    };
  }

  private endExternal(m: MappedState, now: Instant): void {
    const ext = this.external!;
    this.external = null;
    const pending = this.pendingEnd && (this.pendingEnd.file === ext.file_name || `/${this.pendingEnd.file}` === ext.file_name) ? this.pendingEnd : null;
    this.pendingEnd = null;
    const status = pending?.status ?? inferEnd({ now: m, lastActivity: ext.lastActivity, cancelRequested: false, lastFilepos: ext.lastFilepos, size: ext.size, lastProgress: ext.progress });
    this.ready = false;
    this.bus.emit('printer.external_job_ended', {
      printer_id: this.printerId,
      file_name: ext.file_name,
      status,
      started_at: ext.started_at,
      ended_at: now.wall,
      print_seconds: ext.printSeconds ?? Math.round((now.monotonic - ext.startMono) / 1000),
      extruded_mm: null,
      ...(status === 'failed' ? { message: m.message ?? pending?.message ?? 'the print failed' } : {}),
    });
  }

  private emitProgress(job: OctoPrintJob): void {
    this.bus.emit('job.progress', { printer_id: this.printerId, job_id: job.id, progress: Math.round(job.progress * 100) / 100, lines_acked: 0, bytes_acked: job.filepos });
  }

  // ---------------------------------------------------------------- jobs

  async startJob(req: JobStartRequest): Promise<JobHandle> {
    this.requireIdle('start a job');
    if (!this.ready) throw new AppError(409, 'printer_busy', `printer ${this.printerId} is waiting for the bed to be cleared`);
    const remoteName = req.remoteName ?? `${req.jobId}.gcode`;
    const [index, info] = await Promise.all([this.indexes.forFile(req.filePath, 'marlin'), stat(req.filePath)]);
    this.requireIdle('start a job');
    const start = instantOf(this.clock);
    const job = new OctoPrintJob(req.jobId, req.filePath, remoteName, info.size, index, start);
    this.job = job;
    this.jobStartMono = start.monotonic;
    this.status = 'printing';
    try {
      await this.http.upload('/api/files/local', req.filePath, remoteName, { select: 'true', print: 'true' });
    } catch (err) {
      if (this.job === job) this.job = null;
      if (this.status === 'printing') this.status = 'idle';
      job.end({ status: 'failed', error: { code: 'file_invalid', message: (err as Error).message } }, this.clock.monotonic());
      throw this.actionError(err, 'start a job');
    }
    this.bus.emit('job.started', { printer_id: this.printerId, job_id: job.id });
    void this.refreshSoon();
    return job.handle(() => this.clock.monotonic());
  }

  async adoptJob(req: JobStartRequest & { startedAt: number }): Promise<JobHandle | null> {
    if (this.job?.id === req.jobId) return this.job.handle(() => this.clock.monotonic());
    if (this.status === 'offline' || this.status === 'connecting') await this.refresh();
    if (this.status !== 'printing' && this.status !== 'paused') return null;
    const remoteName = req.remoteName ?? `${req.jobId}.gcode`;
    const ext = this.external;
    if (!ext || !isOurUpload({ fileName: ext.file_name, filepos: null, size: null, progress: 0, printSeconds: null }, remoteName)) return null;
    const [index, info] = await Promise.all([this.indexes.forFile(req.filePath, 'marlin'), stat(req.filePath)]);
    if (this.external !== ext) return null;
    // Our monotonic clock did not run before our restart: OctoPrint's printTime says how long it has printed (else the
    // stored wall-clock start, the one reading left of it).
    const now = instantOf(this.clock);
    const sinceMs = ext.printSeconds !== null ? ext.printSeconds * 1000 : Math.max(0, now.wall - req.startedAt);
    const job = new OctoPrintJob(req.jobId, req.filePath, remoteName, info.size, index, { wall: req.startedAt, monotonic: now.monotonic - sinceMs });
    job.seenPrinting = true;
    job.update(ext.lastFilepos, ext.progress, ext.lastActivity, now.monotonic);
    // It is ours after all: no external record for it.
    this.external = null;
    this.job = job;
    return job.handle(() => this.clock.monotonic());
  }

  markReady(): void {
    this.ready = true;
  }

  async pause(): Promise<void> {
    const job = this.requireJob('pause', ['printing']);
    if (job.phase === 'paused') return;
    // Shown as the job's pending action until OctoPrint reports Paused (it first lets Marlin's planner run dry).
    job.pauseRequested = true;
    try {
      await this.jobCommand({ command: 'pause', action: 'pause' }, 'pause', (m) => m.activity === 'paused' || m.status !== 'printing');
    } finally {
      job.pauseRequested = false;
    }
    if (this.status !== 'paused') throw wrongState(this.printerId, 'pause', this.status);
  }

  async resume(): Promise<void> {
    this.requireJob('resume', ['paused']);
    await this.jobCommand({ command: 'pause', action: 'resume' }, 'resume', (m) => m.activity !== 'paused');
  }

  async cancel(): Promise<'cancelled' | 'pending'> {
    const job = this.requireJob('cancel', ['printing', 'paused']);
    job.cancelRequested = true;
    const withdraw = (err: Error): void => {
      job.cancelRequested = false;
      this.log(`${this.printerId}: cancel failed: ${err.message}`);
    };
    try {
      // OctoPrint answers at once but shows Cancelling until Marlin's buffered moves ran: pending meanwhile.
      return await cancelOrPending(this.jobCommand({ command: 'cancel' }, 'cancel', () => this.job !== job), withdraw);
    } catch (err) {
      job.cancelRequested = false;
      throw err;
    }
  }

  /** POST /api/job, then wait until an update satisfies `until` (pushed or, without the socket, the next poll). */
  private async jobCommand(body: unknown, action: string, until: (m: MappedState) => boolean): Promise<void> {
    const reached = this.waitFor(until);
    try {
      await this.http.post('/api/job', body);
    } catch (err) {
      reached.cancel();
      throw this.actionError(err, action);
    }
    void this.refreshSoon();
    await reached.promise;
  }

  private waitFor(until: (m: MappedState) => boolean): { promise: Promise<void>; cancel(): void } {
    let waiter!: StateWaiter;
    const promise = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new AppError(409, 'invalid_state', `OctoPrint did not reach the state within ${this.actionTimeoutMs} ms`));
      }, this.actionTimeoutMs);
      waiter = { until, resolve, reject, timer };
      this.waiters.add(waiter);
    });
    return {
      promise,
      cancel: () => {
        clearTimeout(waiter.timer);
        this.waiters.delete(waiter);
        promise.catch(() => undefined);
      },
    };
  }

  /** Without the socket, a state change shows at the next poll: poll at once after an action. */
  private async refreshSoon(): Promise<void> {
    if (this.socket?.isUp) return;
    await this.refresh().catch(() => undefined);
  }

  // ---------------------------------------------------------------- commands

  async home(): Promise<CommandReply> {
    this.requireIdle('home');
    return this.sendCommand('G28');
  }

  async cooldown(): Promise<void> {
    if (this.status !== 'idle' && this.status !== 'paused' && this.status !== 'error') {
      throw this.status === 'printing' ? printerBusy(this.printerId, this.status) : printerOffline(this.printerId, this.status);
    }
    await this.postCommands(['M104 S0', 'M140 S0', 'M107'], 'cool down');
  }

  emergencyStop(): void {
    if (this.status === 'offline' || this.status === 'connecting') throw printerOffline(this.printerId, this.status);
    this.emitConsole('sent', 'command', 'M112 (emergency stop)');
    this.postCommands(['M112'], 'emergency stop').catch((err: Error) => this.log(`${this.printerId}: emergency stop: ${err.message}`));
    const job = this.job;
    if (job) this.finishJob(job, { status: 'failed', error: { code: 'emergency_stop', message: 'emergency stop (M112) sent' } });
  }

  /** POST /api/printer/command; the reply is read from the push socket's terminal log (`Send:` then `Recv:` up to `ok`). */
  async sendCommand(text: string): Promise<CommandReply> {
    if (/[\r\n]/.test(text)) throw badRequest('one command at a time: the text contains a line break');
    const command = text.replace(/;.*$/, '').trim();
    if (command === '') return { ok: true, lines: [] };
    if (/^M112(\s|$)/i.test(command)) {
      this.emergencyStop();
      return { ok: true, lines: [] };
    }
    if (this.status === 'offline' || this.status === 'connecting') throw printerOffline(this.printerId, this.status);
    this.emitConsole('sent', 'command', command);
    if (!this.socket?.isUp) {
      // Without the socket OctoPrint gives no way to read the printer's answer.
      await this.postCommands([command], 'send a command');
      return { ok: true, lines: [] };
    }
    const matcher = new ReplyMatcher(command) as ReplyMatcher & { done(r: CommandReply): void };
    const reply = new Promise<CommandReply>((resolve) => {
      const timer = setTimeout(() => {
        this.matchers.delete(matcher);
        resolve({ ok: true, lines: [] });
      }, this.replyTimeoutMs);
      matcher.done = (r) => {
        clearTimeout(timer);
        this.matchers.delete(matcher);
        resolve(r);
      };
    });
    this.matchers.add(matcher);
    try {
      await this.postCommands([command], 'send a command');
    } catch (err) {
      this.matchers.delete(matcher);
      matcher.done({ ok: false, lines: [] });
      throw err;
    }
    return reply;
  }

  private async postCommands(commands: string[], action: string): Promise<void> {
    try {
      await this.http.post('/api/printer/command', { commands });
    } catch (err) {
      throw this.actionError(err, action);
    }
  }

  // ---------------------------------------------------------------- small helpers

  private actionError(err: unknown, action: string): Error {
    if (err instanceof OctoPrintHttpError) {
      if (err.kind === 'conflict') return new AppError(409, 'invalid_state', `cannot ${action}: OctoPrint refused it in its current state`, err.message);
      this.linkFailed(err);
      return new AppError(409, 'printer_offline', `cannot ${action}: ${err.message}`);
    }
    return err as Error;
  }

  private requireIdle(action: string): void {
    if (this.status === 'idle') return;
    if (this.status === 'printing' || this.status === 'paused') throw printerBusy(this.printerId, this.status);
    if (this.status === 'error') throw wrongState(this.printerId, action, this.status);
    throw printerOffline(this.printerId, this.status);
  }

  private requireJob(action: string, statuses: PrinterStatus[]): OctoPrintJob {
    const job = this.job;
    if (!job || !statuses.includes(this.status)) throw wrongState(this.printerId, action, this.status);
    return job;
  }

  private rejectWaiters(err: Error): void {
    for (const w of [...this.waiters]) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    this.waiters.clear();
  }

  private failMatchers(): void {
    for (const m of [...this.matchers]) m.done({ ok: false, lines: [] });
  }

  /** The socket went down: replies still awaited there will not come. */
  private failMatchersSoon(): void {
    for (const m of [...this.matchers]) m.done({ ok: true, lines: [] });
  }

  private emitConsole(direction: ConsoleEntry['direction'], kind: ConsoleEntry['kind'], text: string): void {
    for (const l of this.consoleListeners) {
      try {
        l({ direction, kind, text });
      } catch {
        // A console view must not break the link.
      }
    }
  }
}

function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
