// A virtual 3D printer: firmware command handling over a modelled serial link, with fault injection and a record of what ran.
import { DIALECTS, type FirmwareDialect, type HeaterReport } from './firmware-dialects.js';
import {
  type Command,
  DELIBERATE_WAITS,
  FirmwareCommands,
  type FirmwareHost,
  HOUSEKEEPING,
  parseCommand,
  type Resume,
} from './firmware-commands.js';
import { CommandRecord } from './command-record.js';
import { checkLine } from './line-check.js';
import { meatpackReportLine, MeatPackUnpacker } from './meatpack-unpacker.js';
import { Planner, word } from './motion-planner.js';
import { msToUs, RealTimeScheduler, type SimScheduler, type SimTimer } from './sim-scheduler.js';
import { ByteClock, Downlink, Prng, ReceiveBuffer, Uplink } from './serial-link.js';
import type { SimulatorOptions } from './simulator-options.js';
import { type SimulatorStats, zeroStats } from './simulator-stats.js';

export { HOUSEKEEPING } from './firmware-commands.js';
export type { SimulatorStats } from './simulator-stats.js';

/** hostWrite() returns false above this many bytes still on the wire, like a serial port's write stream. */
export const WRITE_HIGH_WATER = 16 * 1024;
/** Marlin MAX_CMD_SIZE minus the terminator: longer lines are cut, so their checksum fails. */
const MAX_LINE = 95;
type PrinterState = 'off' | 'booting' | 'ready' | 'halted' | 'unplugged' | 'closed';

export class VirtualPrinter {
  readonly options: SimulatorOptions;
  readonly dialect: FirmwareDialect;
  readonly scheduler: SimScheduler;
  /** The commands executed, N and checksum stripped: every one with options.record, else the last RECENT_COMMANDS. */
  private readonly record: CommandRecord;
  executedCount = 0;
  /** FNV-1a over the executed commands, to compare long runs without keeping them. */
  executedHash = 0x811c9dc5;
  stats: SimulatorStats = zeroStats();

  private state: PrinterState = 'booting';
  private readonly rng: Prng;
  private readonly uplink: Uplink;
  private readonly downlink: Downlink;
  private readonly rx: ReceiveBuffer;
  readonly planner: Planner;
  private readonly commands: FirmwareCommands;
  private partial = '';
  private lastN = 0;
  private repetierIgnore = 0;
  private readonly queue: Command[] = [];
  private current: { cmd: Command; resume: Resume } | null = null;
  private okCount = 0;
  private timers = new Set<SimTimer>();
  private uplinkTimer: SimTimer | null = null;
  private inService = false;
  /** µs of the last service() that moved nothing, or null: the next wake-up must come later than that. */
  private idleWakeAt: number | null = null;
  private serviceAgain = false;
  private wantDrain = false;
  private readonly outputListeners: Array<(bytes: Buffer) => void> = [];
  private readonly unplugListeners: Array<() => void> = [];
  private readonly drainListeners: Array<() => void> = [];
  /** Marlin's EMERGENCY_PARSER: M108/M112 act as their bytes arrive, ahead of the command queue. */
  private readonly emergencyParser: boolean;
  /** Marlin built with MeatPack: raw bytes from RX go through it before the line reader. */
  private readonly unpacker: MeatPackUnpacker | null;
  /** Characters the unpacker gave after a line's end, read with the next line. */
  private unpackedCarry = '';
  private readonly packedRng: Prng;
  private untilPackedError: number;

  /** `start: false` leaves the board unpowered until start() (the transport powers it on open). */
  constructor(options: SimulatorOptions, deps: { scheduler?: SimScheduler; start?: boolean } = {}) {
    this.options = options;
    this.record = new CommandRecord(options.record);
    this.dialect = DIALECTS[options.profile];
    this.emergencyParser = this.dialect.emergencyParser && options.emergencyParser;
    this.scheduler = deps.scheduler ?? new RealTimeScheduler();
    // speed scales simulated time; at speed=max only work (moves, dwell, heating, boot) collapses to zero.
    const timeScale = options.speed === 'max' ? 1 : options.speed;
    this.rng = new Prng(options.seed);
    // Its own sequence, so turning this fault on leaves the wire's faults where they were for a seed.
    this.packedRng = new Prng(options.seed ^ 0x5a5a5a5a);
    this.untilPackedError = this.packedRng.gap(options.packedErrorRate);
    this.unpacker =
      options.meatpack && options.profile === 'marlin' ? new MeatPackUnpacker((st) => this.emit(meatpackReportLine(st))) : null;
    const wire = new ByteClock(options.baud * timeScale, msToUs(options.latencyMs / 2 / timeScale));
    this.uplink = new Uplink(wire, options.errorRate, options.lossRate, this.rng, this.unpacker !== null);
    this.downlink = new Downlink(wire, this.scheduler, (bytes) => {
      for (const l of this.outputListeners) l(bytes);
    });
    this.rx = new ReceiveBuffer(options.rx);
    this.planner = new Planner(options.planner, this.scheduler, () => this.service());
    const instant = options.instant || options.speed === 'max';
    this.commands = new FirmwareCommands(this.firmwareHost(), this.dialect, options, timeScale, instant);
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
    const { buf, t0 } = this.uplink.send(data, this.scheduler.nowUs());
    this.stats.bytesCorrupted += this.uplink.corrupted - corrupted;
    this.stats.bytesLostOnWire += this.uplink.lostOnWire - lost;
    if (this.emergencyParser) this.watchEmergency(buf, t0);
    const full = this.uplink.pendingBytes > WRITE_HIGH_WATER;
    if (full) this.wantDrain = true;
    this.scheduleUplink();
    return !full;
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
    return this.commands.temperatures();
  }

  /** The commands executed, oldest first: all of them with options.record (tests ask for it), else only the newest. */
  get executed(): readonly string[] {
    return this.record.list();
  }

  /** The executed record without the host's housekeeping (M110, M105, M115, M155): compare it with a job's lines. */
  executedJobLines(): string[] {
    return this.executed.filter((c) => !HOUSEKEEPING.test(c));
  }

  /** Only the moves (G0-G3) that were executed. */
  executedMotion(): string[] {
    return this.executed.filter((c) => /^G[0-3](?!\d)/i.test(c));
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
    // MeatPack starts off after a reset: the host must enable it again.
    this.unpacker?.reset();
    this.unpackedCarry = '';
    this.commands.powerOn();
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

  private firmwareHost(): FirmwareHost {
    return {
      scheduler: this.scheduler,
      planner: this.planner,
      emit: (line) => this.emit(line),
      after: (ms, fn) => this.after(ms, fn),
      afterUs: (us, fn) => this.afterUs(us, fn),
      cancel: (timer) => this.cancel(timer),
      service: () => this.service(),
      emergencyStop: () => this.halt('M112'),
      starved: (ms) => {
        this.stats.starvationMs += ms;
        this.stats.starvationEvents++;
      },
    };
  }
  private after(ms: number, fn: () => void): SimTimer {
    return this.afterUs(msToUs(ms), fn);
  }
  private afterUs(us: number, fn: () => void): SimTimer {
    const timer = this.scheduler.atUs(this.scheduler.nowUs() + us, () => {
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
    const bootMs = this.commands.work(this.options.bootMs);
    if (bootMs > 0) this.after(bootMs, () => this.bootDone());
    else this.bootDone();
  }

  private bootDone(): void {
    // Whatever arrived while the bootloader ran is gone.
    this.uplink.deliver(this.scheduler.nowUs(), (_b, from, to) => {
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
    if (this.dialect.waitWhenIdle) this.after(this.commands.period(1000), () => this.idleWait());
    this.scheduleUplink();
  }

  private idleWait(): void {
    if (this.state !== 'ready') return;
    if (this.queue.length === 0 && this.rx.used === 0) this.emit('wait');
    this.after(this.commands.period(1000), () => this.idleWait());
  }

  private stopEverything(): void {
    for (const t of this.timers) this.scheduler.cancel(t);
    this.timers.clear();
    this.uplinkTimer = null;
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
    this.commands.coolDown();
    for (const line of this.dialect.haltLines(reason)) this.emit(line);
    this.state = 'halted';
    this.scheduleUplink();
  }

  /**
   * Marlin's emergency parser sees every byte as it arrives, whatever the command queue holds: M112 halts, M108 ends
   * a heat-up wait (the queued copy of the line runs later as a no-op and gets its ok then).
   */
  private watchEmergency(buf: Buffer, t0: number): void {
    this.watchCommand(buf, t0, 'M112', () => this.halt('M112'));
    this.watchCommand(buf, t0, 'M108', () => {
      this.commands.breakWait();
      this.service();
    });
  }

  private watchCommand(buf: Buffer, t0: number, code: string, act: () => void): void {
    for (let i = buf.indexOf(code); i >= 0; i = buf.indexOf(code, i + 4)) {
      const next = buf[i + 4];
      if (next !== undefined && next >= 0x30 && next <= 0x39) continue;
      // Like Marlin's parser state machine: only as the command of its line (after an optional N word).
      let lineStart = i;
      while (lineStart > 0 && buf[lineStart - 1] !== 0x0a && buf[lineStart - 1] !== 0x0d) lineStart--;
      if (!/^\s*(N\d+\s*)?$/.test(buf.toString('latin1', lineStart, i))) continue;
      this.afterUs(Math.max(0, this.uplink.arrivalOf(t0, i + 3) - this.scheduler.nowUs()), () => {
        if (this.state === 'ready') act();
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
    const now = this.scheduler.nowUs();
    let progressed = false;
    try {
      do {
        this.serviceAgain = false;
        const before = this.progressMark();
        // While the firmware reads, one line at a time, as its loop would see them even when this timer fired late.
        // While it cannot read, everything arrived so far lands in RX at once, or is lost when RX is full.
        const more = this.uplink.deliver(now, this.sink, this.canRead());
        this.readLines();
        const queued = this.queue.length;
        this.runCommands();
        // Another round only after this one moved something (bytes off the wire, lines read, commands run):
        // those are finite, so the loop ends by construction whatever the clock says.
        const moved = this.progressMark() !== before;
        progressed ||= moved;
        // Finished commands freed slots: read what waits in RX (or on a pushed-back USB link) at once.
        this.serviceAgain = moved && (this.serviceAgain || more || (this.queue.length < queued && this.canRead()));
      } while (this.serviceAgain);
    } finally {
      this.inService = false;
    }
    this.idleWakeAt = progressed ? null : now;
    this.scheduleUplink();
    if (this.wantDrain && this.uplink.pendingBytes <= WRITE_HIGH_WATER) {
      this.wantDrain = false;
      for (const l of [...this.drainListeners]) l();
    }
  }

  /** Grows whenever the firmware loop takes bytes off the wire, reads from RX or finishes a command (all monotonic). */
  private progressMark(): number {
    return this.uplink.taken + this.rx.consumed + this.executedCount;
  }

  private scheduleUplink(): void {
    if (!this.isConnected) return;
    let at: number | null = null;
    if (this.state !== 'ready' || this.canRead()) at = this.uplink.nextTerminatorAt();
    // On a serial line the backlog leaves at the baud rate whether or not the firmware reads; wake when it is small
    // enough. Native USB drains only as the firmware reads, which always runs service().
    if (this.wantDrain && this.options.baud > 0) {
      const drained = this.uplink.timeWhenPendingAtMost(WRITE_HIGH_WATER);
      if (drained !== null && (at === null || drained < at)) at = Math.max(drained, this.scheduler.nowUs());
    }
    if (at === null) {
      this.uplinkTimer = this.cancel(this.uplinkTimer);
      return;
    }
    // A wake-up that moved nothing is never followed by another at the same instant: the clock must move first.
    if (this.idleWakeAt !== null && at <= this.idleWakeAt) at = this.idleWakeAt + 1;
    if (this.uplinkTimer !== null && this.uplinkTimer.at === at) return;
    this.uplinkTimer = this.cancel(this.uplinkTimer);
    this.uplinkTimer = this.afterUs(Math.max(0, at - this.scheduler.nowUs()), () => {
      this.uplinkTimer = null;
      this.service();
    });
  }

  private readLines(): void {
    if (this.unpacker !== null) {
      this.readUnpacked(this.unpacker);
      return;
    }
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

  /** Marlin with MeatPack: the line reader takes characters from the unpacker, which takes raw bytes from RX. */
  private readUnpacked(unpacker: MeatPackUnpacker): void {
    const limit = this.dialect.checksLines ? MAX_LINE : Infinity;
    while (this.canRead()) {
      let chars = this.unpackedCarry;
      this.unpackedCarry = '';
      if (chars === '') {
        const b = this.rx.takeByte();
        if (b < 0) return;
        chars = unpacker.push(this.maybeCorruptPacked(unpacker, b));
      }
      for (let i = 0; i < chars.length; i++) {
        const c = chars.charCodeAt(i);
        if (c !== 10 && c !== 13) {
          if (this.partial.length < limit) this.partial += chars[i];
          continue;
        }
        const text = this.partial;
        this.partial = '';
        this.unpackedCarry = chars.slice(i + 1);
        this.receiveLine(text);
        break;
      }
    }
  }

  /** packed_error_rate: a bit flipped in a data byte the unpacker reads while packing is on. */
  private maybeCorruptPacked(unpacker: MeatPackUnpacker, b: number): number {
    if (!unpacker.state.active || b === 0xff || unpacker.inSignal) return b;
    if (this.untilPackedError > 0) {
      this.untilPackedError--;
      return b;
    }
    this.untilPackedError = this.packedRng.gap(this.options.packedErrorRate);
    this.stats.packedBytesCorrupted++;
    return b ^ (1 << Math.floor(this.packedRng.next() * 7));
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
    if (cmd.code === 'M112' && !this.emergencyParser) {
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
      const resume = this.commands.execute(cmd);
      if (resume === null || resume()) {
        this.finish(cmd);
        continue;
      }
      this.current = { cmd, resume };
      this.commands.waiting();
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
    this.commands.done();
    this.executedCount++;
    this.record.add(cmd.text);
    this.executedHash = fnv1a(this.executedHash, cmd.text);
    if (!this.dialect.okOnReceipt) {
      if (this.commands.okSuffix !== null) this.sendOk(` ${this.commands.okSuffix}`);
      else if (this.options.advancedOk) {
        this.sendOk(`${cmd.n === null ? '' : ` N${cmd.n}`} P${this.planner.free} B${slotsFree}`);
      } else this.sendOk('');
    }
    this.commands.okSuffix = null;
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
}

function subscribe<T>(list: T[], item: T): () => void {
  list.push(item);
  return () => {
    const i = list.indexOf(item);
    if (i >= 0) list.splice(i, 1);
  };
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
