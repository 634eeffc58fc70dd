// A Klipper printer behind Moonraker as a PrinterLink: identity over HTTP, live state from the websocket subscription,
// uploads and print control over HTTP, console replies from notify_gcode_response. The printer prints its own copy of
// the file, so a lost connection (or our restart) does not end a job: it is followed again when the link comes back.
// The held state, the snapshot and the job/external-print bookkeeping are the network core's; this file is Moonraker's
// protocol: the websocket connection and its Klippy states, the report that maps print_stats, uploads and scripts.
import { stat } from 'node:fs/promises';
import { instantOf } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { silentLogger } from '../../logger.js';
import type { Temperatures } from '../../protocol/protocol-types.js';
import type { JobStartRequest } from '../printer-link.js';
import { printerOffline, wrongState, type CommandReply, type JobOutcome, type OfflineReason, type PrinterSnapshot } from '../printer-state.js';
import { ReconnectPolicy, type ReconnectPolicyOptions } from '../reconnect-policy.js';
import type { JobHandle } from '../session-job-control.js';
import { adoptedStart } from '../network/adoption.js';
import { externalSeen } from '../network/external-print.js';
import { withOurJob } from '../network/held-state.js';
import { NetworkPrinterCore, type NetworkPrinterCoreOptions } from '../network/network-printer-core.js';
import { StateWaiters } from '../network/state-waiters.js';
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
export interface MoonrakerPrinterOptions extends NetworkPrinterCoreOptions {
  /** moonraker://host[:port] or moonraker+https://host[:port]?fingerprint=<sha256> */
  url: string;
  /** Moonraker's API key in clear (the caller decrypts it); null or absent for a Moonraker that trusts this host. */
  apiKey?: string | null;
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

export class MoonrakerPrinter extends NetworkPrinterCore<MoonrakerJob> {
  private readonly address: MoonrakerAddress;
  private readonly client: MoonrakerClient;
  private readonly log: Logger;
  private readonly policy: ReconnectPolicy;
  private readonly opts: MoonrakerPrinterOptions;

  private firmware: string | null = null;
  private klippy: KlippyState = 'disconnected';
  private klippyMessage = '';
  private objects: KlipperObjects = {};
  private socket: MoonrakerSocket | null = null;
  /** Bumped on every connection and every loss: answers of an older connection are ignored. */
  private gen = 0;
  private stopped = true;
  private connecting: Promise<void> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private klippyTimer: NodeJS.Timeout | null = null;
  private lostTimer: NodeJS.Timeout | null = null;
  private readonly waiters = new StateWaiters<PrintView>();
  /** Console commands in flight collect every gcode response until their answer is in. */
  private readonly collectors = new Set<string[]>();

  constructor(opts: MoonrakerPrinterOptions) {
    super(opts);
    this.opts = opts;
    this.address = parseMoonrakerUrl(opts.url);
    this.client = new MoonrakerClient({ address: this.address, apiKey: opts.apiKey ?? null, timeoutMs: opts.requestTimeoutMs });
    this.log = opts.logger ?? silentLogger;
    this.policy = new ReconnectPolicy(opts.reconnect);
  }

  protected firmwareView(): PrinterSnapshot['firmware'] {
    return this.firmware ? { name: this.firmware, profile: 'klipper', capabilities: {} } : null;
  }

  protected override heldTemperatures(): Temperatures {
    return temperaturesOf(this.objects);
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
    this.refuseWhileBusy();
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
    this.waiters.reject(printerOffline(this.printerId, 'offline'));
    this.closed();
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
    this.show('connecting', this.offlineReason, this.error);
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
    this.waiters.reject(new AppError(409, 'printer_offline', `printer ${this.printerId} went offline: ${err.message}`));
    this.linkDown(reason, err.message);
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
    // Ours before the printer shows it: a started job is printing from the moment we started it.
    const ourJob = this.job && !this.job.outcome ? this.job.phase : null;
    this.show(withOurJob(view.status, ourJob), view.offline_reason, view.error);
    this.waiters.check(v);
  }

  private followJob(job: MoonrakerJob, v: PrintView): void {
    if (job.observe(v)) this.jobProgress(job, job.progressPct);
    // A report from before our own pause or resume went through leaves the phase alone.
    if (v.state === 'paused' && (job.phase === 'streaming' || job.phase === 'pausing')) {
      job.phase = 'paused';
      this.jobEvent(job, 'job.paused');
    } else if (v.state === 'printing' && (job.phase === 'paused' || job.phase === 'resuming')) {
      job.phase = 'streaming';
      this.jobEvent(job, 'job.resumed');
    }
    const end = endOf(v.state, v.message);
    if (!end) return;
    // A print reset to standby after our cancel was the cancel.
    if (end.status === 'failed' && v.state === 'standby' && job.cancelRequested) this.endJob(job, { status: 'cancelled' });
    else if (end.status === 'failed') this.endJob(job, { status: 'failed', error: { code: 'firmware_error', message: end.message ?? 'failed' } });
    else this.endJob(job, { status: end.status });
  }

  protected override endJob(job: MoonrakerJob, outcome: JobOutcome): boolean {
    if (!super.endJob(job, outcome)) return false;
    this.clearTimer('lost');
    this.log.info('moonraker: job ended', { printer_id: this.printerId, job_id: job.id, status: outcome.status });
    const err = new AppError(409, 'invalid_state', `the job ${outcome.status === 'failed' ? 'failed' : 'was ' + outcome.status}`);
    this.waiters.reject(err, printView(this.objects));
    return true;
  }

  /** A print we did not start: shown while it runs, reported as printer.external_job_ended when it stops. */
  private followExternal(v: PrintView, candidate: boolean, klippyUp: boolean): void {
    const ext = this.external;
    const running = candidate && isActive(v.state) && v.filename !== '';
    if (ext && (!running || v.filename !== ext.file_name)) {
      const same = v.filename === ext.file_name;
      const end = klippyUp && same ? endOf(v.state, v.message) : null;
      const status = end?.status ?? 'failed';
      if (status === 'completed') this.ready = false;
      this.endExternal({
        status,
        printSeconds: same ? v.printDuration : null,
        extrudedMm: same ? [v.filamentUsed] : null,
        message: end?.message ?? (end ? undefined : 'the printer stopped reporting this print'),
      });
    }
    if (!running) return;
    if (this.external) {
      this.external.progress = v.progress;
      return;
    }
    // Klipper's total_duration runs from the start, pauses included: the start is that long ago.
    this.external = externalSeen(v.filename, v.progress, instantOf(this.clock), v.totalDuration * 1000);
  }

  // ---------------------------------------------------------------- jobs

  async startJob(req: JobStartRequest): Promise<JobHandle> {
    this.requireStartable();
    const remoteName = req.remoteName ?? `${req.jobId}.gcode`;
    const size = (await stat(req.filePath)).size;
    const index = this.indexes.forFile(req.filePath, 'klipper');
    index.catch(() => undefined);
    await this.client.upload(req.filePath, remoteName);
    this.requireIdle('start a job');
    const before = printView(this.objects);
    const job = new MoonrakerJob(req.jobId, req.filePath, remoteName, instantOf(this.clock), size, { filename: before.filename, state: before.state }, () => this.clock.monotonic());
    const start = async (): Promise<void> => {
      await this.client.post('/printer/print/start', { filename: remoteName });
      job.startAcked = true;
    };
    const handle = await this.launch(job, start, (err) => new AppError(409, 'invalid_state', `the printer refused to start ${remoteName}: ${(err as Error).message}`)).finally(() => this.report());
    index.then((i) => (job.index = i), (err: Error) => this.log.warn('moonraker: no extrusion index', { job_id: job.id, error: err }));
    return handle;
  }

  async adoptJob(req: JobStartRequest & { startedAt: number }): Promise<JobHandle | null> {
    const remoteName = req.remoteName ?? `${req.jobId}.gcode`;
    const first = this.adoption(req.jobId);
    if (first.step !== 'look') return first.step === 'same' ? first.handle : null;
    const v = printView(this.objects);
    if (this.klippy !== 'ready' || v.filename !== remoteName) return null;
    const size = await stat(req.filePath).then((s) => s.size, () => v.fileSize);
    // Our monotonic clock did not run before our restart: Klipper's total_duration says how long ago the print started
    // (pauses before our restart included: Klipper reports no pause total, so an adopted job's time is approximate).
    const start = adoptedStart(instantOf(this.clock), req.startedAt, v.totalDuration);
    const job = new MoonrakerJob(req.jobId, req.filePath, remoteName, start, size, { filename: '', state: 'standby' }, () => this.clock.monotonic());
    job.startAcked = true;
    job.index = await this.indexes.forFile(req.filePath, 'klipper').catch(() => null);
    job.armed = true;
    if (v.state === 'paused') job.phase = 'paused';
    const handle = this.adopted(job, (ext) => ext.file_name === remoteName);
    this.report();
    return handle;
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
    // it has no short deadline; the link going down ends it (waiters.reject).
    const done = this.waitFor((v) => !isActive(v.state), PENDING_CANCEL_MS);
    // Pending until Klipper ran it (the job shows pending_action cancel meanwhile).
    return this.cancelJob(
      () => this.printAction('cancel', done),
      (err) => this.log.warn('moonraker: the cancel did not land; the print goes on', { printer_id: this.printerId, error: err }),
    );
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
    this.requireCoolable();
    await this.script('M104 S0\nM140 S0\nM107');
  }

  /** Moonraker's emergency stop halts Klipper at once (an M112 in a script would wait its turn in the queue). */
  emergencyStop(): void {
    if (!this.socket) throw printerOffline(this.printerId, this.status);
    this.emergencyStopped(
      () => this.client.post('/printer/emergency_stop'),
      (err) => this.log.error('moonraker: emergency stop failed', { printer_id: this.printerId, error: err }),
      'emergency stop sent',
    );
  }

  sendCommand(text: string): Promise<CommandReply> {
    return this.consoleCommand(text, false, (command) => this.script(command));
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

  private waitFor(test: (v: PrintView) => boolean, timeoutMs = this.opts.actionTimeoutMs ?? 120_000): Promise<void> {
    return this.waiters.wait(test, timeoutMs, () => new AppError(409, 'invalid_state', `the printer did not get there within ${timeoutMs} ms`)).promise;
  }

  private clearTimer(which: 'reconnect' | 'klippy' | 'lost'): void {
    const key = `${which}Timer` as 'reconnectTimer' | 'klippyTimer' | 'lostTimer';
    const t = this[key];
    if (t) clearTimeout(t);
    this[key] = null;
  }
}

/** The factory the printers service calls for moonraker:// and moonraker+https:// URLs. */
export function createMoonrakerPrinter(opts: MoonrakerPrinterOptions): MoonrakerPrinter {
  return new MoonrakerPrinter(opts);
}
