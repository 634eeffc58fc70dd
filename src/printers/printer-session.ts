// One live printer link: owns the transport, one HostProtocol and one timer; handshake, job streaming, pause/resume, reconnect.
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { AppError, badRequest } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import { HostProtocol } from '../protocol/host-protocol.js';
import { checkLine, stripGcodeLine } from '../protocol/framing.js';
import type { FirmwareProfile } from '../protocol/firmware-profile.js';
import type { FirmwareInfo, ProtocolAction, ProtocolStats, Temperatures } from '../protocol/protocol-types.js';
import { createTransport } from '../transport/open-transport.js';
import type { Transport, TransportOptions } from '../transport/transport.js';
import { GENERIC_PROFILE_NAME, profileByName, profileForFirmwareName } from './firmware-profiles.js';
import { JobStream } from './job-stream.js';
import {
  printerBusy,
  printerOffline,
  wrongState,
  type CommandReply,
  type JobFailureCode,
  type JobOutcome,
  type JobSnapshot,
  type PrinterSnapshot,
  type PrinterStatus,
} from './printer-state.js';
import { SessionTimer } from './session-timer.js';
import { ReconnectPolicy, type ReconnectPolicyOptions } from './reconnect-policy.js';
import { HeaterTargets, cancelScript, cooldownScript, pauseScript, resumeScript, type PausedState } from './session-scripts.js';

export interface PrinterSessionOptions {
  printerId: string;
  /** Connection URL; an extra `profile=NAME` query parameter forces a firmware profile instead of M115 detection. */
  url: string;
  bus: EventBus;
  clock?: Clock;
  /** Forces a profile by name (wins over the URL's `profile=`). */
  profile?: string;
  /** Builds the transport (tests and the simulator hook in here); defaults to createTransport. */
  createTransport?: (url: string, opts: TransportOptions) => Transport;
  /** Reconnect by itself after a lost link or a failed connect (hot-plug). Default true. */
  autoReconnect?: boolean;
  reconnect?: ReconnectPolicyOptions;
  /** Boot noise: the handshake starts after this much silence (default 300 ms)... */
  drainQuietMs?: number;
  /** ...or after this long at most (default 2500 ms: an AVR bootloader waits ~1-2 s after the DTR reset). */
  drainMaxMs?: number;
  /** How long one handshake attempt waits for the M115 answer (default 4000 ms). */
  handshakeTimeoutMs?: number;
  /** Handshake attempts per baud rate before trying the next rate or giving up (default 2). */
  handshakeAttempts?: number;
  /** M105 polling interval when the firmware cannot autoreport (default 2000 ms). */
  temperaturePollMs?: number;
}

/** A unsolicited or sent line, for a console view. */
export interface ConsoleEntry {
  direction: 'sent' | 'received';
  kind: 'command' | 'info' | 'warning' | 'fatal' | 'busy' | 'action' | 'noise';
  text: string;
}

export interface JobHandle {
  id: string;
  /** Settles when the job completes, fails or is cancelled (never rejects). */
  finished: Promise<JobOutcome>;
  /** The job's counters, also after it ended. */
  snapshot(): JobSnapshot;
}

type CommandCallback = (reply: CommandReply | null, error: Error | null) => void;

/**
 * Parses `profile=` out of a serial or tcp URL so the transport never sees a parameter it does not know. In a sim://
 * URL `profile=` picks the simulated firmware: it stays for the simulator and the host still detects via M115.
 */
export function splitProfileParam(url: string): { transportUrl: string; profile: string | undefined } {
  const q = url.indexOf('?');
  if (q === -1 || /^sim:/i.test(url.trim())) return { transportUrl: url, profile: undefined };
  const params = new URLSearchParams(url.slice(q + 1));
  const profile = params.get('profile') ?? undefined;
  if (profile === undefined) return { transportUrl: url, profile: undefined };
  params.delete('profile');
  const rest = params.toString();
  return { transportUrl: url.slice(0, q) + (rest ? `?${rest}` : ''), profile };
}

/** Baud rates to try on this link: several only for a serial URL that named none (the transport switches in place). */
function baudsToTry(t: Transport): Array<number | undefined> {
  const c = t.baudCandidates;
  return c && c.length > 1 && t.setBaudRate ? [...c] : [undefined];
}

export class PrinterSession {
  readonly printerId: string;
  readonly url: string;
  private readonly transportUrl: string;
  private readonly forcedProfile: string | undefined;
  private readonly bus: EventBus;
  private readonly clock: Clock;
  private readonly makeTransport: (url: string, opts: TransportOptions) => Transport;
  private readonly autoReconnect: boolean;
  private readonly policy: ReconnectPolicy;
  private readonly drainQuietMs: number;
  private readonly drainMaxMs: number;
  private readonly handshakeTimeoutMs: number;
  private readonly handshakeAttempts: number;
  private readonly pollMs: number;

  private status: PrinterStatus = 'offline';
  private error: { code: string; message: string } | null = null;
  private ready = true;
  private firmware: FirmwareInfo | null = null;
  private profile: FirmwareProfile;
  private temperatures: Temperatures = {};
  private readonly targets = new HeaterTargets();

  private transport: Transport | null = null;
  private protocol: HostProtocol | null = null;
  /** The protocol of the last link, kept for stats() after the link is gone. */
  private lastProtocol: HostProtocol | null = null;
  /** Bumped on every open and every loss: callbacks of an older link are ignored. */
  private linkGen = 0;
  /** True while the handshake ignores boot noise (lines are not fed to the protocol). */
  private draining = false;
  private lastRxAt = 0;
  private connecting: Promise<void> | null = null;
  private abortHandshake: ((err: Error) => void) | null = null;
  /** disconnect() was called: no reconnect until connect() again. */
  private stopped = true;
  private autoreport = false;
  private pollOutstanding = false;

  private job: JobStream | null = null;
  private paused: PausedState | null = null;
  private pauseWaiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  private readonly pending = new Map<number, CommandCallback>();
  private readonly consoleListeners = new Set<(e: ConsoleEntry) => void>();

  /** The one timer, re-armed to the earliest of the protocol's deadline and the session's own. */
  private readonly timer: SessionTimer;
  private flushQueued = false;
  private out = '';
  private readonly flushMicrotask = (): void => this.flush();

  constructor(opts: PrinterSessionOptions) {
    this.printerId = opts.printerId;
    this.url = opts.url;
    const { transportUrl, profile } = splitProfileParam(opts.url);
    this.transportUrl = transportUrl;
    this.forcedProfile = opts.profile ?? profile;
    this.bus = opts.bus;
    this.clock = opts.clock ?? systemClock;
    this.makeTransport = opts.createTransport ?? createTransport;
    this.autoReconnect = opts.autoReconnect ?? true;
    this.policy = new ReconnectPolicy(opts.reconnect);
    this.drainQuietMs = opts.drainQuietMs ?? 300;
    this.drainMaxMs = opts.drainMaxMs ?? 2500;
    this.handshakeTimeoutMs = opts.handshakeTimeoutMs ?? 4000;
    this.handshakeAttempts = opts.handshakeAttempts ?? 2;
    this.pollMs = opts.temperaturePollMs ?? 2000;
    this.timer = new SessionTimer(this.clock, () => this.protocol?.nextDeadline() ?? null, () => this.timerFired());
    // Validates a forced profile name at construction: bad configuration fails at start, not mid-print.
    this.profile = profileByName(this.forcedProfile ?? GENERIC_PROFILE_NAME);
  }

  // ---------------------------------------------------------------- public API

  get currentStatus(): PrinterStatus {
    return this.status;
  }

  snapshot(): PrinterSnapshot {
    return {
      printer_id: this.printerId,
      url: this.url,
      status: this.status,
      ready: this.ready,
      firmware: this.firmware
        ? { name: this.firmware.name, profile: this.profile.name, capabilities: { ...this.firmware.capabilities } }
        : null,
      temperatures: { ...this.temperatures },
      job: this.job ? this.job.snapshot() : null,
      error: this.error ? { ...this.error } : null,
    };
  }

  /** Counters of the current link's protocol (the stream summary reads them). */
  stats(): ProtocolStats | null {
    const p = this.protocol ?? this.lastProtocol;
    return p ? { ...p.stats } : null;
  }

  /** Sent and unsolicited lines, for a console. Returns the unsubscribe function. */
  onConsole(listener: (e: ConsoleEntry) => void): () => void {
    this.consoleListeners.add(listener);
    return () => this.consoleListeners.delete(listener);
  }

  /**
   * Opens the link and runs the handshake. Resolves when idle; rejects with the reason when this attempt fails
   * (with autoReconnect the session keeps trying in the background). From `error`, reconnects to clear it.
   */
  connect(): Promise<void> {
    this.stopped = false;
    if (this.connecting) return this.connecting;
    if (this.status === 'idle' || this.status === 'printing' || this.status === 'paused') return Promise.resolve();
    this.unschedule('reconnect');
    return this.startAttempt();
  }

  /**
   * Closes the link and opens it again, from any state but a running job: the way out of `error` after an
   * emergency stop or a firmware halt. Opening the port resets a real board (DTR) and powers a simulated one on,
   * so the printer comes back from its halt; the handshake runs again. Resolves when idle.
   */
  async reconnect(): Promise<void> {
    if (this.status === 'printing' || this.status === 'paused') throw printerBusy(this.printerId, this.status);
    this.stopped = false;
    this.unschedule('reconnect');
    if (this.connecting) await this.connecting.catch(() => undefined);
    return this.startAttempt();
  }

  /** Closes the link for good (until connect()); a running job fails with `session_closed`. */
  async disconnect(): Promise<void> {
    this.stopped = true;
    this.unschedule('reconnect');
    const wasOnline = this.status !== 'offline';
    this.failJob('session_closed', 'the printer session was closed');
    await this.dropLink(new AppError(409, 'printer_offline', `printer ${this.printerId} was disconnected`));
    this.timer.clear();
    this.error = null;
    if (wasOnline || this.status !== 'offline') {
      this.setStatus('offline');
      this.bus.emit('printer.offline', { printer_id: this.printerId, reason: 'disconnected' });
    }
  }

  /** Starts streaming a file; rejects with a typed error unless idle and ready. */
  async startJob(req: { jobId: string; filePath: string }): Promise<JobHandle> {
    this.requireIdle('start a job');
    if (!this.ready) throw new AppError(409, 'printer_busy', `printer ${this.printerId} is waiting for the bed to be cleared`);
    const job = new JobStream(
      req.jobId,
      req.filePath,
      this.clock.now(),
      () => this.onJobReadable(job),
      (message) => this.onJobFileError(job, message),
    );
    this.job = job;
    this.setStatus('printing');
    // Every job starts its own numbering (M110 N0, sent once nothing else is in flight).
    this.protocol!.resetLineNumbers(this.clock.now());
    try {
      await job.source.open();
    } catch (err) {
      if (this.job === job) {
        this.job = null;
        if (this.status === 'printing') this.setStatus('idle');
      }
      throw err;
    }
    if (this.job !== job) throw printerOffline(this.printerId, this.status);
    this.bus.emit('job.started', { printer_id: this.printerId, job_id: job.id });
    this.flush();
    return { id: job.id, finished: job.finished, snapshot: () => job.snapshot() };
  }

  /** Marks the bed cleared after a print so the next job may start. */
  markReady(): void {
    this.ready = true;
  }

  /** Stops feeding, lets the queued lines finish, remembers position and temperatures, parks. Resolves when parked. */
  pause(): Promise<void> {
    const job = this.job;
    if (this.status !== 'printing' || !job) return Promise.reject(wrongState(this.printerId, 'pause', this.status));
    if (job.phase === 'pausing') return new Promise((resolve, reject) => this.pauseWaiters.push({ resolve, reject }));
    if (job.phase !== 'streaming') return Promise.reject(new AppError(409, 'invalid_state', `cannot pause while the job is ${job.phase}`));
    job.phase = 'pausing';
    const parked = new Promise<void>((resolve, reject) => this.pauseWaiters.push({ resolve, reject }));
    if (job.drained) this.park(job);
    this.flush();
    return parked;
  }

  /** Reheats, returns to the remembered position, restores E and the modes, and streams on. */
  async resume(): Promise<void> {
    const job = this.job;
    if (this.status !== 'paused' || !job || !this.paused) throw wrongState(this.printerId, 'resume', this.status);
    job.phase = 'resuming';
    const saved = this.paused;
    const replies = await this.runScript(resumeScript(this.profile, saved));
    if (this.job !== job || job.outcome) throw wrongState(this.printerId, 'resume', this.status);
    if (!replies.every((r) => r.ok)) {
      // The printer refused part of the way back: streaming on would print in the wrong place.
      job.phase = 'paused';
      throw new AppError(409, 'invalid_state', 'resume failed: the printer did not accept the return moves', replies.flatMap((r) => r.lines).join('\n'));
    }
    this.paused = null;
    job.phase = 'streaming';
    this.setStatus('printing');
    this.bus.emit('job.resumed', { printer_id: this.printerId, job_id: job.id });
    this.flush();
  }

  /** Drops what is queued, runs the profile's cancel script; resolves after the script ran. */
  async cancel(): Promise<void> {
    const job = this.job;
    if (!job || (this.status !== 'printing' && this.status !== 'paused')) throw wrongState(this.printerId, 'cancel', this.status);
    this.protocol?.clearJob();
    this.endJob(job, { status: 'cancelled' });
    this.setStatus('idle');
    await this.runScript(cancelScript(this.profile));
  }

  /** G28 when idle; resolves with the firmware's answer once homing finished. */
  async home(): Promise<CommandReply> {
    this.requireIdle('home');
    return this.command('G28');
  }

  /** Heaters and fans off (the profile's cooldown script); allowed when idle, paused or in error. */
  async cooldown(): Promise<void> {
    if (this.status !== 'idle' && this.status !== 'paused' && this.status !== 'error') {
      throw this.status === 'printing' ? printerBusy(this.printerId, this.status) : printerOffline(this.printerId, this.status);
    }
    await this.runScript(cooldownScript(this.profile));
  }

  /** M112 ahead of everything queued; the job fails and the printer goes to `error` until reconnected. */
  emergencyStop(): void {
    const p = this.protocol;
    if (!p || !this.transport) throw printerOffline(this.printerId, this.status);
    p.emergencyStop(this.clock.now());
    this.flush();
    this.emitConsole('sent', 'command', 'M112 (emergency stop)');
    this.failJob('emergency_stop', 'emergency stop (M112) sent');
    this.enterError('emergency_stop', 'emergency stop (M112) sent: reconnect to clear');
  }

  /** A free G-code command (console/API): resolves with the reply lines once its ok (or error) arrives. */
  async sendCommand(text: string): Promise<CommandReply> {
    if (/[\r\n]/.test(text)) throw badRequest('one command at a time: the text contains a line break');
    const stripped = stripGcodeLine(text);
    if (stripped === '') return { ok: true, lines: [] };
    if (/^M112(\s|$)/i.test(stripped)) {
      this.emergencyStop();
      return { ok: true, lines: [] };
    }
    const problem = checkLine(stripped, this.profile);
    if (problem !== null) throw badRequest(`the printer cannot take this command: ${problem}`);
    if (this.status === 'offline' || this.status === 'connecting') throw printerOffline(this.printerId, this.status);
    // A halted board ignores everything until it is reset: a command would only wait for an ok that never comes.
    if (this.status === 'error' && this.error?.code === 'emergency_stop') {
      throw new AppError(409, 'invalid_state', `printer ${this.printerId} is halted by an emergency stop`, 'reconnect to reset it');
    }
    return this.command(stripped);
  }

  // ---------------------------------------------------------------- connecting

  private startAttempt(): Promise<void> {
    const attempt = this.attempt();
    const tracked = attempt.then(
      () => {
        this.connecting = null;
        this.policy.reset();
      },
      (err: Error) => {
        this.connecting = null;
        if (!this.stopped) {
          this.error = { code: 'connect_failed', message: err.message };
          this.setStatus('offline');
          this.scheduleReconnect();
        }
        throw err;
      },
    );
    this.connecting = tracked;
    return tracked;
  }

  private scheduleReconnect(): void {
    if (!this.autoReconnect || this.stopped) return;
    this.schedule('reconnect', this.policy.nextDelay(), () => {
      if (this.stopped || this.connecting || this.status !== 'offline') return;
      this.startAttempt().catch(() => undefined);
    });
  }

  private async attempt(): Promise<void> {
    if (this.transport) await this.dropLink(null);
    const gen = ++this.linkGen;
    this.setStatus('connecting');
    const transport = this.makeTransport(this.transportUrl, {});
    await transport.open({
      onLine: (line) => {
        if (gen === this.linkGen) this.lineIn(line);
      },
      onDrain: () => {
        if (gen === this.linkGen) this.drained();
      },
      onClose: (err) => {
        if (gen === this.linkGen) this.linkClosed(err);
      },
    });
    if (gen !== this.linkGen || this.stopped) {
      await transport.close();
      throw new Error('connect abandoned');
    }
    this.transport = transport;
    try {
      await this.handshake(gen, transport);
    } catch (err) {
      if (gen === this.linkGen) await this.dropLink(null);
      throw err;
    }
  }

  private newProtocol(): void {
    this.protocol = new HostProtocol({ profile: this.profile });
    this.lastProtocol = this.protocol;
    this.targets.reset();
    this.pollOutstanding = false;
  }

  /** Boot noise, then M110 N0 + M115, profile choice, temperature reporting. Retries, then tries the next baud. */
  private async handshake(gen: number, transport: Transport): Promise<void> {
    const aborted = new Promise<never>((_, reject) => (this.abortHandshake = reject));
    aborted.catch(() => undefined);
    const guard = <T>(p: Promise<T>): Promise<T> => Promise.race([p, aborted]);
    try {
      const bauds = baudsToTry(transport);
      let info: FirmwareInfo | null = null;
      for (let b = 0; b < bauds.length && !info; b++) {
        const baud = bauds[b];
        if (b > 0 && baud !== undefined && transport.setBaudRate) await guard(transport.setBaudRate(baud));
        for (let i = 0; i < this.handshakeAttempts && !info; i++) {
          await guard(this.drainBootNoise());
          info = await guard(this.identify());
        }
      }
      if (gen !== this.linkGen) throw new Error('link lost during the handshake');
      if (!info) {
        const rates = bauds[0] === undefined ? '' : ` at ${bauds.join(' or ')} baud`;
        throw new Error(`no answer from the printer${rates} (M115 got no reply)`);
      }
      this.firmware = info;
      if (this.forcedProfile === undefined) {
        this.profile = profileForFirmwareName(info.name);
        this.protocol!.setProfile(this.profile);
      }
      const autoreport = this.profile.autoreportTemperature;
      this.autoreport = info.capabilities['AUTOREPORT_TEMP'] === true && autoreport !== null;
      if (this.autoreport) await guard(this.command(autoreport!));
      else this.schedule('poll', 0, () => this.pollTemperatures());
      if (gen !== this.linkGen) throw new Error('link lost during the handshake');
      this.error = null;
      this.setStatus('idle');
      this.bus.emit('printer.online', { printer_id: this.printerId, firmware: info.name });
    } finally {
      this.abortHandshake = null;
      this.unschedule('handshake');
    }
  }

  /** Waits for silence (or a cap) while lines are thrown away: garbage, `start`, echo: banners. */
  private drainBootNoise(): Promise<void> {
    this.draining = true;
    const started = this.clock.now();
    this.lastRxAt = started;
    return new Promise((resolve) => {
      const check = (): void => {
        const now = this.clock.now();
        const quietAt = this.lastRxAt + this.drainQuietMs;
        const capAt = started + this.drainMaxMs;
        if (now >= quietAt || now >= capAt) {
          this.draining = false;
          resolve();
        } else this.schedule('handshake', Math.min(quietAt, capAt) - now, check);
      };
      this.schedule('handshake', this.drainQuietMs, check);
    });
  }

  /** One identification try on a fresh protocol: M110 N0 then M115; null when no answer in time. */
  private identify(): Promise<FirmwareInfo | null> {
    this.newProtocol();
    const p = this.protocol!;
    let info: FirmwareInfo | null = null;
    this.firmwareInfoSink = (i) => (info = i);
    return new Promise((resolve) => {
      const done = (result: FirmwareInfo | null): void => {
        this.firmwareInfoSink = null;
        this.unschedule('handshake');
        resolve(result);
      };
      p.resetLineNumbers(this.clock.now());
      const id = p.sendCommand('M115', this.clock.now());
      this.pending.set(id, (reply) => {
        if (reply === null) return done(null);
        done(info ?? { name: 'unknown', fields: {}, capabilities: {} });
      });
      this.schedule('handshake', this.handshakeTimeoutMs, () => {
        this.pending.delete(id);
        done(null);
      });
      this.flush();
    });
  }

  private firmwareInfoSink: ((info: FirmwareInfo) => void) | null = null;

  private pollTemperatures(): void {
    if (this.autoreport || !this.protocol || this.status === 'offline' || this.status === 'connecting') return;
    if (!this.pollOutstanding) {
      this.pollOutstanding = true;
      this.sendInternal('M105', () => (this.pollOutstanding = false));
    }
    this.schedule('poll', this.pollMs, () => this.pollTemperatures());
  }

  // ---------------------------------------------------------------- link events

  private lineIn(line: string): void {
    if (this.draining) {
      this.lastRxAt = this.clock.now();
      this.emitConsole('received', 'noise', line);
      return;
    }
    const p = this.protocol;
    if (!p) return;
    p.lineReceived(line, this.clock.now());
    // Lines of one read arrive back to back: apply their actions and write once, after the last of them.
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(this.flushMicrotask);
    }
  }

  private drained(): void {
    this.protocol?.setWritable(true, this.clock.now());
    this.flush();
  }

  private linkClosed(err: Error | null): void {
    const reason = err ? err.message : 'the link was closed';
    this.linkGen++;
    this.transport = null;
    this.protocol = null;
    this.draining = false;
    this.abortHandshake?.(new Error(reason));
    this.failPending(new AppError(409, 'printer_offline', `printer ${this.printerId} went offline: ${reason}`));
    this.failJob('link_lost', `the link to the printer was lost: ${reason}`);
    this.unschedule('poll');
    const was = this.status;
    this.error = { code: 'link_lost', message: reason };
    this.setStatus('offline');
    if (was !== 'offline' && was !== 'connecting') this.bus.emit('printer.offline', { printer_id: this.printerId, reason });
    if (!this.connecting) this.scheduleReconnect();
  }

  /** Closes the current transport on purpose (its onClose is ignored); pending commands get `reason`. */
  private async dropLink(reason: Error | null): Promise<void> {
    const t = this.transport;
    this.linkGen++;
    this.transport = null;
    this.protocol = null;
    this.draining = false;
    this.unschedule('poll');
    this.abortHandshake?.(reason ?? new Error('link closed'));
    this.failPending(reason ?? new AppError(409, 'printer_offline', `printer ${this.printerId} link was closed`));
    if (t) await t.close().catch(() => undefined);
  }

  // ---------------------------------------------------------------- the pump

  /** Feeds the job, applies every protocol action, writes once, re-arms the timer. */
  private flush(): void {
    this.flushQueued = false;
    const p = this.protocol;
    if (p) {
      for (let round = 0; round < 16; round++) {
        const job = this.job;
        if (job && job.phase === 'streaming' && !this.draining) this.feedJob(job, p);
        const actions = p.takeActions();
        if (actions.length === 0) break;
        for (const a of actions) this.apply(a);
        if (this.protocol !== p) break;
      }
      if (this.out !== '') {
        const data = this.out;
        this.out = '';
        const t = this.transport;
        if (t && this.protocol === p) {
          let ok = true;
          try {
            ok = t.write(data);
          } catch {
            // The link is going away; onClose reports it.
          }
          if (!ok) p.setWritable(false, this.clock.now());
        }
      }
    }
    this.armTimer();
  }

  private feedJob(job: JobStream, p: HostProtocol): void {
    const failure = job.feed(p, this.lineRules, this.clock.now());
    if (failure) {
      p.clearJob();
      this.failJob(failure.code, failure.message);
      if (this.status === 'printing') this.setStatus('idle');
      return;
    }
    if (job.sourceDone && job.drained && job.phase === 'streaming') this.finishJob(job);
  }

  private readonly lineRules = {
    strip: stripGcodeLine,
    check: (text: string) => checkLine(text, this.profile),
    observe: (text: string) => this.observeSent(text),
  };

  private apply(a: ProtocolAction): void {
    switch (a.type) {
      case 'write':
        this.out += a.data;
        return;
      case 'job-acked': {
        const job = this.job;
        if (!job || job.outcome) return;
        if (job.acked(a.bytes, this.clock.now())) this.emitProgress(job);
        if (job.drained) {
          if (job.phase === 'pausing') this.park(job);
          else if (job.phase === 'streaming' && job.sourceDone) this.finishJob(job);
        }
        return;
      }
      case 'command-done': {
        const cb = this.pending.get(a.commandId);
        if (cb) {
          this.pending.delete(a.commandId);
          cb({ ok: a.ok, lines: a.lines }, null);
        }
        return;
      }
      case 'temperatures':
        this.temperatures = { ...this.temperatures, ...a.temperatures };
        return;
      case 'firmware-info':
        this.firmwareInfoSink?.(a.info);
        return;
      case 'busy':
        this.emitConsole('received', 'busy', a.text);
        return;
      case 'host-action':
        this.emitConsole('received', 'action', `//action:${a.name}${a.argument ? ' ' + a.argument : ''}`);
        this.hostAction(a.name);
        return;
      case 'info':
        this.emitConsole('received', 'info', a.text);
        return;
      case 'firmware-warning':
        this.emitConsole('received', 'warning', a.text);
        return;
      case 'firmware-fatal':
        this.emitConsole('received', 'fatal', a.text);
        this.protocol?.clearJob();
        this.failJob('firmware_error', `the firmware reported a fatal error: ${a.text}`);
        this.enterError('firmware_error', a.text);
        return;
      case 'firmware-reset':
        this.firmwareReset();
        return;
      case 'protocol-failure':
        this.protocolFailure(a.code, a.message);
        return;
    }
  }

  /** `//action:` lines from the printer's own menu: act as if the operator asked. */
  private hostAction(name: string): void {
    const ignore = (): void => undefined;
    if (name === 'pause' && this.status === 'printing') this.pause().catch(ignore);
    else if (name === 'resume' && this.status === 'paused') this.resume().catch(ignore);
    else if (name === 'cancel' && (this.status === 'printing' || this.status === 'paused')) this.cancel().catch(ignore);
  }

  private firmwareReset(): void {
    if (this.status === 'connecting' || !this.transport) return;
    this.emitConsole('received', 'info', 'firmware restarted');
    this.failJob('firmware_reset', 'the printer restarted (firmware reset) mid-print; line numbers were reset');
    this.failPending(new AppError(409, 'printer_offline', 'the printer restarted before answering'));
    // The board starts from scratch: identify it again on the same link (autoreport is off after a reset).
    const gen = this.linkGen;
    const transport = this.transport;
    this.setStatus('connecting');
    const again = this.handshake(gen, transport).then(
      () => {
        this.connecting = null;
      },
      async (err: Error) => {
        this.connecting = null;
        if (gen !== this.linkGen) return;
        await this.dropLink(null);
        this.error = { code: 'connect_failed', message: err.message };
        this.setStatus('offline');
        this.bus.emit('printer.offline', { printer_id: this.printerId, reason: err.message });
        this.scheduleReconnect();
      },
    );
    this.connecting = again;
  }

  private protocolFailure(code: Extract<ProtocolAction, { type: 'protocol-failure' }>['code'], message: string): void {
    // During the handshake the attempt's own timeout decides (next try, next baud); this protocol is thrown away.
    if (this.status === 'connecting') return;
    this.protocol?.clearJob();
    this.failJob(code, message);
    if (code === 'ok_timeout') {
      // The printer stopped answering: treat the link as lost and let the reconnect find it again.
      const t = this.transport;
      if (t) {
        void t.close();
        this.linkClosed(new Error(`no answer from the printer: ${message}`));
      }
      return;
    }
    this.enterError(code, message);
  }

  private enterError(code: string, message: string): void {
    this.failPending(new AppError(409, 'invalid_state', `printer ${this.printerId} is in error: ${message}`));
    this.rejectPauseWaiters(new AppError(409, 'invalid_state', message));
    this.paused = null;
    // The halt the firmware reports after our M112 is its consequence: the emergency stop stays the reason.
    if (this.status === 'error' && this.error?.code === 'emergency_stop') return;
    this.error = { code, message };
    if (this.status === 'error') return;
    this.setStatus('error');
    this.bus.emit('printer.error', { printer_id: this.printerId, reason: message, firmware: this.firmware?.name });
  }

  // ---------------------------------------------------------------- job life cycle

  private onJobReadable(job: JobStream): void {
    if (this.job === job && job.phase === 'streaming') this.flush();
  }

  private onJobFileError(job: JobStream, message: string): void {
    if (this.job !== job) return;
    this.protocol?.clearJob();
    this.failJob('file_invalid', message);
    if (this.status === 'printing') this.setStatus('idle');
    this.armTimer();
  }

  private finishJob(job: JobStream): void {
    job.phase = 'finishing';
    // The last line is acknowledged; M400 answers once the planner has executed every move.
    this.sendInternal('M400', (reply) => {
      if (this.job !== job || job.outcome) return;
      if (!reply) return;
      this.endJob(job, { status: 'completed' });
      if (this.status === 'printing') this.setStatus('idle');
    });
  }

  /** Every line sent passes here: the motion tracker and the heater targets follow what the firmware was told. */
  private observeSent(text: string): void {
    this.targets.observe(text);
  }

  private park(job: JobStream): void {
    // Every job line is acknowledged here, so the protocol's tracker of what was sent is where the nozzle is.
    const motion = this.protocol!.motion;
    const saved: PausedState = {
      position: { ...motion.position },
      relativeXyz: motion.isRelativeXyz,
      relativeE: motion.isRelativeE,
      hotendTarget: this.targets.hotend ?? this.temperatures.hotend_target ?? 0,
      bedTarget: this.targets.bed ?? this.temperatures.bed_target ?? 0,
    };
    this.paused = saved;
    const lines = pauseScript(this.profile, saved);
    this.runScript(lines).then(
      () => {
        if (this.job !== job || job.outcome || job.phase !== 'pausing') return;
        job.phase = 'paused';
        this.setStatus('paused');
        this.bus.emit('job.paused', { printer_id: this.printerId, job_id: job.id });
        const waiters = this.pauseWaiters;
        this.pauseWaiters = [];
        for (const w of waiters) w.resolve();
      },
      (err: Error) => this.rejectPauseWaiters(err),
    );
  }

  private rejectPauseWaiters(err: Error): void {
    const waiters = this.pauseWaiters;
    this.pauseWaiters = [];
    for (const w of waiters) w.reject(err);
  }

  private failJob(code: JobFailureCode | string, message: string): void {
    const job = this.job;
    if (!job) return;
    this.endJob(job, { status: 'failed', error: { code: code as JobFailureCode, message } });
  }

  private endJob(job: JobStream, outcome: JobOutcome): void {
    if (!job.end(outcome)) return;
    if (this.job === job) this.job = null;
    // Something was printed: the bed must be cleared before the next job (API `ready: false`).
    if (job.linesAcked > 0) this.ready = false;
    this.paused = null;
    const base = { printer_id: this.printerId, job_id: job.id };
    if (outcome.status === 'completed') {
      this.bus.emit('job.progress', {
        ...base,
        progress: 100,
        lines_acked: job.linesAcked,
        bytes_acked: job.bytesAcked,
      });
      this.bus.emit('job.completed', base);
    } else if (outcome.status === 'cancelled') {
      this.rejectPauseWaiters(new AppError(409, 'invalid_state', 'the job was cancelled'));
      this.bus.emit('job.cancelled', base);
    } else {
      this.rejectPauseWaiters(new AppError(409, 'invalid_state', outcome.error.message));
      this.bus.emit('job.failed', { ...base, error: outcome.error });
    }
  }

  private emitProgress(job: JobStream): void {
    this.bus.emit('job.progress', {
      printer_id: this.printerId,
      job_id: job.id,
      progress: job.progressPct(),
      lines_acked: job.linesAcked,
      bytes_acked: job.bytesAcked,
    });
  }

  // ---------------------------------------------------------------- commands

  private requireIdle(action: string): void {
    if (this.status === 'idle') return;
    if (this.status === 'printing' || this.status === 'paused') throw printerBusy(this.printerId, this.status);
    if (this.status === 'error') throw wrongState(this.printerId, action, this.status);
    throw printerOffline(this.printerId, this.status);
  }

  private command(text: string): Promise<CommandReply> {
    return new Promise((resolve, reject) => {
      this.sendInternal(text, (reply, err) => (reply ? resolve(reply) : reject(err)));
    });
  }

  /** Queues a command; the callback gets the reply, or null and the error when the link/printer fails first. */
  private sendInternal(text: string, cb: CommandCallback): void {
    const p = this.protocol;
    if (!p || !this.transport) {
      cb(null, printerOffline(this.printerId, this.status));
      return;
    }
    this.observeSent(text);
    this.emitConsole('sent', 'command', text);
    const id = p.sendCommand(text, this.clock.now());
    this.pending.set(id, cb);
    this.flush();
  }

  /** Sends script lines back to back (the protocol paces them) and resolves with every reply, in order. */
  private runScript(lines: string[]): Promise<CommandReply[]> {
    return Promise.all(lines.map((l) => this.command(l)));
  }

  private failPending(err: Error): void {
    if (this.pending.size === 0) return;
    const cbs = [...this.pending.values()];
    this.pending.clear();
    for (const cb of cbs) cb(null, err);
  }

  // ---------------------------------------------------------------- the timer

  private schedule(key: string, delayMs: number, fn: () => void): void {
    this.timer.schedule(key, delayMs, fn);
  }

  private unschedule(key: string): void {
    this.timer.unschedule(key);
  }

  private armTimer(): void {
    this.timer.arm();
  }

  /** After the due session deadlines ran: let the protocol see the time (ok-timeouts), then pump. */
  private timerFired(): void {
    const p = this.protocol;
    if (p) {
      const now = this.clock.now();
      const due = p.nextDeadline();
      if (due !== null && due <= now) p.tick(now);
    }
    this.flush();
  }

  // ---------------------------------------------------------------- small helpers

  private setStatus(status: PrinterStatus): void {
    this.status = status;
  }

  private emitConsole(direction: ConsoleEntry['direction'], kind: ConsoleEntry['kind'], text: string): void {
    if (this.consoleListeners.size === 0) return;
    for (const l of this.consoleListeners) {
      try {
        l({ direction, kind, text });
      } catch {
        // A console view must not break the session.
      }
    }
  }
}
