// A Klipper printer behind Moonraker as a PrinterLink: identity over HTTP, live state from the websocket subscription,
// uploads and print control over HTTP, console replies from notify_gcode_response. The printer prints its own copy of
// the file, so a lost connection (or our restart) does not end a job: it is followed again when the link comes back.
// Over 400 lines on purpose: connecting, the status reports and the job/external-print bookkeeping all change the same
// link state, and one class keeps its invariants (one status function, one report function) in one place.
import { stat } from 'node:fs/promises';
import type { Clock } from '../../clock.js';
import { instantOf, systemClock } from '../../clock.js';
import { AppError, badRequest } from '../../errors.js';
import type { EventBus } from '../../events/event-bus.js';
import type { Logger } from '../../logger.js';
import { silentLogger } from '../../logger.js';
import type { ProtocolStats, Temperatures } from '../../protocol/protocol-types.js';
import type { ExtrusionIndexCache } from '../extrusion-index-cache.js';
import type { JobStartRequest, PrinterLink } from '../printer-link.js';
import {
  printerBusy,
  printerOffline,
  wrongState,
  type CommandReply,
  type ExternalJob,
  type OfflineReason,
  type PrinterSnapshot,
  type PrinterStatus,
} from '../printer-state.js';
import { ReconnectPolicy, type ReconnectPolicyOptions } from '../reconnect-policy.js';
import type { ConsoleEntry } from '../session-context.js';
import type { JobHandle } from '../session-job-control.js';
import { cancelOrPending } from '../pending-cancel.js';
import { MoonrakerClient, MoonrakerError } from './moonraker-client.js';
import { MoonrakerJob } from './moonraker-job.js';
import { MoonrakerSocket } from './moonraker-socket.js';
import {
  SUBSCRIBED_OBJECTS,
  asKlippyState,
  endOf,
  firmwareName,
  isActive,
  linkView,
  mergeStatus,
  printView,
  temperaturesOf,
  type KlipperObjects,
  type KlippyState,
  type PrintView,
} from './moonraker-state.js';
import { parseMoonrakerUrl, type MoonrakerAddress } from './moonraker-url.js';


/** How long a cancel Klipper holds behind a wait may stay pending before it is given up (a long bed heat-up fits). */
const PENDING_CANCEL_MS = 60 * 60_000;
export interface MoonrakerPrinterOptions {
  printerId: string;
  /** moonraker://host[:port] or moonraker+https://host[:port]?fingerprint=<sha256> */
  url: string;
  /** Moonraker's API key in clear (the caller decrypts it); null or absent for a Moonraker that trusts this host. */
  apiKey?: string | null;
  bus: EventBus;
  /** One per program: the extrusion index of each job's file. */
  extrusionIndexes: ExtrusionIndexCache;
  /** Wall readings for timestamps (started_at, ended_at, connected since); every duration runs on its monotonic one. */
  clock?: Clock;
  logger?: Logger;
  /** Reconnect by itself after a lost or failed connection (default true). */
  autoReconnect?: boolean;
  reconnect?: ReconnectPolicyOptions;
  /** Deadline of one HTTP request or websocket call (default 10 s). */
  requestTimeoutMs?: number;
  /** How long pause/resume/cancel wait for the printer to show the new state (default 120 s). */
  actionTimeoutMs?: number;
  /** Websocket ping interval; a missed pong is a dead connection (default 10 s). */
  pingMs?: number;
  /** While Klippy is starting or disconnected, Moonraker is asked again this often (default 2 s). */
  klippyPollMs?: number;
  /** A job whose printer stays unreachable this long fails with `link_lost` (default 30 min). */
  jobLostAfterMs?: number;
}

type Waiter = { test: (v: PrintView) => boolean; resolve: () => void; reject: (e: Error) => void; timer: NodeJS.Timeout };
/** startMono: the print's start on the monotonic clock, to measure it once the printer no longer reports it. */
type ExternalPrint = ExternalJob & { startMono: number };

export class MoonrakerPrinter implements PrinterLink {
  readonly printerId: string;
  readonly url: string;
  private readonly address: MoonrakerAddress;
  private readonly client: MoonrakerClient;
  private readonly bus: EventBus;
  private readonly indexes: ExtrusionIndexCache;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly policy: ReconnectPolicy;
  private readonly opts: MoonrakerPrinterOptions;

  private status: PrinterStatus = 'offline';
  private offlineReason: OfflineReason | null = null;
  private error: { code: string; message: string } | null = null;
  private firmware: string | null = null;
  private klippy: KlippyState = 'disconnected';
  private klippyMessage = '';
  private objects: KlipperObjects = {};
  private socket: MoonrakerSocket | null = null;
  private connectedAt: number | null = null;
  /** Bumped on every connection and every loss: answers of an older connection are ignored. */
  private gen = 0;
  private stopped = true;
  private connecting: Promise<void> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private klippyTimer: NodeJS.Timeout | null = null;
  private lostTimer: NodeJS.Timeout | null = null;
  private job: MoonrakerJob | null = null;
  private external: ExternalPrint | null = null;
  private ready = true;
  private waiters = new Set<Waiter>();
  private readonly consoleListeners = new Set<(e: ConsoleEntry) => void>();
  /** Console commands in flight collect every gcode response until their answer is in. */
  private readonly collectors = new Set<string[]>();

  constructor(opts: MoonrakerPrinterOptions) {
    this.opts = opts;
    this.printerId = opts.printerId;
    this.url = opts.url;
    this.address = parseMoonrakerUrl(opts.url);
    this.client = new MoonrakerClient({ address: this.address, apiKey: opts.apiKey ?? null, timeoutMs: opts.requestTimeoutMs });
    this.bus = opts.bus;
    this.indexes = opts.extrusionIndexes;
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? silentLogger;
    this.policy = new ReconnectPolicy(opts.reconnect);
  }

  // ---------------------------------------------------------------- reading

  get currentStatus(): PrinterStatus {
    return this.status;
  }

  snapshot(): PrinterSnapshot {
    const ext = this.external;
    return {
      printer_id: this.printerId,
      url: this.url,
      status: this.status,
      firmware: this.firmware ? { name: this.firmware, profile: 'klipper', capabilities: {} } : null,
      temperatures: this.temperatures(),
      ready: this.ready,
      job: this.job && !this.job.outcome ? this.job.snapshot() : null,
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

  /** Resolves once Moonraker answered and Klipper is ready; rejects with the reason otherwise (and keeps trying). */
  connect(): Promise<void> {
    this.stopped = false;
    if (this.connecting) return this.connecting;
    if (this.socket && this.klippy === 'ready') return Promise.resolve();
    this.clearTimer('reconnect');
    return this.startAttempt();
  }

  /** Reconnects; a Klipper in shutdown or error gets FIRMWARE_RESTART first (the way out of its error). */
  async reconnect(): Promise<void> {
    if (this.status === 'printing' || this.status === 'paused') throw printerBusy(this.printerId, this.status);
    this.stopped = false;
    if ((this.klippy === 'shutdown' || this.klippy === 'error') && this.socket) {
      await this.client.post('/printer/firmware_restart').catch((err: Error) => this.log.warn('moonraker: firmware restart failed', { printer_id: this.printerId, error: err }));
    }
    this.clearTimer('reconnect');
    if (this.connecting) await this.connecting.catch(() => undefined);
    return this.startAttempt();
  }

  /**
   * Closes the connection until connect(). A running print goes on on the printer: its job is not ended here (a new
   * link, or this one after connect(), follows it again; adoptJob after our restart).
   */
  async disconnect(): Promise<void> {
    this.stopped = true;
    this.clearTimer('reconnect');
    this.clearTimer('klippy');
    this.clearTimer('lost');
    this.dropSocket();
    this.rejectWaiters(printerOffline(this.printerId, 'offline'));
    const was = this.status;
    this.setView('offline', null, null);
    if (was !== 'offline') this.bus.emit('printer.offline', { printer_id: this.printerId, reason: 'disconnected' });
  }

  private startAttempt(): Promise<void> {
    const gen = ++this.gen;
    const attempt = this.attempt(gen).then(
      () => {
        if (this.connecting === tracked) this.connecting = null;
        this.policy.reset();
      },
      (err: Error) => {
        if (this.connecting === tracked) this.connecting = null;
        if (gen === this.gen && !this.stopped) this.connectionLost(err, gen);
        throw err;
      },
    );
    const tracked = attempt;
    this.connecting = tracked;
    return tracked;
  }

  private async attempt(gen: number): Promise<void> {
    this.dropSocket();
    // The last reason stays visible while we try again.
    this.setView('connecting', this.offlineReason, this.error);
    const info = await this.client.get<{ klippy_state?: unknown; klippy_connected?: unknown }>('/server/info');
    this.requireCurrent(gen);
    const token = this.opts.apiKey ? await this.client.oneshotToken() : null;
    this.requireCurrent(gen);
    const url = token ? `${this.address.wsUrl}?token=${encodeURIComponent(token)}` : this.address.wsUrl;
    const socket = await MoonrakerSocket.open({
      url,
      agent: this.client.httpAgent,
      timeoutMs: this.opts.requestTimeoutMs,
      pingMs: this.opts.pingMs,
      onNotification: (method, params) => {
        if (gen === this.gen) this.notification(method, params);
      },
      onClose: (err) => {
        if (gen === this.gen) this.connectionLost(err, gen);
      },
    });
    if (gen !== this.gen || this.stopped) {
      socket.close();
      throw new Error('connect abandoned');
    }
    this.socket = socket;
    await socket.call('server.connection.identify', {
      client_name: 'printfarm',
      version: '1',
      type: 'other',
      url: 'https://github.com/printfarm',
    });
    this.requireCurrent(gen);
    this.connectedAt = this.clock.now();
    this.clearTimer('lost');
    this.log.info('moonraker: connected', { printer_id: this.printerId, klippy: String(info.klippy_state) });
    await this.klippyChanged(asKlippyState(info.klippy_state), gen);
    if (this.status === 'error' || this.status === 'offline') throw new Error(this.error?.message ?? 'the printer is not ready');
  }

  private requireCurrent(gen: number): void {
    if (gen !== this.gen || this.stopped) throw new Error('connect abandoned');
  }

  /** Klippy reached a state: what the link shows, and (when ready) a fresh subscription. */
  private async klippyChanged(state: KlippyState, gen: number): Promise<void> {
    this.klippy = state;
    this.clearTimer('klippy');
    if (state === 'ready') {
      const info = await this.client.get<{ software_version?: unknown; state_message?: unknown }>('/printer/info');
      this.requireCurrent(gen);
      this.firmware = firmwareName(info.software_version);
      const sub = await this.socket!.call<{ status?: unknown }>('printer.objects.subscribe', { objects: SUBSCRIBED_OBJECTS });
      this.requireCurrent(gen);
      // A new subscription answers with every field: the old values go.
      this.objects = mergeStatus({}, sub?.status);
      this.klippyMessage = '';
      this.report();
      return;
    }
    if (state === 'shutdown' || state === 'error') {
      const info = await this.client.get<{ state_message?: unknown }>('/printer/info').catch(() => null);
      this.requireCurrent(gen);
      this.klippyMessage = typeof info?.state_message === 'string' ? info.state_message : '';
      this.report();
      return;
    }
    // startup or disconnected: Moonraker is asked again until Klippy is ready (the notification may come first).
    this.klippyMessage = '';
    this.report();
    this.klippyTimer = setTimeout(() => {
      this.klippyTimer = null;
      this.pollKlippy(gen);
    }, this.opts.klippyPollMs ?? 2000);
    this.klippyTimer.unref();
  }

  private pollKlippy(gen: number): void {
    this.client
      .get<{ klippy_state?: unknown }>('/server/info')
      .then((info) => {
        if (gen === this.gen) return this.klippyChanged(asKlippyState(info.klippy_state), gen);
      })
      .catch((err: Error) => {
        if (gen === this.gen && !this.stopped) this.connectionLost(err, gen);
      });
  }

  /** The connection (or an attempt) failed: offline with the reason, a job keeps waiting, and a reconnect later. */
  private connectionLost(err: Error, gen: number): void {
    if (gen !== this.gen) return;
    this.gen++;
    this.dropSocket();
    this.clearTimer('klippy');
    const reason: OfflineReason = err instanceof MoonrakerError && err.reason ? err.reason : 'unreachable';
    this.log.warn('moonraker: printer offline', { printer_id: this.printerId, reason, error: err.message });
    this.rejectWaiters(new AppError(409, 'printer_offline', `printer ${this.printerId} went offline: ${err.message}`));
    const was = this.status;
    this.setView('offline', reason, { code: reason, message: err.message });
    if (was !== 'offline' && was !== 'connecting') this.bus.emit('printer.offline', { printer_id: this.printerId, reason: err.message });
    if (this.job && !this.job.outcome && !this.lostTimer) {
      const job = this.job;
      this.lostTimer = setTimeout(() => {
        this.lostTimer = null;
        if (this.socket === null) this.endJob(job, { status: 'failed', error: { code: 'link_lost', message: `the printer was unreachable too long: ${err.message}` } });
      }, this.opts.jobLostAfterMs ?? 30 * 60_000);
      this.lostTimer.unref();
    }
    if (this.stopped || this.opts.autoReconnect === false) return;
    this.clearTimer('reconnect');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.stopped && !this.connecting) this.startAttempt().catch(() => undefined);
    }, this.policy.nextDelay());
    this.reconnectTimer.unref();
  }

  private dropSocket(): void {
    const s = this.socket;
    this.socket = null;
    this.connectedAt = null;
    s?.close();
  }

  // ---------------------------------------------------------------- what Moonraker tells us

  private notification(method: string, params: unknown[]): void {
    switch (method) {
      case 'notify_status_update':
        this.objects = mergeStatus(this.objects, params[0]);
        if (this.klippy === 'ready') this.report();
        return;
      case 'notify_gcode_response':
        if (typeof params[0] === 'string') this.gcodeResponse(params[0]);
        return;
      case 'notify_klippy_ready':
      case 'notify_klippy_shutdown':
      case 'notify_klippy_disconnected': {
        const state: KlippyState = method === 'notify_klippy_ready' ? 'ready' : method === 'notify_klippy_shutdown' ? 'shutdown' : 'disconnected';
        const gen = this.gen;
        this.klippyChanged(state, gen).catch((err: Error) => {
          if (gen === this.gen && !this.stopped) this.connectionLost(err, gen);
        });
        return;
      }
    }
  }

  private gcodeResponse(text: string): void {
    for (const c of this.collectors) c.push(text);
    this.emitConsole('received', text.startsWith('!!') ? 'warning' : 'info', text);
  }

  /**
   * The one place the printer's state turns into ours: status, offline reason, our job's counters and events, the
   * external print and its end. Every report and every Klippy change passes here.
   */
  private report(): void {
    const v = printView(this.objects);
    const klippyUp = this.klippy === 'ready';
    const job = this.job && !this.job.outcome ? this.job : null;
    let ours = false;
    if (job) {
      ours = klippyUp && job.claims(v);
      if (ours) this.followJob(job, v);
      else if (job.armed && klippyUp) this.endJob(job, { status: 'failed', error: { code: 'firmware_error', message: `the printer now shows ${v.filename ? `"${v.filename}"` : 'no file'}: our print was dropped` } });
      else if (!klippyUp && (this.klippy === 'shutdown' || this.klippy === 'error' || this.klippy === 'disconnected')) {
        const code = this.klippy === 'disconnected' ? 'link_lost' : 'firmware_error';
        const message = this.klippy === 'disconnected' ? 'Klipper disconnected from Moonraker: the print was lost' : linkView(this.klippy, this.klippyMessage, v.state).error!.message;
        this.endJob(job, { status: 'failed', error: { code, message } });
      }
    }
    this.followExternal(v, klippyUp && !ours, klippyUp);
    const view = linkView(this.klippy, this.klippyMessage, v.state);
    let status = view.status;
    // Ours before the printer shows it: a started job is printing from the moment we started it.
    if (klippyUp && this.job && !this.job.outcome && !isActive(v.state)) status = this.job.phase === 'paused' ? 'paused' : 'printing';
    const was = this.status;
    this.setView(status, view.offline_reason, view.error);
    if (status === was) return;
    if (status === 'error') this.bus.emit('printer.error', { printer_id: this.printerId, reason: view.error?.message, firmware: this.firmware ?? undefined });
    else if (status === 'offline') this.bus.emit('printer.offline', { printer_id: this.printerId, reason: view.error?.message });
    else if (status !== 'connecting' && (was === 'offline' || was === 'connecting' || was === 'error')) {
      this.bus.emit('printer.online', { printer_id: this.printerId, firmware: this.firmware ?? undefined });
    }
    for (const w of [...this.waiters]) if (w.test(v)) this.settleWaiter(w, null);
  }

  private followJob(job: MoonrakerJob, v: PrintView): void {
    const base = { printer_id: this.printerId, job_id: job.id };
    if (job.observe(v)) this.bus.emit('job.progress', { ...base, progress: job.progressPct, lines_acked: 0, bytes_acked: job.bytesAcked });
    // A report from before our own pause or resume went through leaves the phase alone.
    if (v.state === 'paused' && (job.phase === 'streaming' || job.phase === 'pausing')) {
      job.phase = 'paused';
      this.bus.emit('job.paused', base);
    } else if (v.state === 'printing' && (job.phase === 'paused' || job.phase === 'resuming')) {
      job.phase = 'streaming';
      this.bus.emit('job.resumed', base);
    }
    const end = endOf(v.state, v.message);
    if (!end) return;
    // A print reset to standby after our cancel was the cancel.
    if (end.status === 'failed' && v.state === 'standby' && job.cancelRequested) this.endJob(job, { status: 'cancelled' });
    else if (end.status === 'failed') this.endJob(job, { status: 'failed', error: { code: 'firmware_error', message: end.message ?? 'failed' } });
    else this.endJob(job, { status: end.status });
  }

  private endJob(job: MoonrakerJob, outcome: Parameters<MoonrakerJob['end']>[0]): void {
    if (!job.end(outcome)) return;
    if (this.job === job) this.job = null;
    this.clearTimer('lost');
    if (job.bytesAcked > 0) this.ready = false;
    const base = { printer_id: this.printerId, job_id: job.id };
    if (outcome.status === 'completed') {
      this.bus.emit('job.progress', { ...base, progress: 100, lines_acked: 0, bytes_acked: job.bytesAcked });
      this.bus.emit('job.completed', base);
    } else if (outcome.status === 'cancelled') this.bus.emit('job.cancelled', base);
    else this.bus.emit('job.failed', { ...base, error: outcome.error });
    this.log.info('moonraker: job ended', { printer_id: this.printerId, job_id: job.id, status: outcome.status });
    const err = new AppError(409, 'invalid_state', `the job ${outcome.status === 'failed' ? 'failed' : 'was ' + outcome.status}`);
    for (const w of [...this.waiters]) if (!w.test(printView(this.objects))) this.settleWaiter(w, err);
  }

  /** A print we did not start: shown while it runs, reported as printer.external_job_ended when it stops. */
  private followExternal(v: PrintView, candidate: boolean, klippyUp: boolean): void {
    const ext = this.external;
    const running = candidate && isActive(v.state) && v.filename !== '';
    if (ext && (!running || v.filename !== ext.file_name)) {
      this.external = null;
      const end = klippyUp && v.filename === ext.file_name ? endOf(v.state, v.message) : null;
      const status = end?.status ?? 'failed';
      const now = instantOf(this.clock);
      if (status === 'completed') this.ready = false;
      this.bus.emit('printer.external_job_ended', {
        printer_id: this.printerId,
        file_name: ext.file_name,
        status,
        started_at: ext.started_at,
        ended_at: now.wall,
        print_seconds: v.filename === ext.file_name ? v.printDuration : (now.monotonic - ext.startMono) / 1000,
        extruded_mm: v.filename === ext.file_name ? [v.filamentUsed] : null,
        message: end?.message ?? (end ? undefined : 'the printer stopped reporting this print'),
      });
    }
    if (!running) return;
    if (this.external) {
      this.external.progress = v.progress;
      return;
    }
    // Klipper's total_duration runs from the start, pauses included: the start is that long ago.
    const now = instantOf(this.clock);
    const sinceMs = v.totalDuration * 1000;
    this.external = { file_name: v.filename, progress: v.progress, started_at: Math.round(now.wall - sinceMs), startMono: now.monotonic - sinceMs };
  }

  // ---------------------------------------------------------------- jobs

  async startJob(req: JobStartRequest): Promise<JobHandle> {
    this.requireIdle('start a job');
    if (!this.ready) throw new AppError(409, 'printer_busy', `printer ${this.printerId} is waiting for the bed to be cleared`);
    const remoteName = req.remoteName ?? `${req.jobId}.gcode`;
    const size = (await stat(req.filePath)).size;
    const index = this.indexes.forFile(req.filePath, 'klipper');
    index.catch(() => undefined);
    await this.client.upload(req.filePath, remoteName);
    this.requireIdle('start a job');
    const before = printView(this.objects);
    const job = new MoonrakerJob(req.jobId, req.filePath, remoteName, instantOf(this.clock), size, { filename: before.filename, state: before.state }, () => this.clock.monotonic());
    this.job = job;
    this.setView('printing', null, null);
    try {
      await this.client.post('/printer/print/start', { filename: remoteName });
    } catch (err) {
      if (this.job === job) this.job = null;
      job.end({ status: 'failed', error: { code: 'file_invalid', message: (err as Error).message } });
      this.report();
      throw new AppError(409, 'invalid_state', `the printer refused to start ${remoteName}: ${(err as Error).message}`);
    }
    job.startAcked = true;
    index.then((i) => (job.index = i), (err: Error) => this.log.warn('moonraker: no extrusion index', { job_id: job.id, error: err }));
    this.bus.emit('job.started', { printer_id: this.printerId, job_id: job.id });
    this.report();
    return job.handle;
  }

  async adoptJob(req: JobStartRequest & { startedAt: number }): Promise<JobHandle | null> {
    const remoteName = req.remoteName ?? `${req.jobId}.gcode`;
    if (this.job && !this.job.outcome) return this.job.id === req.jobId ? this.job.handle : null;
    const v = printView(this.objects);
    if (this.klippy !== 'ready' || v.filename !== remoteName) return null;
    const size = await stat(req.filePath).then((s) => s.size, () => v.fileSize);
    // Our monotonic clock did not run before our restart: Klipper's total_duration says how long ago the print started
    // (pauses before our restart included: Klipper reports no pause total, so an adopted job's time is approximate).
    const start = { wall: req.startedAt, monotonic: this.clock.monotonic() - v.totalDuration * 1000 };
    const job = new MoonrakerJob(req.jobId, req.filePath, remoteName, start, size, { filename: '', state: 'standby' }, () => this.clock.monotonic());
    job.startAcked = true;
    job.index = await this.indexes.forFile(req.filePath, 'klipper').catch(() => null);
    if (this.job && !this.job.outcome) return null; // a job started meanwhile
    // It is ours, not someone else's print: no external ending for it.
    if (this.external?.file_name === remoteName) this.external = null;
    job.armed = true;
    this.job = job;
    if (v.state === 'paused') job.phase = 'paused';
    this.report();
    return job.handle;
  }

  markReady(): void {
    this.ready = true;
  }

  async pause(): Promise<void> {
    if (this.status !== 'printing') throw wrongState(this.printerId, 'pause', this.status);
    const done = this.waitFor((v) => v.state === 'paused');
    if (this.job) this.job.phase = 'pausing';
    await this.printAction('pause', done);
  }

  async resume(): Promise<void> {
    if (this.status !== 'paused') throw wrongState(this.printerId, 'resume', this.status);
    const done = this.waitFor((v) => v.state === 'printing');
    if (this.job) this.job.phase = 'resuming';
    await this.printAction('resume', done);
  }

  async cancel(): Promise<'cancelled' | 'pending'> {
    if (this.status !== 'printing' && this.status !== 'paused') throw wrongState(this.printerId, 'cancel', this.status);
    // Klipper holds a cancel behind the G-code that holds its queue (an M190 on a large bed: minutes), so the wait for
    // it has no short deadline; the link going down ends it (rejectWaiters).
    const done = this.waitFor((v) => !isActive(v.state), PENDING_CANCEL_MS);
    const job = this.job;
    const withdraw = (err: Error): void => {
      if (job && !job.outcome) job.cancelRequested = false;
      this.log.warn('moonraker: the cancel did not land; the print goes on', { printer_id: this.printerId, error: err });
    };
    if (job) job.cancelRequested = true;
    try {
      // Pending until Klipper ran it (the job shows pending_action cancel meanwhile).
      return await cancelOrPending(this.printAction('cancel', done), withdraw);
    } catch (err) {
      if (job && !job.outcome) job.cancelRequested = false;
      throw err;
    }
  }

  private async printAction(action: 'pause' | 'resume' | 'cancel', done: Promise<void>): Promise<void> {
    const job = this.job;
    try {
      await this.client.post(`/printer/print/${action}`).catch((err: unknown) => {
        // Klipper runs PAUSE/CANCEL_PRINT behind the G-code that holds its queue: during an M109 the answer comes when
        // the wait ends (22 s measured on real Klipper). No answer in time is no refusal: the printer's state says
        // when the action landed (`done`, bounded by actionTimeoutMs).
        if (err instanceof MoonrakerError && err.status === null && err.reason === 'unreachable' && this.socket) return;
        throw err;
      });
      await done;
    } catch (err) {
      done.catch(() => undefined);
      // The phase goes back to what the printer shows.
      if (job && !job.outcome && (action === 'pause' || action === 'resume')) job.phase = printView(this.objects).state === 'paused' ? 'paused' : 'streaming';
      throw err instanceof AppError ? err : new AppError(409, 'invalid_state', `${action} failed: ${(err as Error).message}`);
    }
  }

  async home(): Promise<CommandReply> {
    this.requireIdle('home');
    return this.script('G28');
  }

  async cooldown(): Promise<void> {
    if (this.status !== 'idle' && this.status !== 'paused' && this.status !== 'error') {
      throw this.status === 'printing' ? printerBusy(this.printerId, this.status) : printerOffline(this.printerId, this.status);
    }
    await this.script('M104 S0\nM140 S0\nM107');
  }

  /** Moonraker's emergency stop halts Klipper at once (an M112 in a script would wait its turn in the queue). */
  emergencyStop(): void {
    if (!this.socket) throw printerOffline(this.printerId, this.status);
    this.emitConsole('sent', 'command', 'M112 (emergency stop)');
    this.client.post('/printer/emergency_stop').catch((err: Error) => this.log.error('moonraker: emergency stop failed', { printer_id: this.printerId, error: err }));
    const job = this.job;
    if (job) this.endJob(job, { status: 'failed', error: { code: 'emergency_stop', message: 'emergency stop sent' } });
  }

  async sendCommand(text: string): Promise<CommandReply> {
    if (/[\r\n]/.test(text)) throw badRequest('one command at a time: the text contains a line break');
    const command = text.trim();
    if (command === '' || command.startsWith(';')) return { ok: true, lines: [] };
    if (/^M112(\s|$)/i.test(command)) {
      this.emergencyStop();
      return { ok: true, lines: [] };
    }
    if (this.status === 'offline' || this.status === 'connecting') throw printerOffline(this.printerId, this.status);
    return this.script(command);
  }

  /** Runs a G-code script; its reply lines are the gcode responses that came while it ran. */
  private async script(script: string): Promise<CommandReply> {
    const socket = this.socket;
    if (!socket) throw printerOffline(this.printerId, this.status);
    const lines: string[] = [];
    this.collectors.add(lines);
    for (const l of script.split('\n')) this.emitConsole('sent', 'command', l);
    try {
      let ok = true;
      try {
        await this.client.post('/printer/gcode/script', { script });
      } catch (err) {
        if (!(err instanceof MoonrakerError) || err.status !== 400) throw err;
        ok = false;
        if (!lines.some((l) => l.includes(err.message.replace(/ \(HTTP 400\)$/, '').replace(/^[^:]*: /, '')))) lines.push(`!! ${err.message}`);
      }
      // Responses travel the websocket, the answer HTTP: one websocket round trip lets the stragglers arrive.
      await socket.call('server.info').catch(() => undefined);
      return { ok, lines };
    } finally {
      this.collectors.delete(lines);
    }
  }

  // ---------------------------------------------------------------- helpers

  private requireIdle(action: string): void {
    if (this.status === 'idle') return;
    if (this.status === 'printing' || this.status === 'paused') throw printerBusy(this.printerId, this.status);
    if (this.status === 'error') throw wrongState(this.printerId, action, this.status);
    throw printerOffline(this.printerId, this.status);
  }

  private waitFor(test: (v: PrintView) => boolean, timeoutMs = this.opts.actionTimeoutMs ?? 120_000): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = {
        test,
        resolve,
        reject,
        timer: setTimeout(() => this.settleWaiter(w, new AppError(409, 'invalid_state', `the printer did not get there within ${timeoutMs} ms`)), timeoutMs),
      };
      this.waiters.add(w);
    });
  }

  private settleWaiter(w: Waiter, err: Error | null): void {
    if (!this.waiters.delete(w)) return;
    clearTimeout(w.timer);
    if (err) w.reject(err);
    else w.resolve();
  }

  private rejectWaiters(err: Error): void {
    for (const w of [...this.waiters]) this.settleWaiter(w, err);
  }

  private setView(status: PrinterStatus, reason: OfflineReason | null, error: { code: string; message: string } | null): void {
    this.status = status;
    this.offlineReason = status === 'offline' || status === 'error' || status === 'connecting' ? reason : null;
    this.error = status === 'offline' || status === 'error' || status === 'connecting' ? error : null;
  }

  private temperatures(): Temperatures {
    return temperaturesOf(this.objects);
  }

  private clearTimer(which: 'reconnect' | 'klippy' | 'lost'): void {
    const key = `${which}Timer` as 'reconnectTimer' | 'klippyTimer' | 'lostTimer';
    const t = this[key];
    if (t) clearTimeout(t);
    this[key] = null;
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

/** The factory the printers service calls for moonraker:// and moonraker+https:// URLs. */
export function createMoonrakerPrinter(opts: MoonrakerPrinterOptions): MoonrakerPrinter {
  return new MoonrakerPrinter(opts);
}
