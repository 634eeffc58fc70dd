// One live printer link: owns the transport, one HostProtocol and one timer; connects, pumps, and hands the rest to
// its parts: the handshake (session-handshake), keep-alive (session-keepalive) and job control (session-job-control).
// Over 400 lines on purpose: connecting, the pump and fault handling all change the same link state (transport,
// protocol, link generation, status), and keeping that state in one class keeps its invariants in one place.
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { AppError, badRequest } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import { ExtrusionTracker, extrusionDialectFor } from '../protocol/extrusion-tracker.js';
import { HostProtocol } from '../protocol/host-protocol.js';
import { checkLine, stripGcodeLine } from '../protocol/framing.js';
import type { FirmwareProfile, FirmwareScripts } from '../protocol/firmware-profile.js';
import type { FirmwareInfo, ProtocolAction, ProtocolStats, Temperatures } from '../protocol/protocol-types.js';
import { createTransport } from '../transport/open-transport.js';
import type { Transport, TransportOptions } from '../transport/transport.js';
import { GENERIC_PROFILE_NAME, profileByName, profileForFirmwareName, withCapabilities } from './firmware-profiles.js';
import {
  printerBusy,
  printerOffline,
  wrongState,
  type CommandReply,
  type PrinterSnapshot,
  type PrinterStatus,
} from './printer-state.js';
import type { CommandCallback, ConsoleEntry } from './session-context.js';
import { SessionHandshake, splitProfileParam, type HandshakeContext } from './session-handshake.js';
import { SessionJobControl, type JobHandle } from './session-job-control.js';
import type { JobStartRequest, PrinterLink } from './printer-link.js';
import { SessionKeepAlive } from './session-keepalive.js';
import { SessionMeatPack } from './session-meatpack.js';
import { SessionTimer } from './session-timer.js';
import { ReconnectPolicy, type ReconnectPolicyOptions } from './reconnect-policy.js';
import { HeaterTargets, cooldownScript } from './session-scripts.js';
import { PreparedGcodeCache } from './prepared-gcode-cache.js';

/** How long a restarted firmware may take to say it is ready (Klipper reconnecting its MCUs) before the link is dropped. */
const READY_AFTER_RESTART_MS = 120_000;
export type { ConsoleEntry } from './session-context.js';
export type { JobHandle } from './session-job-control.js';
export { splitProfileParam } from './session-handshake.js';

export interface PrinterSessionOptions {
  printerId: string;
  /** Connection URL; an extra `profile=NAME` query parameter forces a firmware profile instead of M115 detection. */
  url: string;
  bus: EventBus;
  /** Durations and timeouts run on its monotonic reading, so a wall-clock jump mid-print changes none of them. */
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
  /** Replaces some of the firmware profile's pause/resume/cancel/cooldown scripts (a machine's own park or purge). */
  scripts?: Partial<FirmwareScripts>;
  /** Asked at each pause: turn the heaters off while paused (the organization's `cool_on_pause`). Default: never. */
  coolOnPause?: () => Promise<boolean>;
  /** Files read and parsed once for every printer printing them: pass one per program; default, one of its own. */
  preparedFiles?: PreparedGcodeCache;
}

/** How long a disconnect waits for a cancel script the printer still runs (its job already ended). */
export const CANCEL_SCRIPT_GRACE_MS = 2_000;

export class PrinterSession implements PrinterLink {
  readonly printerId: string;
  readonly url: string;
  private readonly transportUrl: string;
  private readonly forcedProfile: string | undefined;
  private readonly scriptOverrides: Partial<FirmwareScripts> | undefined;
  private readonly coolOnPause: () => Promise<boolean>;
  private readonly bus: EventBus;
  private readonly clock: Clock;
  private readonly makeTransport: (url: string, opts: TransportOptions) => Transport;
  private readonly autoReconnect: boolean;
  private readonly policy: ReconnectPolicy;
  private readonly preparedFiles: PreparedGcodeCache;

  private status: PrinterStatus = 'offline';
  private error: { code: string; message: string } | null = null;
  private firmware: FirmwareInfo | null = null;
  private profile: FirmwareProfile;
  private temperatures: Temperatures = {};
  private readonly targets = new HeaterTargets();
  /**
   * Filament the firmware ran on this link, fed every acknowledged line in the order the firmware ran them: job lines
   * and the commands between them (pause/resume/cancel scripts, console). One tracker, so a script's M83 or G92 E and
   * the job's absolute E stay one coherent E position. A new link or a firmware restart starts it from boot state.
   */
  private extrusion: ExtrusionTracker;

  private transport: Transport | null = null;
  private protocol: HostProtocol | null = null;
  /** The protocol of the last link, kept for stats() after the link is gone. */
  private lastProtocol: HostProtocol | null = null;
  /** When the current link was identified (wall-clock ms, shown to people); null while not connected. */
  private connectedAt: number | null = null;
  /** The line rate of the last identified link, kept while offline; null when it has none or it is unknown. */
  private baudRate: number | null = null;
  /** Bumped on every open and every loss: callbacks of an older link are ignored. */
  private linkGen = 0;
  private connecting: Promise<void> | null = null;
  /** A reset line came: the firmware is not ready until its profile's readyPattern line (Klipper after a RESTART). */
  private restartedNotReady = false;
  private readySeen = false;
  /** Settles the wait for the ready line: with no error when it came, with one on a timeout or an aborted handshake. */
  private readyWait: ((err?: Error) => void) | null = null;
  /** disconnect() was called: no reconnect until connect() again. */
  private stopped = true;

  private readonly pending = new Map<number, CommandCallback>();
  private readonly consoleListeners = new Set<(e: ConsoleEntry) => void>();

  /** The one timer, re-armed to the earliest of the protocol's deadline and the session's own. */
  private readonly timer: SessionTimer;
  private flushQueued = false;
  /** What the protocol wrote during this flush: framed lines, all of them leave in one write. */
  private out = '';
  /** Framed lines to link bytes (plain text; a per-printer packing stage plugs in here). */
  private readonly flushMicrotask = (): void => this.flush();

  private readonly handshake: SessionHandshake;
  private readonly keepAlive: SessionKeepAlive;
  private readonly jobs: SessionJobControl;
  /** The link's line encoder (text or MeatPack) and its negotiation. */
  private readonly meatpack: SessionMeatPack;

  constructor(opts: PrinterSessionOptions) {
    this.printerId = opts.printerId;
    this.url = opts.url;
    const { transportUrl, profile } = splitProfileParam(opts.url);
    this.transportUrl = transportUrl;
    this.forcedProfile = opts.profile ?? profile;
    this.scriptOverrides = opts.scripts;
    this.coolOnPause = opts.coolOnPause ?? (() => Promise.resolve(false));
    this.bus = opts.bus;
    this.clock = opts.clock ?? systemClock;
    this.makeTransport = opts.createTransport ?? createTransport;
    this.autoReconnect = opts.autoReconnect ?? true;
    this.policy = new ReconnectPolicy(opts.reconnect);
    this.preparedFiles = opts.preparedFiles ?? new PreparedGcodeCache();
    this.timer = new SessionTimer(this.clock, () => this.protocol?.nextDeadline() ?? null, () => this.timerFired());
    // Validates a forced profile name at construction: bad configuration fails at start, not mid-print.
    this.profile = this.withScripts(profileByName(this.forcedProfile ?? GENERIC_PROFILE_NAME));
    this.extrusion = new ExtrusionTracker(extrusionDialectFor(this.profile.name));
    const ctx = this.context();
    this.handshake = new SessionHandshake(ctx, {
      drainQuietMs: opts.drainQuietMs ?? 300,
      drainMaxMs: opts.drainMaxMs ?? 2500,
      timeoutMs: opts.handshakeTimeoutMs ?? 4000,
      attempts: opts.handshakeAttempts ?? 2,
    });
    this.keepAlive = new SessionKeepAlive(ctx, opts.temperaturePollMs ?? 2000);
    this.jobs = new SessionJobControl(ctx);
    this.meatpack = new SessionMeatPack(ctx);
  }

  /** The session as its parts see it: reads through getters, changes through the session's own methods. */
  private context(): HandshakeContext {
    return {
      printerId: this.printerId,
      bus: this.bus,
      clock: this.clock,
      timer: this.timer,
      targets: this.targets,
      preparedFiles: this.preparedFiles,
      status: () => this.status,
      setStatus: (s) => this.setStatus(s),
      profile: () => this.profile,
      protocol: () => this.protocol,
      extrusion: () => this.extrusion,
      temperatures: () => this.temperatures,
      coolOnPause: () => this.coolOnPause(),
      send: (text, cb) => this.sendInternal(text, cb),
      command: (text) => this.command(text),
      runScript: (lines) => this.runScript(lines),
      flush: () => this.flush(),
      emitConsole: (direction, kind, text) => this.emitConsole(direction, kind, text),
      newProtocol: () => this.newProtocol(),
      expectReply: (id, cb) => this.pending.set(id, cb),
      forgetReply: (id) => this.pending.delete(id),
    };
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
      ready: this.jobs.ready,
      firmware: this.firmware
        ? { name: this.firmware.name, profile: this.profile.name, capabilities: { ...this.firmware.capabilities } }
        : null,
      temperatures: { ...this.temperatures },
      job: this.jobs.snapshot(),
      error: this.error ? { ...this.error } : null,
    };
  }

  /** Counters of the current link's protocol (the stream summary reads them). */
  stats(): ProtocolStats | null {
    const p = this.protocol ?? this.lastProtocol;
    return p ? { ...p.stats } : null;
  }

  /** When the current link was identified and its line rate, for a connection panel (the printer record's `serial`). */
  linkInfo(): { connectedAt: number | null; baudRate: number | null } {
    return { connectedAt: this.connectedAt, baudRate: this.baudRate };
  }

  /** Whether lines go MeatPack-packed on the current link (false while offline). */
  get meatpackActive(): boolean {
    return this.transport !== null && this.meatpack.packing;
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
    this.timer.unschedule('reconnect');
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
    this.timer.unschedule('reconnect');
    if (this.connecting) await this.connecting.catch(() => undefined);
    return this.startAttempt();
  }

  /**
   * Closes the link for good (until connect()), once a cancel script the printer still runs is done (2 s at most); a
   * running job fails with `session_closed`.
   */
  async disconnect(): Promise<void> {
    this.stopped = true;
    this.timer.unschedule('reconnect');
    // A cancel answered before its script ran to the end: let the printer take the rest (heaters off) first.
    await this.jobs.cancelScriptDone(CANCEL_SCRIPT_GRACE_MS);
    const wasOnline = this.status !== 'offline';
    this.jobs.fail('session_closed', 'the printer session was closed');
    await this.dropLink(new AppError(409, 'printer_offline', `printer ${this.printerId} was disconnected`));
    this.timer.clear();
    this.error = null;
    if (wasOnline || this.status !== 'offline') {
      this.setStatus('offline');
      this.bus.emit('printer.offline', { printer_id: this.printerId, reason: 'disconnected' });
    }
  }

  /** Starts streaming a file; rejects with a typed error unless idle and ready. */
  async startJob(req: JobStartRequest): Promise<JobHandle> {
    this.requireIdle('start a job');
    return this.jobs.start(req);
  }

  /** Marks the bed cleared after a print so the next job may start. */
  markReady(): void {
    this.jobs.ready = true;
  }

  /** Stops feeding, lets the queued lines finish, remembers position and temperatures, parks. Resolves when parked. */
  pause(): Promise<void> {
    return this.jobs.pause();
  }

  /** Reheats, returns to the remembered position, restores E and the modes, and streams on. */
  resume(): Promise<void> {
    return this.jobs.resume();
  }

  /**
   * Drops what is queued, runs the profile's cancel script; resolves once the job ended (`cancelled`: the script's
   * filament lines ran, the printer finishes the rest on its own), or at once with `pending` when a blocking wait the
   * firmware cannot break must end first (see SessionJobControl.cancel).
   */
  cancel(): Promise<'cancelled' | 'pending'> {
    return this.jobs.cancel();
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
    p.emergencyStop(this.clock.monotonic());
    this.flush();
    this.emitConsole('sent', 'command', 'M112 (emergency stop)');
    this.jobs.fail('emergency_stop', 'emergency stop (M112) sent');
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
    this.timer.schedule('reconnect', this.policy.nextDelay(), () => {
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
      await this.identify(gen, transport);
    } catch (err) {
      if (gen === this.linkGen) await this.dropLink(null);
      throw err;
    }
  }

  /** The handshake on this link, then the profile and keep-alive; idle and `printer.online` when it all worked. */
  private async identify(gen: number, transport: Transport): Promise<void> {
    const info = await this.handshake.run(transport, () => gen === this.linkGen, async (found) => {
      this.firmware = found;
      const base = this.withScripts(this.forcedProfile === undefined ? profileForFirmwareName(found.name) : profileByName(this.forcedProfile));
      const profile = withCapabilities(base, found.capabilities);
      if (profile !== this.profile) {
        this.profile = profile;
        this.protocol!.setProfile(profile);
      }
      try {
        if (this.restartedNotReady && profile.readyPattern) await this.untilReady();
      } finally {
        // Once only: a failed wait leaves the next attempt a plain handshake, never a wait for a line already gone.
        this.restartedNotReady = false;
        this.readyWait?.(new Error('the handshake ended'));
      }
      // The dialect is known now; nothing sent during the handshake moved filament.
      this.extrusion = new ExtrusionTracker(extrusionDialectFor(this.profile.name));
      await this.meatpack.negotiate(found, (bytes) => {
        if (gen === this.linkGen) transport.write(bytes);
      });
      await this.keepAlive.start(found);
    });
    this.error = null;
    this.connectedAt = this.clock.now();
    this.baudRate = transport.baudRate ?? null;
    this.setStatus('idle');
    this.bus.emit('printer.online', { printer_id: this.printerId, firmware: info.name });
  }

  /**
   * After a restart, until the firmware says it is ready (Klipper's `// Klipper state: Ready`, seconds after its
   * `Disconnect`): the link stays `connecting`, so no job is sent to a printer that would refuse it. Also resolves when
   * the line came during the handshake itself.
   */
  private untilReady(): Promise<void> {
    if (this.readySeen) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.readyWait?.(new Error(`the printer did not report ready within ${READY_AFTER_RESTART_MS / 1000} s of its restart`)), READY_AFTER_RESTART_MS);
      this.readyWait = (err) => {
        clearTimeout(timer);
        this.readyWait = null;
        if (err) reject(err);
        else resolve();
      };
    });
  }

  private newProtocol(): void {
    this.protocol = new HostProtocol({ profile: this.profile });
    this.lastProtocol = this.protocol;
    this.meatpack.reset();
    this.meatpack.restartWatch();
    this.targets.reset();
    // A new protocol means a board just opened (DTR reset) or restarted: its E position and modes are at boot state.
    this.extrusion = new ExtrusionTracker(extrusionDialectFor(this.profile.name));
    this.keepAlive.reset();
  }

  // ---------------------------------------------------------------- link events

  private lineIn(line: string): void {
    if (this.restartedNotReady && this.profile.readyPattern && new RegExp(this.profile.readyPattern).test(line)) {
      this.readySeen = true;
      this.readyWait?.();
    }
    if (this.handshake.draining) {
      this.handshake.noise();
      this.emitConsole('received', 'noise', line);
      return;
    }
    // MeatPack's state reports are between the firmware's unpacker and us: the protocol never sees them.
    if (line.startsWith('[MP]') && this.meatpack.report(line)) {
      this.emitConsole('received', 'info', line);
      return;
    }
    const p = this.protocol;
    if (!p) return;
    p.lineReceived(line, this.clock.monotonic());
    // Lines of one read arrive back to back: apply their actions and write once, after the last of them.
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(this.flushMicrotask);
    }
  }

  private drained(): void {
    this.protocol?.setWritable(true, this.clock.monotonic());
    this.flush();
  }

  private linkClosed(err: Error | null): void {
    const reason = err ? err.message : 'the link was closed';
    this.linkGen++;
    this.transport = null;
    this.protocol = null;
    this.handshake.abort(new Error(reason));
    this.failPending(new AppError(409, 'printer_offline', `printer ${this.printerId} went offline: ${reason}`));
    this.jobs.fail('link_lost', `the link to the printer was lost: ${reason}`);
    this.keepAlive.stop();
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
    this.keepAlive.stop();
    this.handshake.abort(reason ?? new Error('link closed'));
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
        if (!this.handshake.draining) this.jobs.feed(p);
        const actions = p.takeActions();
        if (actions.length === 0) break;
        for (const a of actions) this.apply(a);
        if (this.protocol !== p) break;
      }
      this.meatpack.watch(p.stats);
      if (this.out !== '') {
        const data = this.out;
        this.out = '';
        const t = this.transport;
        if (t && this.protocol === p) {
          let ok = true;
          try {
            // The line encoder is the last stage: framed text in, the link's bytes (text or MeatPack) out.
            ok = t.write(this.meatpack.encoder.encode(data));
          } catch {
            // The link is going away; onClose reports it.
          }
          if (!ok) p.setWritable(false, this.clock.monotonic());
        }
      }
    }
    this.timer.arm();
  }

  private apply(a: ProtocolAction): void {
    switch (a.type) {
      case 'write':
        this.out += a.data;
        return;
      case 'job-acked':
        this.jobs.acked(a.bytes);
        return;
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
        this.handshake.firmwareInfo(a.info);
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
        this.jobs.fail('firmware_error', `the firmware reported a fatal error: ${a.text}`);
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
    this.restartedNotReady = true;
    this.readySeen = false;
    this.emitConsole('received', 'info', 'firmware restarted');
    this.jobs.fail('firmware_reset', 'the printer restarted (firmware reset) mid-print; line numbers were reset');
    this.failPending(new AppError(409, 'printer_offline', 'the printer restarted before answering'));
    // The board starts from scratch: identify it again on the same link (autoreport is off after a reset).
    const gen = this.linkGen;
    const transport = this.transport;
    this.setStatus('connecting');
    const again = this.identify(gen, transport).then(
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
    this.jobs.fail(code, message);
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
    this.jobs.abandonPause(new AppError(409, 'invalid_state', message));
    // The halt the firmware reports after our M112 is its consequence: the emergency stop stays the reason.
    if (this.status === 'error' && this.error?.code === 'emergency_stop') return;
    this.error = { code, message };
    if (this.status === 'error') return;
    this.setStatus('error');
    this.bus.emit('printer.error', { printer_id: this.printerId, reason: message, firmware: this.firmware?.name });
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

  /** Sends script lines back to back (the protocol paces them) and resolves with every reply, in order. */
  private runScript(lines: string[]): Promise<CommandReply[]> {
    return Promise.all(lines.map((l) => this.command(l)));
  }

  /** Queues a command; the callback gets the reply, or null and the error when the link/printer fails first. */
  private sendInternal(text: string, cb: CommandCallback): void {
    const p = this.protocol;
    if (!p || !this.transport) {
      cb(null, printerOffline(this.printerId, this.status));
      return;
    }
    // Every line sent passes here or through the job's rules: the heater targets follow what the firmware was told.
    this.targets.observe(text);
    this.emitConsole('sent', 'command', text);
    const id = p.sendCommand(text, this.clock.monotonic());
    this.pending.set(id, (reply, err) => {
      // Called while the protocol's actions are applied, in acknowledgement order with the job's lines: the tracker sees
      // the lines in the order the firmware ran them. A refused line moved nothing.
      if (reply?.ok) this.extrusion.update(stripGcodeLine(text));
      cb(reply, err);
    });
    this.flush();
  }

  private failPending(err: Error): void {
    if (this.pending.size === 0) return;
    const cbs = [...this.pending.values()];
    this.pending.clear();
    for (const cb of cbs) cb(null, err);
  }

  /** After the due session deadlines ran: let the protocol see the time (ok-timeouts), then pump. */
  private timerFired(): void {
    const p = this.protocol;
    if (p) {
      const now = this.clock.monotonic();
      const due = p.nextDeadline();
      if (due !== null && due <= now) p.tick(now);
    }
    this.flush();
  }

  // ---------------------------------------------------------------- small helpers

  /** The profile with this printer's own scripts in place of the profile's. */
  private withScripts(profile: FirmwareProfile): FirmwareProfile {
    const o = this.scriptOverrides;
    if (!o) return profile;
    return Object.freeze({ ...profile, scripts: { ...profile.scripts, ...o } });
  }

  private setStatus(status: PrinterStatus): void {
    this.status = status;
    // Identified links go idle in identify(); every way down passes through offline or connecting (a firmware reset).
    if (status === 'offline' || status === 'connecting') this.connectedAt = null;
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
