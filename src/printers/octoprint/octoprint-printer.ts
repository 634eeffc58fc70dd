// The OctoPrint driver: a PrinterLink over OctoPrint's REST API and push socket. OctoPrint holds the whole file and
// prints it itself; we upload, command, and follow its state (push `current`, or polling every 2 s without the socket).
// The held state, the snapshot and the job/external-print bookkeeping are the network core's; this file is OctoPrint's
// protocol: its polling and push socket, the one transition of its updates (apply()), uploads and commands.
import { stat } from 'node:fs/promises';
import { AppError } from '../../errors.js';
import type { Instant } from '../../clock.js';
import { instantOf } from '../../clock.js';
import type { JobStartRequest } from '../printer-link.js';
import { printerOffline, wrongState, type CommandReply, type JobOutcome, type PrinterSnapshot, type PrinterStatus } from '../printer-state.js';
import type { JobHandle } from '../session-job-control.js';
import { adoptedStart } from '../network/adoption.js';
import { externalSeen, type ExternalPrint } from '../network/external-print.js';
import { withOurJob } from '../network/held-state.js';
import { NetworkPrinterCore, type NetworkPrinterCoreOptions } from '../network/network-printer-core.js';
import { PollLoop } from '../network/poll-loop.js';
import { StateWaiters, type Waiting } from '../network/state-waiters.js';
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

export interface OctoPrintPrinterOptions extends NetworkPrinterCoreOptions {
  /** `octoprint://host[:port]` or `octoprint+https://host[:port]?fingerprint=<sha256>`. */
  url: string;
  /** The API key in clear (decrypted by the caller); sent as X-Api-Key. */
  apiKey: string;
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

/** What OctoPrint last said of a print we did not start: how it ended is inferred from it. */
type OctoExternal = ExternalPrint & { lastActivity: OpActivity; printSeconds: number | null; lastFilepos: number | null; size: number | null };

export class OctoPrintPrinter extends NetworkPrinterCore<OctoPrintJob, OctoExternal> {
  private readonly endpoint: OctoPrintEndpoint;
  private readonly http: OctoPrintHttpClient;
  private readonly socket: OctoPrintPushSocket | null;
  private readonly pollMs: number;
  private readonly actionTimeoutMs: number;
  private readonly replyTimeoutMs: number;
  private readonly startGraceMs: number;
  private readonly log: (line: string) => void;
  private readonly loop: PollLoop;

  private firmwareName: string | null = null;
  /** Monotonic reading of our last start: the grace before an idle printer means the print ended. */
  private jobStartMono = 0;
  /** An end event from the push socket, waiting for the state update that follows it. */
  private pendingEnd: { file: string; status: EndStatus; message?: string } | null = null;
  private readonly waiters = new StateWaiters<MappedState>();
  private readonly matchers = new Set<ReplyMatcher & { done(r: CommandReply): void }>();

  constructor(opts: OctoPrintPrinterOptions) {
    super(opts);
    this.endpoint = parseOctoPrintUrl(opts.url);
    this.pollMs = opts.pollMs ?? 2000;
    this.actionTimeoutMs = opts.actionTimeoutMs ?? 120_000;
    this.replyTimeoutMs = opts.replyTimeoutMs ?? 10_000;
    this.startGraceMs = opts.startGraceMs ?? 15_000;
    this.log = opts.log ?? (() => undefined);
    // With the socket up, state arrives pushed; polling is the fallback and the way back from offline.
    this.loop = new PollLoop({
      round: () => this.poll(),
      delay: () => this.pollMs,
      due: () => !this.socket?.isUp || this.status === 'offline' || this.status === 'connecting',
    });
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

  protected firmwareView(): PrinterSnapshot['firmware'] {
    return this.firmwareName ? { name: this.firmwareName, profile: 'octoprint', capabilities: { push_socket: this.pushing } } : null;
  }

  /** True while live updates come from the push socket (false: polling). */
  get pushing(): boolean {
    return this.socket?.isUp ?? false;
  }

  // ---------------------------------------------------------------- connecting

  /** Reads identity and state; resolves when OctoPrint and its printer are up, rejects with why not (and keeps trying). */
  async connect(): Promise<void> {
    if (this.loop.isStopped) {
      this.loop.start();
      this.socket?.start();
    }
    await this.refresh();
    if (this.status === 'offline' || this.status === 'error') {
      throw new AppError(409, 'printer_offline', `printer ${this.printerId} is ${this.status}: ${this.error?.message ?? 'unknown'}`);
    }
  }

  async reconnect(): Promise<void> {
    this.refuseWhileBusy();
    await this.disconnect();
    await this.connect();
  }

  /** Stops following the printer. A print OctoPrint runs goes on: a new link re-adopts it (adoptJob). */
  async disconnect(): Promise<void> {
    // Stopped first: an update the socket still delivers is not applied.
    const stopping = this.loop.stop();
    this.socket?.stop();
    await stopping;
    this.waiters.reject(printerOffline(this.printerId, 'offline'));
    this.failMatchers();
    this.closed();
  }

  /** One polling round: identity when needed, connection state, printer state and job; then apply(). */
  refresh(): Promise<void> {
    return this.loop.now();
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
    // Our own link is down, not the print: OctoPrint keeps printing, the job stays ours until OctoPrint says it ended.
    this.linkDown(reason, e.message);
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
    if (this.loop.isStopped) return;
    // Wall for the timestamps people read, monotonic for every duration (a wall jump must not end or stretch a job).
    const now = instantOf(this.clock);
    const m = mapState(current.state ?? {});
    const temps = mapTemperatures(current.temps);
    if (temps) this.temperatures = { ...this.temperatures, ...temps };
    const view = mapJob(current);

    const job = this.job;
    if (job) {
      const busy = m.status === 'printing' || m.status === 'paused';
      const ours = busy && isOurUpload(view, job.remoteName);
      if (ours) {
        job.seenPrinting = true;
        const before = job.phase;
        if (job.update(view!.filepos, view!.progress, m.activity)) this.emitProgress(job);
        if (before !== 'paused' && job.phase === 'paused') this.jobEvent(job, 'job.paused');
        if (before === 'paused' && job.phase !== 'paused' && m.activity !== 'cancelling') this.jobEvent(job, 'job.resumed');
      } else if (job.seenPrinting || now.monotonic - this.jobStartMono > this.startGraceMs || m.status === 'error') {
        // The print is over (or OctoPrint prints something else): how it ended comes from the event, else the states.
        // OctoPrint keeps the finished print's progress: its last file position is what ran.
        if (isOurUpload(view, job.remoteName) && job.update(view!.filepos, view!.progress, job.lastActivity)) this.emitProgress(job);
        this.endJobAs(job, m);
      }
    }

    if (!this.job && (m.status === 'printing' || m.status === 'paused') && view) this.trackExternal(view, m, now);
    else if (this.external && !(m.status === 'printing' || m.status === 'paused')) this.endExternalAs(m);

    // Status: the printer's, but our job keeps `printing` while its upload starts.
    const status = withOurJob(m.status, this.job?.phase ?? null);
    const troubled = status === 'offline' || status === 'error';
    this.show(status, troubled ? m.offlineReason : null, troubled ? { code: m.offlineReason ?? 'printer_disconnected', message: m.message ?? 'printer unavailable' } : null);
    this.waiters.check(m);
  }

  /** Our job's print is over: how it ended comes from the pending end event, else from the states. */
  private endJobAs(job: OctoPrintJob, m: MappedState): void {
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
    this.endJob(job, outcome);
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
    if (ext) this.endExternalAs(m);
    // OctoPrint's printTime says how long ago the print started; without it, it starts now.
    this.external = {
      ...externalSeen(view.fileName, view.progress, now, (view.printSeconds ?? 0) * 1000),
      lastActivity: m.activity,
      printSeconds: view.printSeconds,
      lastFilepos: view.filepos,
      size: view.size,
    };
  }

  private endExternalAs(m: MappedState): void {
    const ext = this.external!;
    const pending = this.pendingEnd && (this.pendingEnd.file === ext.file_name || `/${this.pendingEnd.file}` === ext.file_name) ? this.pendingEnd : null;
    this.pendingEnd = null;
    const status = pending?.status ?? inferEnd({ now: m, lastActivity: ext.lastActivity, cancelRequested: false, lastFilepos: ext.lastFilepos, size: ext.size, lastProgress: ext.progress });
    this.ready = false;
    this.endExternal({
      status,
      printSeconds: ext.printSeconds,
      extrudedMm: null,
      message: status === 'failed' ? (m.message ?? pending?.message ?? 'the print failed') : undefined,
    });
  }

  private emitProgress(job: OctoPrintJob): void {
    this.jobProgress(job, Math.round(job.progress * 100) / 100);
  }

  // ---------------------------------------------------------------- jobs

  async startJob(req: JobStartRequest): Promise<JobHandle> {
    this.requireStartable();
    const remoteName = req.remoteName ?? `${req.jobId}.gcode`;
    const [index, info] = await Promise.all([this.indexes.forFile(req.filePath, 'marlin'), stat(req.filePath)]);
    this.requireIdle('start a job');
    const start = instantOf(this.clock);
    const job = new OctoPrintJob(req.jobId, req.filePath, remoteName, info.size, index, start, () => this.clock.monotonic());
    this.jobStartMono = start.monotonic;
    const upload = (): Promise<void> => this.http.upload('/api/files/local', req.filePath, remoteName, { select: 'true', print: 'true' }).then(() => undefined);
    const handle = await this.launch(job, upload, (err) => this.actionError(err, 'start a job'));
    void this.refreshSoon();
    return handle;
  }

  async adoptJob(req: JobStartRequest & { startedAt: number }): Promise<JobHandle | null> {
    const first = this.adoption(req.jobId);
    if (first.step !== 'look') return first.step === 'same' ? first.handle : null;
    if (this.status === 'offline' || this.status === 'connecting') await this.refresh();
    if (this.status !== 'printing' && this.status !== 'paused') return null;
    const remoteName = req.remoteName ?? `${req.jobId}.gcode`;
    const ext = this.external;
    if (!ext || !isOurUpload({ fileName: ext.file_name, filepos: null, size: null, progress: 0, printSeconds: null }, remoteName)) return null;
    const [index, info] = await Promise.all([this.indexes.forFile(req.filePath, 'marlin'), stat(req.filePath)]);
    if (this.external !== ext) return null;
    // Our monotonic clock did not run before our restart: OctoPrint's printTime says how long it has printed (else the
    // stored wall-clock start, the one reading left of it).
    const start = adoptedStart(instantOf(this.clock), req.startedAt, ext.printSeconds);
    const job = new OctoPrintJob(req.jobId, req.filePath, remoteName, info.size, index, start, () => this.clock.monotonic());
    job.seenPrinting = true;
    job.update(ext.lastFilepos, ext.progress, ext.lastActivity);
    return this.adopted(job, () => true);
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
    // OctoPrint answers at once but shows Cancelling until Marlin's buffered moves ran: pending meanwhile.
    return this.cancelJob(
      () => this.jobCommand({ command: 'cancel' }, 'cancel', () => this.job !== job),
      (err) => this.log(`${this.printerId}: cancel failed: ${err.message}`),
    );
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

  private waitFor(until: (m: MappedState) => boolean): Waiting {
    return this.waiters.wait(until, this.actionTimeoutMs, () => new AppError(409, 'invalid_state', `OctoPrint did not reach the state within ${this.actionTimeoutMs} ms`));
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
    this.requireCoolable();
    await this.postCommands(['M104 S0', 'M140 S0', 'M107'], 'cool down');
  }

  emergencyStop(): void {
    this.requireLink();
    this.emergencyStopped(
      () => this.postCommands(['M112'], 'emergency stop'),
      (err) => this.log(`${this.printerId}: emergency stop: ${err.message}`),
      'emergency stop (M112) sent',
    );
  }

  /** POST /api/printer/command; the reply is read from the push socket's terminal log (`Send:` then `Recv:` up to `ok`). */
  sendCommand(text: string): Promise<CommandReply> {
    return this.consoleCommand(text, true, (command) => this.command(command));
  }

  private async command(command: string): Promise<CommandReply> {
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

  private requireJob(action: string, statuses: PrinterStatus[]): OctoPrintJob {
    const job = this.job;
    if (!job || !statuses.includes(this.status)) throw wrongState(this.printerId, action, this.status);
    return job;
  }

  private failMatchers(): void {
    for (const m of [...this.matchers]) m.done({ ok: false, lines: [] });
  }

  /** The socket went down: replies still awaited there will not come. */
  private failMatchersSoon(): void {
    for (const m of [...this.matchers]) m.done({ ok: true, lines: [] });
  }

}

function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
