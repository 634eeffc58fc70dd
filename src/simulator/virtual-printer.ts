// A virtual 3D printer: firmware command handling over a modelled serial link, with fault injection and a record of what ran.
import { DIALECTS, type FirmwareDialect, type HeaterReport } from './firmware-dialects.js';
import { checkLine } from './line-check.js';
import { MotionState, Planner, word } from './motion-planner.js';
import { RealTimeScheduler, type SimScheduler, type SimTimer } from './sim-scheduler.js';
import { Downlink, Prng, ReceiveBuffer, Uplink } from './serial-link.js';
import type { SimulatorOptions } from './simulator-options.js';
import { BED, HOTEND, Heater } from './thermal-model.js';

/** hostWrite() returns false above this many bytes still on the wire, like a serial port's write stream. */
export const WRITE_HIGH_WATER = 16 * 1024;
/** Marlin MAX_CMD_SIZE minus the terminator: longer lines are cut, so their checksum fails. */
const MAX_LINE = 95;
/** Commands a host adds around a job (handshake, temperature polls); executedJobLines() leaves them out. */
export const HOUSEKEEPING = /^(M110|M105|M115|M155)(?!\d)/i;
/** Commands that wait on purpose: the planner running dry around them is not starvation. */
const DELIBERATE_WAITS = new Set(['G4', 'G28', 'G29', 'M400', 'M109', 'M190', 'M600', 'M0', 'M1', 'M226']);
const HOME_MS = 4000;
const PROBE_MS = 15000;

/** Commands the model accepts without an effect worth modelling (slicer boilerplate, settings, SD, fans, ...). */
const PLAIN = new Set(
  (
    'G10 G11 G20 G21 G80 M0 M1 M17 M18 M20 M21 M22 M23 M24 M25 M26 M27 M31 M42 M73 M75 M76 M77 M78 M80 M81 M84 ' +
    'M92 M106 M107 M108 M111 M117 M118 M119 M120 M121 M141 M149 M150 M191 M200 M201 M202 M203 M204 M205 M206 ' +
    'M207 M208 M209 M211 M217 M218 M220 M221 M226 M240 M250 M256 M260 M261 M280 M290 M300 M301 M302 M303 M304 ' +
    'M350 M355 M380 M381 M401 M402 M403 M404 M405 M406 M407 M412 M413 M420 M421 M422 M425 M486 M500 M501 M502 ' +
    'M503 M504 M510 M511 M512 M540 M550 M552 M555 M569 M572 M575 M584 M593 M600 M601 M602 M603 M701 M702 M710 ' +
    'M851 M862 M900 M906 M907 M913 M914 M915 M999 T0 T1 T2 T3'
  ).split(' '),
);

export interface SimulatorStats {
  /** Bytes that reached the firmware's receive buffer. */
  bytesReceived: number;
  /** Bytes that arrived while the receive buffer was full and were lost. */
  bytesLostOverflow: number;
  /** Bytes flushed from the receive buffer after a bad line, or ignored while booting or halted. */
  bytesDiscarded: number;
  bytesCorrupted: number;
  bytesLostOnWire: number;
  bytesSent: number;
  linesReceived: number;
  checksumErrors: number;
  sequenceErrors: number;
  resendsRequested: number;
  duplicatesSkipped: number;
  oksSent: number;
  oksDropped: number;
  /** Simulated ms the planner stood empty between two moves with no deliberate wait (G4, M109, ...) between. */
  starvationMs: number;
  starvationEvents: number;
}

const zeroStats = (): SimulatorStats => ({
  bytesReceived: 0,
  bytesLostOverflow: 0,
  bytesDiscarded: 0,
  bytesCorrupted: 0,
  bytesLostOnWire: 0,
  bytesSent: 0,
  linesReceived: 0,
  checksumErrors: 0,
  sequenceErrors: 0,
  resendsRequested: 0,
  duplicatesSkipped: 0,
  oksSent: 0,
  oksDropped: 0,
  starvationMs: 0,
  starvationEvents: 0,
});

interface Command {
  text: string;
  /** The line number it came with, or null. */
  n: number | null;
  code: string;
  words: string[];
}

type PrinterState = 'off' | 'booting' | 'ready' | 'halted' | 'unplugged' | 'closed';
/** Polled until the running command is done; null means done at once. */
type Resume = () => boolean;

export class VirtualPrinter {
  readonly options: SimulatorOptions;
  readonly dialect: FirmwareDialect;
  readonly scheduler: SimScheduler;
  /** Every command executed, N and checksum stripped, in order (empty when options.record is off). */
  readonly executed: string[] = [];
  executedCount = 0;
  /** FNV-1a over the executed commands, to compare long runs without keeping them. */
  executedHash = 0x811c9dc5;
  stats: SimulatorStats = zeroStats();

  private state: PrinterState = 'booting';
  private readonly timeScale: number;
  private readonly instant: boolean;
  private readonly rng: Prng;
  private readonly uplink: Uplink;
  private readonly downlink: Downlink;
  private readonly rx: ReceiveBuffer;
  private readonly planner: Planner;
  private motion = new MotionState();
  private readonly hotend: Heater;
  private readonly bed: Heater;
  private partial = '';
  private lastN = 0;
  private repetierIgnore = 0;
  private readonly queue: Command[] = [];
  private current: { cmd: Command; resume: Resume } | null = null;
  private okSuffix: string | null = null;
  private okCount = 0;
  private busyIntervalS: number;
  private autoreportS = 0;
  private timers = new Set<SimTimer>();
  private uplinkTimer: SimTimer | null = null;
  private busyTimer: SimTimer | null = null;
  private heatTimer: SimTimer | null = null;
  private autoreportTimer: SimTimer | null = null;
  private inService = false;
  private serviceAgain = false;
  private wantDrain = false;
  private readonly outputListeners: Array<(bytes: Buffer) => void> = [];
  private readonly unplugListeners: Array<() => void> = [];
  private readonly drainListeners: Array<() => void> = [];

  /** `start: false` leaves the board unpowered until start() (the transport powers it on open). */
  constructor(options: SimulatorOptions, deps: { scheduler?: SimScheduler; start?: boolean } = {}) {
    this.options = options;
    this.dialect = DIALECTS[options.profile];
    this.scheduler = deps.scheduler ?? new RealTimeScheduler();
    this.timeScale = options.speed === 'max' ? 1 : options.speed;
    this.instant = options.instant || options.speed === 'max';
    this.rng = new Prng(options.seed);
    const byteMs = options.baud === 0 ? 0 : 10_000 / options.baud / this.timeScale;
    const halfLatency = options.latencyMs / 2 / this.timeScale;
    this.uplink = new Uplink(byteMs, halfLatency, options.errorRate, options.lossRate, this.rng);
    this.downlink = new Downlink(byteMs, halfLatency, this.scheduler, (bytes) => {
      for (const l of this.outputListeners) l(bytes);
    });
    this.rx = new ReceiveBuffer(options.rx);
    this.planner = new Planner(options.planner, this.scheduler, () => this.service());
    this.hotend = new Heater(HOTEND, this.instant);
    this.bed = new Heater(BED, this.instant);
    this.busyIntervalS = options.busyIntervalS;
    if (deps.start ?? true) this.powerOn();
    else this.state = 'off';
  }

  // ---- outside interface -------------------------------------------------------------------------------------

  /** Bytes from the host enter the cable. Returns false while more than WRITE_HIGH_WATER bytes are still on it. */
  hostWrite(bytes: Buffer | string): boolean {
    // An unpowered or unplugged board takes nothing; the bytes are gone, so the caller must not wait for a drain.
    if (!this.isConnected) return true;
    const data = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
    const corrupted = this.uplink.corrupted;
    const lost = this.uplink.lostOnWire;
    const { buf, t0 } = this.uplink.send(data, this.scheduler.now());
    this.stats.bytesCorrupted += this.uplink.corrupted - corrupted;
    this.stats.bytesLostOnWire += this.uplink.lostOnWire - lost;
    if (this.dialect.emergencyParser) this.watchEmergency(buf, t0);
    this.scheduleUplink();
    if (this.uplink.pendingBytes > WRITE_HIGH_WATER) {
      this.wantDrain = true;
      return false;
    }
    return true;
  }

  /** Bytes for the host, in arrival-sized chunks. Returns an unsubscribe function. */
  onOutput(listener: (bytes: Buffer) => void): () => void {
    return subscribe(this.outputListeners, listener);
  }
  /** The cable was pulled (by unplug() or unplug_after_lines). */
  onUnplug(listener: () => void): () => void {
    return subscribe(this.unplugListeners, listener);
  }
  /** The cable took the backlog that made hostWrite() return false. */
  onDrain(listener: () => void): () => void {
    return subscribe(this.drainListeners, listener);
  }

  get isHalted(): boolean {
    return this.state === 'halted';
  }
  get isReady(): boolean {
    return this.state === 'ready';
  }
  get isConnected(): boolean {
    return this.state !== 'off' && this.state !== 'unplugged' && this.state !== 'closed';
  }
  /** Commands waiting in the command queue (the running one included) and blocks in the planner. */
  get queueDepth(): { commands: number; planner: number; rxBytes: number } {
    return { commands: this.queue.length, planner: this.planner.length, rxBytes: this.rx.used };
  }
  /** Last accepted line number. */
  get lastLineNumber(): number {
    return this.lastN;
  }
  temperatures(): HeaterReport {
    const t = this.simNow();
    return {
      hotend: this.hotend.read(t),
      hotendTarget: this.hotend.target,
      bed: this.bed.read(t),
      bedTarget: this.bed.target,
      hotendPower: this.hotend.power(t),
      bedPower: this.bed.power(t),
    };
  }

  /** The executed record without the host's housekeeping (M110, M105, M115, M155): compare it with a job's lines. */
  executedJobLines(): string[] {
    return this.executed.filter((c) => !HOUSEKEEPING.test(c));
  }

  resetStats(): void {
    this.stats = zeroStats();
    this.planner.emptySince = null;
  }

  /** Powers the board on (the port was opened) or plugs the cable back in; a running board resets. */
  start(): void {
    if (this.state === 'closed') throw new Error('the virtual printer is closed');
    this.reboot();
  }

  /** The host closed the port: the board stops; its record and stats stay. start() powers it on again. */
  powerOff(): void {
    if (this.state === 'closed') return;
    this.stopEverything();
    this.downlink.clear();
    this.uplink.clear();
    this.state = 'off';
  }

  /** The board resets mid-print (power glitch, DTR): everything queued is lost, it boots and prints `start`. */
  reset(): void {
    if (!this.isConnected) return;
    this.reboot();
  }

  private reboot(): void {
    this.stopEverything();
    this.lastN = 0;
    this.motion = new MotionState();
    this.autoreportS = 0;
    this.busyIntervalS = this.options.busyIntervalS;
    this.hotend.resetTarget(this.simNow());
    this.bed.resetTarget(this.simNow());
    this.powerOn();
  }

  /** Thermal runaway: the firmware prints its error and halts for good (until reset()). */
  thermalRunaway(): void {
    if (this.state === 'ready' || this.state === 'booting') this.halt('runaway');
  }

  /** The USB cable is pulled: nothing more goes either way. */
  unplug(): void {
    if (!this.isConnected) return;
    this.powerOff();
    this.state = 'unplugged';
    for (const l of [...this.unplugListeners]) l();
  }

  /** Stops every timer; the printer is gone. Safe to call twice. */
  close(): void {
    if (this.state === 'closed') return;
    this.powerOff();
    this.state = 'closed';
    this.scheduler.dispose();
    this.outputListeners.length = 0;
    this.unplugListeners.length = 0;
    this.drainListeners.length = 0;
  }

  // ---- time --------------------------------------------------------------------------------------------------

  /** Simulated firmware ms -> scheduler ms for things that take time (moves, dwell, homing, boot). */
  private work(ms: number): number {
    return this.instant ? 0 : ms / this.timeScale;
  }
  /** Simulated ms -> scheduler ms for periodic reports, which keep their pace even at speed=max. */
  private period(ms: number): number {
    return ms / this.timeScale;
  }
  private simNow(): number {
    return this.scheduler.now() * this.timeScale;
  }
  private after(ms: number, fn: () => void): SimTimer {
    const timer = this.scheduler.at(this.scheduler.now() + ms, () => {
      this.timers.delete(timer);
      fn();
    });
    this.timers.add(timer);
    return timer;
  }
  private cancel(timer: SimTimer | null): null {
    if (timer !== null) {
      this.scheduler.cancel(timer);
      this.timers.delete(timer);
    }
    return null;
  }

  // ---- lifecycle ---------------------------------------------------------------------------------------------

  private powerOn(): void {
    this.state = 'booting';
    const bootMs = this.work(this.options.bootMs);
    if (bootMs > 0) this.after(bootMs, () => this.bootDone());
    else this.bootDone();
  }

  private bootDone(): void {
    // Whatever arrived while the bootloader ran is gone.
    this.uplink.deliver(this.scheduler.now(), (_b, from, to) => {
      this.stats.bytesDiscarded += to - from;
      return to - from;
    });
    this.state = 'ready';
    if (this.options.bootNoise) {
      let noise = '\0';
      for (let i = 0; i < 6; i++) noise += String.fromCharCode(Math.floor(this.rng.next() * 256));
      this.downlink.send(noise);
    }
    for (const line of this.dialect.banner()) this.emit(line);
    if (this.dialect.waitWhenIdle) this.after(this.period(1000), () => this.idleWait());
    this.scheduleUplink();
  }

  private idleWait(): void {
    if (this.state !== 'ready') return;
    if (this.queue.length === 0 && this.rx.used === 0) this.emit('wait');
    this.after(this.period(1000), () => this.idleWait());
  }

  private stopEverything(): void {
    for (const t of this.timers) this.scheduler.cancel(t);
    this.timers.clear();
    this.uplinkTimer = this.busyTimer = this.heatTimer = this.autoreportTimer = null;
    this.planner.clear();
    this.queue.length = 0;
    this.current = null;
    this.stats.bytesDiscarded += this.rx.used;
    this.rx.clear();
    this.partial = '';
    this.repetierIgnore = 0;
  }

  private halt(reason: 'M112' | 'runaway'): void {
    this.stopEverything();
    this.hotend.resetTarget(this.simNow());
    this.bed.resetTarget(this.simNow());
    this.autoreportS = 0;
    for (const line of this.dialect.haltLines(reason)) this.emit(line);
    this.state = 'halted';
    this.scheduleUplink();
  }

  private watchEmergency(buf: Buffer, t0: number): void {
    for (let i = buf.indexOf('M112'); i >= 0; i = buf.indexOf('M112', i + 4)) {
      const next = buf[i + 4];
      if (next !== undefined && next >= 0x30 && next <= 0x39) continue;
      this.after(Math.max(0, this.uplink.arrivalOf(t0, i + 3) - this.scheduler.now()), () => {
        if (this.state === 'ready') this.halt('M112');
      });
    }
  }

  // ---- the link into the firmware ----------------------------------------------------------------------------

  private emit(line: string): void {
    this.downlink.send(line + this.dialect.eol);
    this.stats.bytesSent = this.downlink.bytesSent;
  }

  private canRead(): boolean {
    return this.state === 'ready' && this.queue.length < this.options.slots;
  }

  /** Arrived bytes go into RX; when it is full and the firmware cannot read, serial loses them and USB pushes back. */
  private readonly sink = (buf: Buffer, from: number, to: number): number => {
    if (this.state !== 'ready') {
      this.stats.bytesDiscarded += to - from;
      return to - from;
    }
    const start = from;
    while (from < to) {
      const n = this.rx.push(buf, from, to);
      from += n;
      this.stats.bytesReceived += n;
      if (from >= to) break;
      if (this.canRead()) this.readLines();
      if (this.rx.free === 0 || this.state !== 'ready') {
        if (this.options.baud === 0) return from - start;
        this.stats.bytesLostOverflow += to - from;
        return to - start;
      }
    }
    return to - start;
  };

  /** Everything happens here: take arrived bytes, read lines while a slot is free, run commands. */
  private service(): void {
    if (this.inService) {
      this.serviceAgain = true;
      return;
    }
    this.inService = true;
    try {
      do {
        this.serviceAgain = false;
        this.uplink.deliver(this.scheduler.now(), this.sink);
        this.readLines();
        const queued = this.queue.length;
        this.runCommands();
        // Finished commands freed slots: read what waits in RX (or on a pushed-back USB link) at once.
        if (this.queue.length < queued && this.canRead()) this.serviceAgain = true;
      } while (this.serviceAgain);
    } finally {
      this.inService = false;
    }
    this.scheduleUplink();
    if (this.wantDrain && this.uplink.pendingBytes <= WRITE_HIGH_WATER) {
      this.wantDrain = false;
      for (const l of [...this.drainListeners]) l();
    }
  }

  private scheduleUplink(): void {
    if (!this.isConnected) return;
    let at: number | null = null;
    if (this.state !== 'ready' || this.canRead()) at = this.uplink.nextTerminatorAt();
    if (this.wantDrain) {
      const next = this.uplink.nextByteAt();
      if (next !== null && (at === null || next < at)) at = next;
    }
    if (at === null) {
      this.uplinkTimer = this.cancel(this.uplinkTimer);
      return;
    }
    if (this.uplinkTimer !== null && this.uplinkTimer.at === at) return;
    this.uplinkTimer = this.cancel(this.uplinkTimer);
    this.uplinkTimer = this.after(Math.max(0, at - this.scheduler.now()), () => {
      this.uplinkTimer = null;
      this.service();
    });
  }

  private readLines(): void {
    while (this.canRead()) {
      const line = this.rx.takeLine();
      if (line === null) {
        this.partial += this.rx.takeAll();
        if (this.partial.length > MAX_LINE && this.dialect.checksLines) this.partial = this.partial.slice(0, MAX_LINE);
        return;
      }
      let text = this.partial + line;
      this.partial = '';
      if (text.length > MAX_LINE && this.dialect.checksLines) text = text.slice(0, MAX_LINE);
      this.receiveLine(text);
    }
  }

  private receiveLine(raw: string): void {
    const verdict = checkLine(raw, this.dialect, this.lastN);
    if (verdict.kind === 'empty') return;
    this.stats.linesReceived++;
    if (verdict.kind === 'duplicate') {
      this.stats.duplicatesSkipped++;
      this.emit(`skip ${verdict.n}`);
      return;
    }
    if (verdict.kind === 'bad') {
      if (this.dialect.okOnReceipt && this.repetierIgnore > 0 && verdict.error === 'sequence') {
        // Repetier drops what was still in flight after its resend request without asking again.
        this.repetierIgnore--;
        return;
      }
      this.badLine(verdict.error, verdict.message);
      return;
    }
    if (verdict.n !== null) this.lastN = verdict.n;
    this.repetierIgnore = 0;
    const cmd = parseCommand(verdict.command, verdict.n);
    if (cmd.code === 'M110') {
      const n = word(cmd.words, 'N');
      if (n !== undefined) this.lastN = n;
    }
    if (cmd.code === 'M112' && !this.dialect.emergencyParser) {
      const bare = !/^\s*N/.test(raw) && !raw.includes('*');
      if (!this.dialect.bareEmergencyOnly || bare) {
        this.halt('M112');
        return;
      }
    }
    this.queue.push(cmd);
    if (this.dialect.okOnReceipt) this.sendOk(verdict.n === null ? '' : ` ${verdict.n}`);
  }

  private badLine(error: 'sequence' | 'checksum', message: string): void {
    if (error === 'checksum') this.stats.checksumErrors++;
    else this.stats.sequenceErrors++;
    const d = this.dialect;
    if (d.onBadLine === 'drop') return;
    this.stats.resendsRequested++;
    if (d.discardOnError) {
      this.stats.bytesDiscarded += this.rx.used;
      this.rx.clear();
    }
    if (d.okOnReceipt) this.repetierIgnore = 14;
    const lines: string[] = [];
    if (d.errorLines) lines.push(d.errorLine(`${message}, Last Line: ${this.lastN}`));
    const request = d.onBadLine === 'rs' ? [d.resendLine(this.lastN + 1)] : [d.resendLine(this.lastN + 1), 'ok'];
    lines.push(...request);
    if (this.options.duplicateResend) lines.push(...request);
    for (const l of lines) this.emit(l);
  }

  private sendOk(data: string): void {
    this.okCount++;
    const every = this.options.dropOkEvery;
    if (every > 0 && this.okCount % every === 0) {
      this.stats.oksDropped++;
      return;
    }
    this.stats.oksSent++;
    this.emit(`ok${data}`);
  }

  // ---- running commands --------------------------------------------------------------------------------------

  private runCommands(): void {
    while (this.state === 'ready') {
      if (this.current !== null) {
        if (!this.current.resume()) return;
        this.finish(this.current.cmd);
        continue;
      }
      const cmd = this.queue[0];
      if (cmd === undefined) return;
      this.okSuffix = null;
      const resume = this.execute(cmd);
      if (resume === null || resume()) {
        this.finish(cmd);
        continue;
      }
      this.current = { cmd, resume };
      this.startBusy();
      return;
    }
  }

  private finish(cmd: Command): void {
    // Marlin's ADVANCED_OK counts free slots before the finished command leaves its slot.
    const slotsFree = this.options.slots - this.queue.length;
    this.queue.shift();
    this.current = null;
    // The planner ran dry during a deliberate wait on purpose: not starvation.
    if (DELIBERATE_WAITS.has(cmd.code)) this.planner.emptySince = null;
    this.busyTimer = this.cancel(this.busyTimer);
    this.heatTimer = this.cancel(this.heatTimer);
    this.executedCount++;
    if (this.options.record) this.executed.push(cmd.text);
    this.executedHash = fnv1a(this.executedHash, cmd.text);
    if (!this.dialect.okOnReceipt) {
      if (this.okSuffix !== null) this.sendOk(` ${this.okSuffix}`);
      else if (this.options.advancedOk) {
        this.sendOk(`${cmd.n === null ? '' : ` N${cmd.n}`} P${this.planner.free} B${slotsFree}`);
      } else this.sendOk('');
    }
    this.okSuffix = null;
    this.faultTriggers();
  }

  private faultTriggers(): void {
    const n = this.executedCount;
    const o = this.options;
    // Right after the Nth command's ok, before the next command runs.
    if (o.resetAfterLines > 0 && n === o.resetAfterLines) this.reset();
    if (o.unplugAfterLines > 0 && n === o.unplugAfterLines) this.unplug();
    if (o.runawayAfterLines > 0 && n === o.runawayAfterLines) this.thermalRunaway();
  }

  private startBusy(): void {
    if (!this.dialect.busyLines) return;
    const tick = (): void => {
      this.emit('echo:busy: processing');
      this.busyTimer = this.after(this.period(this.busyIntervalS * 1000), tick);
    };
    this.busyTimer = this.after(this.period(this.busyIntervalS * 1000), tick);
  }

  private temperatureText(): string {
    return this.dialect.temperatures(this.temperatures());
  }

  private addBlock(ms: number): void {
    const p = this.planner;
    if (p.isEmpty() && p.emptySince !== null && !this.instant) {
      const gap = (this.scheduler.now() - p.emptySince) * this.timeScale;
      if (gap > 0) {
        this.stats.starvationMs += gap;
        this.stats.starvationEvents++;
      }
    }
    p.emptySince = null;
    p.add(ms);
  }

  /** Waits for the planner to run dry, then `ms` of simulated work. */
  private afterMoves(ms: number, then?: () => void): Resume {
    let until: number | null = null;
    return () => {
      if (!this.planner.isEmpty()) return false;
      if (until === null) {
        until = this.scheduler.now() + this.work(ms);
        if (until > this.scheduler.now()) this.after(until - this.scheduler.now(), () => this.service());
      }
      if (this.scheduler.now() < until) return false;
      then?.();
      return true;
    };
  }

  private waitForHeat(heater: Heater): Resume {
    const report = (): void => {
      if (this.dialect.busyLines) this.emit(` ${this.temperatureText()} W:?`);
      this.heatTimer = this.after(this.period(1000), report);
    };
    this.heatTimer = this.after(this.period(1000), report);
    let wake: SimTimer | null = null;
    return () => {
      const ms = heater.msToTarget(this.simNow());
      if (ms <= 0) return true;
      if (wake === null || wake.fn === null) wake = this.after(this.period(ms) + 0.001, () => this.service());
      return false;
    };
  }

  /** Runs a command; returns null when it is done at once, or a poll that says when it is. */
  private execute(cmd: Command): Resume | null {
    const { code, words } = cmd;
    switch (code) {
      case 'G0':
      case 'G1':
      case 'G2':
      case 'G3': {
        const ms = this.work(this.motion.move(code, words));
        if (ms <= 0) return null;
        return () => {
          if (this.planner.free <= 0) return false;
          this.addBlock(ms);
          return true;
        };
      }
      case 'G4': {
        const s = word(words, 'S');
        return this.afterMoves(word(words, 'P') ?? (s !== undefined ? s * 1000 : 0));
      }
      case 'G28':
        return this.afterMoves(HOME_MS, () => this.motion.home());
      case 'G29':
        return this.afterMoves(PROBE_MS);
      case 'M400':
        return this.afterMoves(0);
      case 'G90':
      case 'G91':
        this.motion.setAbsolute(code === 'G90');
        return null;
      case 'M82':
      case 'M83':
        this.motion.setAbsoluteE(code === 'M82');
        return null;
      case 'G92':
        this.motion.setPosition(words);
        return null;
      case 'M104':
      case 'M109':
      case 'M140':
      case 'M190': {
        const heater = code === 'M104' || code === 'M109' ? this.hotend : this.bed;
        const target = word(words, 'S') ?? word(words, 'R');
        if (target !== undefined) heater.setTarget(target, this.simNow());
        return code === 'M109' || code === 'M190' ? this.waitForHeat(heater) : null;
      }
      case 'M105':
        if (this.dialect.okOnReceipt) this.emit(this.temperatureText());
        else this.okSuffix = this.temperatureText();
        return null;
      case 'M155':
        if (!this.dialect.supportsAutoreport || !this.options.autoreport) return this.unknown(cmd);
        this.setAutoreport(word(words, 'S') ?? 0);
        return null;
      case 'M115': {
        const lines = this.dialect.m115({ advancedOk: this.options.advancedOk, autoreport: this.options.autoreport });
        if (this.dialect.m115InOk) this.okSuffix = lines.join(' ');
        else for (const l of lines) this.emit(l);
        return null;
      }
      case 'M113':
        this.busyIntervalS = word(words, 'S') || this.busyIntervalS;
        return null;
      case 'M114': {
        const p = this.motion.pos;
        this.emit(`X:${p.X.toFixed(2)} Y:${p.Y.toFixed(2)} Z:${p.Z.toFixed(2)} E:${p.E.toFixed(2)} Count X:0 Y:0 Z:0`);
        return null;
      }
      case 'M110':
        return null;
      case 'M112':
        this.after(0, () => this.halt('M112'));
        return null;
      case 'M410':
        this.planner.clear();
        return null;
      default:
        if (PLAIN.has(code)) return null;
        if (this.options.profile === 'klipper' && /^[A-Z][A-Z_][A-Z0-9_]*$/.test(code)) return null;
        return this.unknown(cmd);
    }
  }

  private unknown(cmd: Command): null {
    for (const l of this.dialect.unknownCommand(cmd.text)) this.emit(l);
    return null;
  }

  private setAutoreport(seconds: number): void {
    this.autoreportS = Math.max(0, seconds);
    this.autoreportTimer = this.cancel(this.autoreportTimer);
    if (this.autoreportS <= 0) return;
    const tick = (): void => {
      this.emit(` ${this.temperatureText()}`);
      this.autoreportTimer = this.after(this.period(this.autoreportS * 1000), tick);
    };
    this.autoreportTimer = this.after(this.period(this.autoreportS * 1000), tick);
  }
}

function subscribe<T>(list: T[], item: T): () => void {
  list.push(item);
  return () => {
    const i = list.indexOf(item);
    if (i >= 0) list.splice(i, 1);
  };
}

function parseCommand(text: string, n: number | null): Command {
  const m = /^([A-Za-z])(\d+)(\.\d+)?/.exec(text);
  const words = text.split(/\s+/);
  if (m === null) return { text, n, code: (words[0] ?? '').toUpperCase(), words: words.slice(1) };
  const code = `${m[1]!.toUpperCase()}${Number(m[2])}`;
  const rest = text.slice(m[0].length).trim();
  return { text, n, code, words: rest === '' ? [] : rest.split(/\s+/) };
}

function fnv1a(hash: number, text: string): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= 0x0a;
  return Math.imul(h, 0x01000193) >>> 0;
}
