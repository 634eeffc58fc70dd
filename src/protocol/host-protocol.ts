// The host side of the line protocol as a pure state machine: events in (lines received, time, writability), actions out.
import type { FirmwareProfile } from './firmware-profile.js';
import type { FirmwareInfo, HostProtocolOptions, ProtocolAction, ProtocolStats } from './protocol-types.js';
import { checkLine, xorOf } from './framing.js';
import { ReplyParser, type Reply } from './reply-parser.js';
import { parseFirmwareFields } from './firmware-info-parser.js';
import { looksLikeTemperatures, parseTemperatures } from './temperature-parser.js';
import { MotionTracker } from './motion-tracker.js';
import { RingQueue } from './ring-queue.js';
import { commandWord } from './command-classes.js';
import { isReplaySafe } from './replay-safety.js';
import { isDamagedEcho } from './damaged-copy.js';

// Timeout / flow classes of a line.
const CLS_SHORT = 0;
const CLS_LONG = 1;
/** Sent with nothing else in flight and nothing after it until its ok (M110, EEPROM writes). */
const CLS_ALONE = 2;

const NO_COMMAND = 0;
const NO_JOB_LINE = -1;

/** A line waiting to be sent. Its payload checksum is computed when it is queued (framing ahead of time). */
interface PendingLine {
  text: string;
  xor: number;
  jobLine: number;
  srcBytes: number;
  commandId: number;
  cls: number;
  isM105: boolean;
  /** A blocking wait (profile.blockingWaits): nothing after it is written until its ok. */
  wait: boolean;
  /** The ok-timeout poke or a wait's break command: may go out past a full window or a wait. */
  force: boolean;
}

/** One sent line, kept in the history ring for resend replays. Slots are reused, never reallocated. */
interface SentLine {
  n: number;
  framed: string;
  len: number;
  jobLine: number;
  srcBytes: number;
  commandId: number;
  cls: number;
  isM105: boolean;
  wait: boolean;
  cancelled: boolean;
}

interface CommandState {
  lines: string[];
  failed: boolean;
}

export interface HostProtocolDebugState {
  nextLineNumber: number;
  sendCursor: number;
  ackedThrough: number;
  inFlightLines: number;
  inFlightBytes: number;
  commandSlots: number;
  swallowOks: number;
  queuedJobLines: number;
  queuedCommands: number;
}

/** The blocking wait the firmware is in (its line written, its ok not yet in). */
export interface WaitInFlight {
  /** The command as sent, without number and checksum (`M190 S60`). */
  command: string;
  /** Whether it is a job line (otherwise a script or console command). */
  jobLine: boolean;
  /** Whether the profile's break command ends it. */
  breakable: boolean;
}

/**
 * A line whose newline was corrupted on the wire sits in the firmware's buffer waiting for its end, and with nothing
 * more to send (a ping-pong replay, the last lines of a job) no ok ever comes until the long ok-timeout. After this
 * long with lines owed and the wire quiet, one lone newline is written: it completes such a fragment (which the
 * firmware then rejects with a resend request at once) and is otherwise ignored by the firmwares whose profile
 * says blankLineIgnored (Klipper and Smoothieware answer it with ok, so they never get one). At most one per
 * quiet spell, so a long G28 or heat-up costs a single byte.
 */
const NUDGE_AFTER_MS = 300;

/** Errors that blame a line's number, not its content (Marlin, Prusa and friends word it so). */
const SEQUENCE_ERROR_RE = /Line Number is not|expected line/i;
/**
 * A line reached the firmware with a checksum but no line number: its `N` was destroyed, or it is the back half of a
 * line cut in two by a damaged byte read as a newline (the front half was refused on its own). Either way the request
 * after it is not about a replay, which always goes numbered.
 */
const UNNUMBERED_ERROR_RE = /No Line Number with checksum/i;
/** The firmware refused a command it does not know (Marlin echoes it in quotes), and acknowledges it all the same. */
const UNKNOWN_COMMAND_RE = /Unknown command:\s*"?(.*?)"?\s*$/i;
/** Bytes a line can lose to damage its XOR checksum cannot see: two (one bit flipped in both), more is far rarer. */
const INVISIBLE_DAMAGE = 2;

export class HostProtocol {
  readonly stats: ProtocolStats = {
    linesSent: 0,
    linesAcked: 0,
    bytesWritten: 0,
    resends: 0,
    linesResent: 0,
    timeouts: 0,
    spuriousOks: 0,
    firmwareErrors: 0,
  };
  /** Position and extrusion of what was sent (first sends only, replays do not move twice). */
  readonly motion = new MotionTracker();

  private profile!: FirmwareProfile;
  private parser!: ReplyParser;
  private longSet = new Set<string>();
  private aloneSet = new Set<string>();
  private waitSet = new Set<string>();
  private breakSet = new Set<string>();
  /** The firmware discards bad lines without a word (RepRapFirmware): one line in flight, see replay-safety.ts. */
  private silentDrop = false;
  private readonly historyOption: number | undefined;

  private history: SentLine[] = [];
  private historyMask = 0;

  private readonly jobQueue = new RingQueue<PendingLine>(64);
  private readonly commandQueue = new RingQueue<PendingLine>(8);
  private readonly commands = new Map<number, CommandState>();
  private nextCommandId = 1;
  private jobLineCounter = 0;

  /** Next line number to assign; every number below it (down to the history bound) is framed and kept. */
  private nextNew = 0;
  /** Next line number to write: below nextNew during a resend replay. */
  private sendCursor = 0;
  /** Every line up to here is acknowledged; in flight is (ackedThrough, sendCursor). */
  private ackedThrough = -1;
  /** job-acked/command-done already reported up to here (replays of acknowledged lines report nothing twice). */
  private reportedThrough = -1;
  private inflightBytes = 0;
  private aloneInFlight = 0;
  /** Blocking waits written and not yet acknowledged: while one is, only forced lines go out. */
  private waitsInFlight = 0;
  /** Job lines stay queued, none is written (a pause that interrupted a wait): see holdJob(). */
  private jobHeld = false;
  /** Line number of the wait the break command was queued for (one break per wait), or -1. */
  private brokenWait = -1;

  private resetQueued = false;
  /** Numbering cannot be trusted (after M112 or a failure): restart it before the next line. */
  private numberingStale = false;
  /** Whether numbering has ever started in this link (line numbers mean nothing before M110). */
  private numbered = false;

  private swallowOks = 0;
  private lastResendN = -1;
  /** Repeats of `Resend: lastResendN` still expected: one per line that was in flight behind it (rejected by sequence). */
  private staleResends = 0;
  /**
   * What the firmware's error line just before a resend blamed: a line's sequence, its content (checksum), or a line
   * without a number (see UNNUMBERED_ERROR_RE).
   */
  private lastProtocolError: 'sequence' | 'content' | 'unnumbered' | null = null;
  /**
   * Resend requests that made us write again since a line was last acknowledged for the first time. A storm is the
   * same lines asked for again and again with none getting through; steady noise draws a replay now and then but
   * keeps acknowledging new lines. So only a new line acknowledged clears the count: not the end of one request's
   * replay (a firmware asking for an old line forever passes it every time), nor an ok-timeout.
   */
  private resendsWithoutProgress = 0;
  private forceNext = false;

  private learnedSlots: number | null = null;
  private okDeadline: number | null = null;
  /** A lone newline was written since the last traffic (see NUDGE_AFTER_MS). */
  private nudged = false;
  /** Last time a line arrived or bytes were written. */
  private lastTraffic = 0;
  private consecutiveTimeouts = 0;

  private handshakeDone = false;
  private writable = true;
  private failed = false;
  private dirty = false;
  private lastNow = 0;
  private pendingInfo: FirmwareInfo | null = null;

  private actions: ProtocolAction[] = [];
  /** Bytes a framed line takes in the firmware's RX buffer (the line encoder's output), or null for its length. */
  private wireLength: ((framed: string) => number) | null = null;

  constructor(opts: HostProtocolOptions) {
    this.historyOption = opts.historySize;
    this.setProfile(opts.profile);
  }

  /** The profile in use (generic until M115 identified the firmware). */
  get currentProfile(): FirmwareProfile {
    return this.profile;
  }

  setProfile(profile: FirmwareProfile): void {
    this.profile = profile;
    this.parser = new ReplyParser(profile);
    this.longSet = new Set(profile.longCommands.map((c) => c.toUpperCase()));
    this.aloneSet = new Set(profile.serialStallingCommands.map((c) => c.toUpperCase()));
    this.waitSet = new Set(profile.blockingWaits.map((c) => c.toUpperCase()));
    this.breakSet = new Set((profile.breakWait?.breaks ?? []).map((c) => c.toUpperCase()));
    this.silentDrop = profile.badLine === 'silent-drop' && profile.checksum === 'xor';
    this.learnedSlots = null;
    const wanted = Math.max(this.historyOption ?? profile.historySize, profile.commandSlots * 2, 16);
    let cap = 1;
    while (cap < wanted) cap <<= 1;
    if (cap !== this.history.length) this.resizeHistory(cap);
    this.dirty = true;
  }

  /**
   * How many bytes a framed line occupies on the wire and in the firmware's RX buffer once encoded (MeatPack packs it
   * to about half): the byte window counts those from the next line on. null: the framed length.
   */
  setWireLength(measure: ((framed: string) => number) | null): void {
    this.wireLength = measure;
    // Kept lines are measured again: a replay after the switch goes in the new encoding, and the byte window must
    // not count it at its old size (lines in flight are then counted at the new size too, which is the larger one
    // when packing stops: the window errs on the safe side until they are acknowledged).
    for (let n = Math.max(0, this.ackedThrough + 1); n < this.nextNew; n++) {
      const e = this.entry(n);
      if (e) e.len = measure === null ? e.framed.length : measure(e.framed);
    }
    this.recountInFlight();
    this.dirty = true;
  }

  /** Queue `M110 N0` (sent alone) and restart numbering: at connect and at every job start. */
  resetLineNumbers(now: number): void {
    this.lastNow = now;
    if (this.failed) {
      this.failed = false;
      this.dropInFlight();
    }
    this.resetQueued = true;
    this.numberingStale = false;
    this.jobLineCounter = 0;
    this.dirty = true;
  }

  jobCapacity(): number {
    if (this.failed) return 0;
    const target = this.slots() + 32;
    return Math.max(0, target - this.jobQueue.size);
  }

  pushJobLine(text: string, bytes: number, now: number): void {
    this.lastNow = now;
    const problem = checkLine(text, this.profile);
    if (problem !== null) throw new RangeError(`job line ${this.jobLineCounter + 1} cannot be sent: ${problem}`);
    this.jobQueue.push(this.pending(text, ++this.jobLineCounter, bytes, NO_COMMAND, false));
    this.dirty = true;
  }

  /**
   * A job line of a prepared file (protocol/prepared-gcode.ts): its characters were checked and its checksum computed
   * when the file was read, and the caller checked its length against this profile (framing.lengthProblem).
   */
  pushPreparedLine(text: string, xor: number, bytes: number, now: number): void {
    this.lastNow = now;
    this.jobQueue.push(this.pending(text, ++this.jobLineCounter, bytes, NO_COMMAND, false, xor));
    this.dirty = true;
  }

  sendCommand(text: string, now: number): number {
    this.lastNow = now;
    const id = this.nextCommandId++;
    const problem = checkLine(text, this.profile);
    if (problem !== null || this.failed) {
      const reason = problem ?? 'the protocol stopped after a failure; reconnect first';
      this.actions.push({ type: 'command-done', commandId: id, ok: false, lines: [`cannot send '${text}': ${reason}`] });
      return id;
    }
    this.commands.set(id, { lines: [], failed: false });
    this.commandQueue.push(this.pending(text, NO_JOB_LINE, 0, id, false));
    this.dirty = true;
    return id;
  }

  emergencyStop(now: number): void {
    this.lastNow = now;
    // Writes not yet taken by the session would reach the firmware after M112: drop them, the stop goes first.
    this.actions = this.actions.filter((a) => a.type !== 'write');
    this.actions.push({ type: 'write', data: this.profile.emergencyStop });
    this.stats.bytesWritten += this.profile.emergencyStop.length;
    this.forgetEverything();
    this.numberingStale = true;
  }

  /**
   * `true`: job lines already pushed stay queued and none is written until holdJob(false) (commands still go out).
   * A pause that interrupts a blocking wait holds the lines behind it, so they run after the resume, not before the park.
   */
  holdJob(held: boolean, now: number): void {
    this.lastNow = now;
    this.jobHeld = held;
    this.dirty = true;
  }

  /** Job lines written and not yet acknowledged (a pause parks when none is left). */
  jobLinesInFlight(): number {
    let count = 0;
    for (let n = this.ackedThrough + 1; n < this.nextNew; n++) {
      const e = this.entry(n);
      if (e && e.jobLine !== NO_JOB_LINE && !e.cancelled) count++;
    }
    return count;
  }

  /** The oldest blocking wait the firmware holds (written, not acknowledged), or null. */
  waitInFlight(): WaitInFlight | null {
    if (this.waitsInFlight === 0) return null;
    for (let n = this.ackedThrough + 1; n < this.sendCursor; n++) {
      const e = this.entry(n);
      if (!e || !e.wait) continue;
      const command = payloadOf(e.framed);
      return { command, jobLine: e.jobLine !== NO_JOB_LINE, breakable: this.breakSet.has(commandWord(command)) };
    }
    return null;
  }

  /**
   * Ends the wait in flight with the profile's break command (Marlin's M108), written numbered past the barrier: the
   * firmware's emergency parser acts on it as the bytes arrive, the wait answers its ok, then the break its own.
   * False when no wait the profile can break is in flight. Once per wait.
   */
  breakWait(now: number): boolean {
    this.lastNow = now;
    const wait = this.waitInFlight();
    const brk = this.profile.breakWait;
    if (!wait || !wait.breakable || !brk || this.failed) return false;
    let n = this.ackedThrough + 1;
    while (!this.entry(n)?.wait) n++;
    if (this.brokenWait === n) return true;
    this.brokenWait = n;
    this.commandQueue.unshift(this.pending(brk.command, NO_JOB_LINE, 0, NO_COMMAND, true));
    this.dirty = true;
    return true;
  }

  /**
   * Commands queued and not yet written are dropped, each answered unsuccessfully with `reason` (a cancel: the rest of
   * a resume script waiting behind a broken wait must not move the head back). The break command and the poke stay.
   */
  dropQueuedCommands(reason: string): void {
    const keep: PendingLine[] = [];
    while (this.commandQueue.size > 0) {
      const c = this.commandQueue.shift()!;
      if (c.force || c.commandId === NO_COMMAND) keep.push(c);
      else this.finishCommand(c.commandId, reason, false);
    }
    for (const c of keep) this.commandQueue.push(c);
    this.dirty = true;
  }

  clearJob(): void {
    this.jobQueue.clear();
    this.jobHeld = false;
    let unsentAreJob = true;
    for (let n = this.ackedThrough + 1; n < this.nextNew; n++) {
      const e = this.entry(n);
      if (e && e.jobLine !== NO_JOB_LINE) e.cancelled = true;
      else if (n >= this.sendCursor) unsentAreJob = false;
    }
    // Job lines waiting in a resend replay were discarded by the firmware: never write them after a cancel. Their
    // numbers were never accepted, so the cancel script may take them over.
    if (unsentAreJob && this.sendCursor < this.nextNew) this.nextNew = this.sendCursor;
    this.jobLineCounter = 0;
    this.dirty = true;
  }

  lineReceived(text: string, now: number): void {
    this.lastNow = now;
    this.lastTraffic = now;
    this.nudged = false;
    const reply = this.parser.parse(text);
    this.handle(reply, now);
    this.dirty = true;
  }

  tick(now: number): void {
    this.lastNow = now;
    const nudgeAt = this.nudgeDeadline();
    if (nudgeAt !== null && now >= nudgeAt && this.writable) {
      if (this.replayUnanswered()) {
        // The replay may have been refused with a reply we took for a repeat (its own number damaged): write it
        // again. Harmless if it was taken after all: the firmware refuses the copy by its sequence check. The
        // ok-timeout keeps running, so a printer that went silent still ends in ok_timeout, never a loop.
        this.actions.push({ type: 'info', text: `line ${this.lastResendN} unanswered after its replay: writing it again` });
        const okDeadline = this.okDeadline;
        this.rewindTo(this.lastResendN, now);
        this.pump(now);
        this.okDeadline = okDeadline;
      } else {
        this.actions.push({ type: 'write', data: '\n' });
        this.stats.bytesWritten++;
      }
      this.nudged = true;
    }
    if (this.okDeadline !== null && now >= this.okDeadline && !this.failed) this.onOkTimeout(now);
    this.dirty = true;
  }

  setWritable(writable: boolean, now: number): void {
    this.lastNow = now;
    this.writable = writable;
    if (writable) this.dirty = true;
  }

  takeActions(): ProtocolAction[] {
    if (this.dirty) this.pump(this.lastNow);
    const out = this.actions;
    this.actions = [];
    return out;
  }

  nextDeadline(): number | null {
    if (this.dirty) this.pump(this.lastNow);
    const nudgeAt = this.nudgeDeadline();
    if (nudgeAt === null) return this.okDeadline;
    return this.okDeadline === null ? nudgeAt : Math.min(this.okDeadline, nudgeAt);
  }

  /** A resend replay was written, the firmware checks line sequence, and the replayed line is still unanswered. */
  private replayUnanswered(): boolean {
    const n = this.lastResendN;
    if (n < 0 || this.silentDrop || this.profile.checksum === 'none' || this.ackedThrough >= n || this.sendCursor <= n) return false;
    // A replayed G28 or heat-up is legitimately quiet for long: it waits for its ok-timeout like any long command.
    return this.entry(n)?.cls !== CLS_LONG;
  }

  private nudgeDeadline(): number | null {
    if (this.nudged || this.failed || !this.writable || !this.profile.blankLineIgnored) return null;
    if (this.sendCursor - this.ackedThrough - 1 <= 0) return null;
    return this.lastTraffic + NUDGE_AFTER_MS;
  }

  isIdle(): boolean {
    return (
      this.jobQueue.size === 0 &&
      this.commandQueue.size === 0 &&
      this.inFlightLines() === 0 &&
      this.sendCursor === this.nextNew &&
      !this.resetQueued
    );
  }

  /** Resends per line sent: the link-quality figure for the stream summary. */
  resendRatio(): number {
    return this.stats.linesSent === 0 ? 0 : this.stats.resends / this.stats.linesSent;
  }

  /** For tests and diagnostics. */
  debugState(): HostProtocolDebugState {
    return {
      nextLineNumber: this.nextNew,
      sendCursor: this.sendCursor,
      ackedThrough: this.ackedThrough,
      inFlightLines: this.inFlightLines(),
      inFlightBytes: this.inflightBytes,
      commandSlots: this.slots(),
      swallowOks: this.swallowOks,
      queuedJobLines: this.jobQueue.size,
      queuedCommands: this.commandQueue.size,
    };
  }

  // ---- received lines ------------------------------------------------------------------------------------------

  private handle(reply: Reply, now: number): void {
    switch (reply.kind) {
      case 'empty':
      case 'wait':
        // `wait` is the idle firmware's heartbeat (Repetier): neither an ok nor proof that an ok will come.
        return;
      case 'ok':
        this.onOk(reply, now);
        return;
      case 'resend':
        this.onResend(reply.lineNumber, reply.text, now);
        return;
      case 'skip':
        // The firmware discarded that line (after a resend request); the ok that follows belongs to nothing live.
        if (this.profile.resend.okFollowsSkip) this.swallowOks++;
        this.actions.push({ type: 'info', text: reply.text });
        return;
      case 'busy':
        if (this.okDeadline !== null) this.okDeadline = Math.max(this.okDeadline, now + this.profile.timeouts.busyExtendMs);
        this.actions.push({ type: 'busy', text: reply.text });
        return;
      case 'start':
        this.onStart(reply.text);
        return;
      case 'action':
        this.actions.push({ type: 'host-action', name: reply.name, argument: reply.argument });
        return;
      case 'fatal':
        this.stats.firmwareErrors++;
        this.attach(reply.text, true);
        this.actions.push({ type: 'firmware-fatal', text: reply.text });
        return;
      case 'warning':
        this.stats.firmwareErrors++;
        if (this.isFragment(reply.text)) {
          this.swallowOks++;
          this.actions.push({ type: 'info', text: reply.text });
          return;
        }
        this.attach(reply.text, true);
        this.actions.push({ type: 'firmware-warning', text: reply.text });
        return;
      case 'protocol-error':
        this.lastProtocolError = SEQUENCE_ERROR_RE.test(reply.text)
          ? 'sequence'
          : UNNUMBERED_ERROR_RE.test(reply.text)
            ? 'unnumbered'
            : 'content';
        this.actions.push({ type: 'info', text: reply.text });
        return;
      case 'temperatures':
        if (!reply.autoreport) this.attach(reply.text, false);
        this.actions.push({ type: 'temperatures', temperatures: reply.temperatures });
        return;
      case 'firmware-name': {
        const fields = parseFirmwareFields(reply.text);
        this.pendingInfo = { name: fields.FIRMWARE_NAME ?? '', fields, capabilities: {} };
        this.attach(reply.text, false);
        return;
      }
      case 'capability':
        if (this.pendingInfo) this.pendingInfo.capabilities[reply.name] = reply.value;
        this.attach(reply.text, false);
        return;
      case 'info':
        this.attach(reply.text, false);
        this.actions.push({ type: 'info', text: reply.text });
        return;
    }
  }

  private onOk(reply: Extract<Reply, { kind: 'ok' }>, now: number): void {
    this.handshakeDone = true;
    const data = reply.data;
    if (data.length > 0) {
      if (data.includes('FIRMWARE_NAME:')) {
        const fields = parseFirmwareFields(data);
        this.pendingInfo = { name: fields.FIRMWARE_NAME ?? '', fields, capabilities: {} };
      } else if (looksLikeTemperatures(data)) {
        const temperatures = parseTemperatures(data);
        if (temperatures) this.actions.push({ type: 'temperatures', temperatures });
      }
    }
    if (this.pendingInfo) {
      this.actions.push({ type: 'firmware-info', info: this.pendingInfo });
      this.pendingInfo = null;
    }
    if (reply.freeSlots !== null) {
      // ADVANCED_OK's B counts free slots while the acknowledged command still holds one.
      const slots = Math.min(64, reply.freeSlots + 1);
      if (this.learnedSlots === null || slots > this.learnedSlots) this.learnedSlots = slots;
    }
    if (reply.lineNumber !== null && this.numbered) {
      const n = reply.lineNumber;
      if (n > this.ackedThrough && n < this.sendCursor) {
        this.ackThrough(n, data, now);
        return;
      }
      if (n <= this.ackedThrough) {
        // Already acknowledged (healed by a cumulative ack): nothing more is owed for it.
        this.stats.spuriousOks++;
        return;
      }
      // A number we never sent in this numbering (a late ok from before M110): count it as a plain ok.
    } else if (data.length === 0 && reply.lineNumber === null && this.swallowOks > 0) {
      this.swallowOks--;
      return;
    }
    if (data.length > 0 && looksLikeTemperatures(data)) {
      // M105's `ok T:` answers an M105: everything sent before that M105 was processed, whatever oks got lost.
      for (let n = this.ackedThrough + 1; n < this.sendCursor; n++) {
        if (this.entry(n)?.isM105) {
          // A firmware that drops bad lines silently may have dropped the lines before it instead of running them.
          if (this.silentDrop && n > this.ackedThrough + 1) this.resolveUnanswered(n, now);
          else this.ackThrough(n, data, now);
          return;
        }
      }
      if (this.silentDrop) {
        // Only an M105 answers with temperatures: a stray one (from an earlier poke) must not stand for another line's ok.
        this.stats.spuriousOks++;
        return;
      }
    }
    if (this.inFlightLines() === 0) {
      // Credits are never banked: an ok that matches nothing is counted and dropped.
      this.stats.spuriousOks++;
      return;
    }
    this.ackThrough(this.ackedThrough + 1, data, now);
  }

  private ackThrough(last: number, okData: string, now: number): void {
    for (let n = this.ackedThrough + 1; n <= last; n++) {
      const e = this.entry(n);
      if (!e) continue;
      this.inflightBytes -= e.len;
      if (e.cls === CLS_ALONE) this.aloneInFlight--;
      if (e.wait) this.waitsInFlight--;
      this.stats.linesAcked++;
      if (n > this.reportedThrough) {
        this.reportedThrough = n;
        this.resendsWithoutProgress = 0;
        if (e.jobLine !== NO_JOB_LINE && !e.cancelled) {
          this.actions.push({ type: 'job-acked', jobLine: e.jobLine, bytes: e.srcBytes });
        } else if (e.commandId !== NO_COMMAND) {
          this.finishCommand(e.commandId, n === last ? okData : '', true);
        }
      }
    }
    this.ackedThrough = last;
    this.consecutiveTimeouts = 0;
    if (this.lastResendN >= 0 && this.ackedThrough >= this.lastResendN) {
      this.lastResendN = -1;
      this.staleResends = 0;
    }
    this.okDeadline = this.inFlightLines() > 0 ? now + this.timeoutFor(this.ackedThrough + 1) : null;
    this.dirty = true;
  }

  private onResend(n: number | null, text: string, now: number): void {
    this.stats.resends++;
    if (this.profile.resend.okFollows) this.swallowOks++;
    if (this.profile.checksum === 'none' || !this.numbered) {
      this.actions.push({ type: 'info', text: `${text} (ignored: no numbered line was sent)` });
      return;
    }
    if (n === null) {
      this.fail('resend_invalid', `unreadable resend request '${text}'`);
      return;
    }
    // Before the M110 was acknowledged the firmware's numbers are from before it: start over from the M110.
    if (this.ackedThrough < 0) n = 0;
    const blamed = this.lastProtocolError;
    this.lastProtocolError = null;
    const repeat = n === this.lastResendN && this.ackedThrough < n;
    if (repeat && blamed === 'unnumbered') {
      // About a line without a number, never the replay; not one of the repeats counted either when it is the back
      // half of a line cut in two (that line's front half already drew its own request).
      return;
    }
    if (repeat && !this.replayRefused(n, blamed)) {
      // A repeat for one N, one per line that was in flight behind it: the replay already covers it.
      if (this.staleResends > 0) this.staleResends--;
      return;
    }
    // Only requests that make us write again count towards a storm: the expected repeats behind one request do not
    // (a window of short lines, as MeatPack packs them, draws many of those for a single damaged line).
    this.resendsWithoutProgress++;
    if (this.resendsWithoutProgress > this.profile.resend.stormLimit) {
      this.fail('resend_storm', `${this.resendsWithoutProgress} resend requests without progress (last: '${text}')`);
      return;
    }
    if (n > this.sendCursor) {
      this.fail('resend_invalid', `firmware asked for line ${n}, but the next line to send is ${this.sendCursor}`);
      return;
    }
    const oldest = Math.max(0, this.nextNew - this.history.length);
    const e = this.entry(n);
    if (n < this.sendCursor && (n < oldest || !e)) {
      this.fail('resend_out_of_history', `firmware asked for line ${n}, the oldest line kept is ${oldest}`);
      return;
    }
    // Every line written behind N is rejected by its sequence now; a firmware that says so sends one repeat each.
    // A refused replay adds to the repeats still owed for the lines that were in flight behind the first request.
    this.staleResends = (repeat ? this.staleResends : 0) + Math.max(0, this.sendCursor - n - 1);
    this.rewindTo(n, now);
    this.lastResendN = n;
  }

  /**
   * Whether a repeated `Resend: n` refuses the replay of n itself (which then must be written again at once) rather
   * than echoing a line that was in flight behind the first request. Before the replay is written it cannot be.
   * After it, the firmware's error line decides where it has one: a checksum fault is about the line numbered n (a
   * line behind it fails the sequence check first, as Marlin checks the sequence before the checksum); without a
   * hint, a repeat beyond the number of lines that were in flight behind n can only be about the replay. A wrong
   * guess either way costs little: an extra replay is refused by the firmware's sequence check, a missed one is
   * recovered by the ok-timeout poke.
   */
  private replayRefused(n: number, blamed: typeof this.lastProtocolError): boolean {
    if (this.sendCursor <= n) return false;
    if (blamed === 'content') return true;
    return this.staleResends <= 0;
  }

  /**
   * The M105 at `pokeN` was answered but the lines before it were not: each was either dropped (bad checksum) or run
   * with its ok lost, and the firmware's replies cannot tell which. Send them again (same numbers: the firmware does
   * not check them) only if a second run cannot move or extrude twice; otherwise stop the job. Never skip a line.
   */
  private resolveUnanswered(pokeN: number, now: number): void {
    const modes = this.motion.explicitModes;
    for (let n = this.ackedThrough + 1; n < pokeN; n++) {
      const e = this.entry(n);
      const cmd = e ? payloadOf(e.framed) : '';
      if (!e || !isReplaySafe(cmd, commandWord(cmd), modes)) {
        this.fail(
          'ok_timeout',
          `line ${n} ('${cmd}') got no ok: ${this.profile.displayName} drops a corrupted line without a reply and a lost ok ` +
            'looks the same, so it may or may not have run; sending it again could move or extrude twice, so the job ' +
            'is stopped here (nothing was skipped)',
        );
        return;
      }
    }
    this.actions.push({ type: 'info', text: `line ${this.ackedThrough + 1} got no ok: sending it again (a second run changes nothing)` });
    this.rewindTo(this.ackedThrough + 1, now);
  }

  /** Lines from `n` on were dropped by the firmware: they owe no ok and are written again, one at a time. */
  private rewindTo(n: number, now: number): void {
    if (n <= this.ackedThrough) this.ackedThrough = n - 1;
    this.sendCursor = n;
    this.recountInFlight();
    this.okDeadline = this.inFlightLines() > 0 ? now + this.timeoutFor(this.ackedThrough + 1) : null;
    this.dirty = true;
  }

  private onStart(text: string): void {
    if (!this.handshakeDone) {
      // The board booted after we opened the port: whatever we sent went to the bootloader.
      this.actions.push({ type: 'info', text });
      if (this.inFlightLines() > 0) this.rewindTo(this.ackedThrough + 1, this.lastNow);
      return;
    }
    this.actions.push({ type: 'firmware-reset' });
    this.forgetEverything();
    this.motion.reset();
    this.handshakeDone = false;
    this.resetQueued = true;
  }

  // ---- timeouts ------------------------------------------------------------------------------------------------

  private onOkTimeout(now: number): void {
    this.stats.timeouts++;
    this.consecutiveTimeouts++;
    if (this.inFlightLines() === 0 && this.sendCursor === this.nextNew) {
      this.okDeadline = null;
      return;
    }
    if (this.consecutiveTimeouts > this.profile.timeouts.maxConsecutive) {
      this.fail('ok_timeout', `no ok for line ${this.ackedThrough + 1} after ${this.consecutiveTimeouts} timeouts`);
      return;
    }
    this.okDeadline = now + this.profile.timeouts.shortMs;
    // After a timeout a `Resend: N` for the last N is the firmware's answer to the poke, not a repeat: honour it.
    this.lastResendN = -1;
    this.staleResends = 0;
    if (!this.handshakeDone && this.profile.checksum === 'xor') {
      // Nothing ever answered: the board was probably still booting. Send what is in flight again.
      this.rewindTo(this.ackedThrough + 1, now);
      this.okDeadline = now + this.profile.timeouts.shortMs;
      return;
    }
    if (this.sendCursor < this.nextNew) {
      // During a replay the next replayed line is the poke: the firmware's sequence check tells us what it has.
      this.forceNext = true;
    } else if (!this.pokeQueued()) {
      const poke = this.pending('M105', NO_JOB_LINE, 0, NO_COMMAND, true);
      this.commandQueue.unshift(poke);
    }
    this.dirty = true;
  }

  private pokeQueued(): boolean {
    for (const p of this.commandQueue) if (p.force) return true;
    for (let n = this.ackedThrough + 1; n < this.sendCursor; n++) {
      const e = this.entry(n);
      if (e && e.isM105 && e.commandId === NO_COMMAND) return true;
    }
    return false;
  }

  private timeoutFor(n: number): number {
    const e = this.entry(n);
    return e && e.cls === CLS_LONG ? this.profile.timeouts.longMs : this.profile.timeouts.shortMs;
  }

  // ---- sending -------------------------------------------------------------------------------------------------

  private pump(now: number): void {
    this.dirty = false;
    if (this.failed || !this.writable) return;
    const frames: string[] = [];
    let bytes = 0;
    const slots = this.slots();
    const pingPong = this.profile.flowControl === 'ping-pong';
    const rxLimit = this.profile.rxBufferBytes - 1;
    for (;;) {
      const inFlight = this.sendCursor - this.ackedThrough - 1;
      if (this.sendCursor < this.nextNew) {
        // Resend replay: ping-pong, unless the timeout poke forces the next line out.
        if (inFlight > 0 && !this.forceNext) break;
        this.forceNext = false;
        const e = this.entry(this.sendCursor)!;
        frames.push(e.framed);
        bytes += e.len;
        this.inflightBytes += e.len;
        if (e.cls === CLS_ALONE) this.aloneInFlight++;
        if (e.wait) this.waitsInFlight++;
        this.sendCursor++;
        this.stats.linesResent++;
        if (inFlight === 0) this.okDeadline = now + this.timeoutFor(this.sendCursor - 1);
        continue;
      }
      const head = this.commandQueue.peek();
      if (head && head.force && this.numbered) {
        // The ok-timeout poke goes out whatever the window, a pending M110 or a stalling command say.
        this.commandQueue.shift();
        bytes += this.frameAndSend(head, head.cls, frames, now);
        continue;
      }
      if (this.numberingStale && (this.commandQueue.size > 0 || this.jobQueue.size > 0)) {
        this.numberingStale = false;
        this.resetQueued = true;
      }
      if (this.resetQueued) {
        if (inFlight > 0) break;
        this.resetQueued = false;
        if (this.profile.checksum === 'none') {
          this.startNumbering();
          continue;
        }
        this.startNumbering();
        bytes += this.frameAndSend(this.pending('M110 N0', NO_JOB_LINE, 0, NO_COMMAND, false), CLS_ALONE, frames, now);
        continue;
      }
      const next = this.commandQueue.peek() ?? (this.jobHeld ? undefined : this.jobQueue.peek());
      if (!next) break;
      if (this.profile.checksum === 'xor') {
        if (!this.numbered || this.nextNew > this.profile.lineNumberMax) {
          // Numbering never started, or the next number would pass what the firmware compares: M110 first.
          this.resetQueued = true;
          continue;
        }
      } else if (!this.numbered) {
        this.startNumbering();
      }
      if (!next.force) {
        if (this.aloneInFlight > 0) break;
        // A blocking wait is a barrier: what follows it would sit in the firmware's queue, out of reach of a pause.
        if (this.waitsInFlight > 0) break;
        if (inFlight > 0) {
          if (pingPong || next.cls === CLS_ALONE) break;
          if (inFlight >= slots) break;
          if (this.inflightBytes + this.framedLength(this.nextNew, next) > rxLimit) break;
        }
      }
      if (next === this.commandQueue.peek()) this.commandQueue.shift();
      else this.jobQueue.shift();
      bytes += this.frameAndSend(next, next.cls, frames, now);
      this.motion.update(next.text);
    }
    if (frames.length > 0) {
      this.actions.push({ type: 'write', data: frames.length === 1 ? frames[0]! : frames.join('') });
      this.stats.bytesWritten += bytes;
      this.lastTraffic = now;
      this.nudged = false;
    }
  }

  /** Assigns the next number, frames, stores in history, counts as in flight. Returns the framed length. */
  private frameAndSend(p: PendingLine, cls: number, frames: string[], now: number): number {
    const n = this.nextNew;
    let framed: string;
    if (this.profile.checksum === 'none') {
      framed = p.text + '\n';
    } else {
      const prefix = 'N' + n + ' ';
      framed = prefix + p.text + '*' + xorOf(prefix, 0, p.xor) + '\n';
    }
    const e = this.history[n & this.historyMask]!;
    e.n = n;
    e.framed = framed;
    e.len = this.wireLength === null ? framed.length : this.wireLength(framed);
    e.jobLine = p.jobLine;
    e.srcBytes = p.srcBytes;
    e.commandId = p.commandId;
    e.cls = cls;
    e.isM105 = p.isM105;
    e.wait = p.wait;
    e.cancelled = false;
    const wasEmpty = this.sendCursor - this.ackedThrough - 1 === 0;
    this.nextNew = n + 1;
    this.sendCursor = n + 1;
    this.inflightBytes += e.len;
    if (cls === CLS_ALONE) this.aloneInFlight++;
    if (p.wait) this.waitsInFlight++;
    this.stats.linesSent++;
    if (wasEmpty || this.okDeadline === null) this.okDeadline = now + this.timeoutFor(this.ackedThrough + 1);
    frames.push(framed);
    return e.len;
  }

  private framedLength(n: number, p: PendingLine): number {
    if (this.profile.checksum === 'none') return p.text.length + 1;
    const prefix = 'N' + n + ' ';
    const cs = xorOf(prefix, 0, p.xor);
    if (this.wireLength !== null) return this.wireLength(prefix + p.text + '*' + cs + '\n');
    return prefix.length + p.text.length + 1 + (cs >= 100 ? 3 : cs >= 10 ? 2 : 1) + 1;
  }

  private pending(text: string, jobLine: number, srcBytes: number, commandId: number, force: boolean, xor = xorOf(text)): PendingLine {
    const word = commandWord(text);
    const cls = this.aloneSet.has(word) ? CLS_ALONE : this.longSet.has(word) ? CLS_LONG : CLS_SHORT;
    return { text, xor, jobLine, srcBytes, commandId, cls, isM105: word === 'M105', wait: this.waitSet.has(word), force };
  }

  // ---- bookkeeping ---------------------------------------------------------------------------------------------

  private slots(): number {
    // Silent-drop: with one line in flight, an unanswered line is the only one whose fate is unknown.
    if (this.profile.flowControl === 'ping-pong' || this.silentDrop) return 1;
    return Math.min(this.learnedSlots ?? this.profile.commandSlots, this.history.length >> 1);
  }

  private inFlightLines(): number {
    return this.sendCursor - this.ackedThrough - 1;
  }

  private entry(n: number): SentLine | undefined {
    if (n < 0) return undefined;
    const e = this.history[n & this.historyMask];
    return e && e.n === n ? e : undefined;
  }

  private resizeHistory(cap: number): void {
    const old = this.history;
    this.history = new Array<SentLine>(cap);
    for (let i = 0; i < cap; i++) {
      this.history[i] = { n: -1, framed: '', len: 0, jobLine: NO_JOB_LINE, srcBytes: 0, commandId: 0, cls: 0, isM105: false, wait: false, cancelled: false };
    }
    this.historyMask = cap - 1;
    for (const e of old) if (e.n >= 0 && e.n >= this.nextNew - cap) Object.assign(this.history[e.n & this.historyMask]!, e);
  }

  private startNumbering(): void {
    for (const e of this.history) e.n = -1;
    this.nextNew = 0;
    this.sendCursor = 0;
    this.ackedThrough = -1;
    this.reportedThrough = -1;
    this.inflightBytes = 0;
    this.aloneInFlight = 0;
    this.waitsInFlight = 0;
    this.swallowOks = 0;
    this.lastResendN = -1;
    this.staleResends = 0;
    this.resendsWithoutProgress = 0;
    this.numbered = true;
    this.brokenWait = -1;
  }

  private recountInFlight(): void {
    this.inflightBytes = 0;
    this.aloneInFlight = 0;
    this.waitsInFlight = 0;
    for (let n = this.ackedThrough + 1; n < this.sendCursor; n++) {
      const e = this.entry(n);
      if (!e) continue;
      this.inflightBytes += e.len;
      if (e.cls === CLS_ALONE) this.aloneInFlight++;
      if (e.wait) this.waitsInFlight++;
    }
  }

  /**
   * Whether the firmware refused as unknown a command that is none of our lines in flight: a piece of a damaged line
   * with neither its `N` nor its `*` (cut in two by a byte read as a newline: `N7 G1 X1*8` + `5`, or its `N` destroyed
   * as well), which the firmware takes as a command of its own. Its ok then belongs to nothing we sent.
   * One of our lines damaged in a way its checksum cannot see (the same bit flipped in two bytes: `G1 X1` read as
   * `Gq Xq`, as `G<DC1> X1` when a byte became a control one the parser drops, or as `$C1 X1` when the space after
   * the number was one of the two; a few lines in 100,000 at a byte error rate of 1e-3) is no piece: the firmware
   * accepted its number and ran it, and the ok is that line's. Taking it for a piece would leave us one ok behind
   * for the rest of the job, each later replay waiting for an ok-timeout. A piece of a cut line without `*` is the
   * digits after it, or needs two cuts, and is then rarely that close to a whole line; a wrong guess that way counts
   * one ok too many, which heals (a later ok finds nothing in flight and is dropped, or a resend request rewinds).
   */
  private isFragment(text: string): boolean {
    if (!this.numbered || this.profile.checksum !== 'xor') return false;
    const m = UNKNOWN_COMMAND_RE.exec(text);
    if (m === null) return false;
    const raw = m[1]!;
    const echoed = raw.replaceAll(' ', '').toUpperCase();
    for (let n = this.ackedThrough + 1; n < this.sendCursor; n++) {
      const e = this.entry(n);
      if (!e) continue;
      const payload = payloadOf(e.framed);
      if (payload.replaceAll(' ', '').toUpperCase() === echoed) return false;
      if (isDamagedEcho(raw, payload, INVISIBLE_DAMAGE)) return false;
    }
    return true;
  }

  /** A reply line that arrived while a console command is the oldest line in flight belongs to it. */
  private attach(text: string, isError: boolean): void {
    const e = this.entry(this.ackedThrough + 1);
    if (!e || e.commandId === NO_COMMAND || this.ackedThrough + 1 >= this.sendCursor) return;
    const c = this.commands.get(e.commandId);
    if (!c) return;
    c.lines.push(text);
    if (isError) c.failed = true;
  }

  private finishCommand(id: number, okData: string, delivered: boolean): void {
    const c = this.commands.get(id);
    if (!c) return;
    this.commands.delete(id);
    if (okData) c.lines.push(okData);
    this.actions.push({ type: 'command-done', commandId: id, ok: delivered && !c.failed, lines: c.lines });
  }

  /** Nothing queued or in flight survives (reset, emergency stop, failure); open commands end unsuccessfully. */
  private forgetEverything(): void {
    this.jobQueue.clear();
    this.jobHeld = false;
    while (this.commandQueue.size > 0) this.commandQueue.shift();
    for (const id of [...this.commands.keys()]) this.finishCommand(id, '', false);
    this.dropInFlight();
    this.okDeadline = null;
    this.pendingInfo = null;
    this.forceNext = false;
    this.consecutiveTimeouts = 0;
  }

  private dropInFlight(): void {
    for (const e of this.history) e.n = -1;
    this.ackedThrough = this.nextNew - 1;
    this.sendCursor = this.nextNew;
    this.reportedThrough = this.nextNew - 1;
    this.inflightBytes = 0;
    this.aloneInFlight = 0;
    this.waitsInFlight = 0;
    this.swallowOks = 0;
    this.lastResendN = -1;
    this.staleResends = 0;
    this.resendsWithoutProgress = 0;
  }

  private fail(code: Extract<ProtocolAction, { type: 'protocol-failure' }>['code'], message: string): void {
    this.actions.push({ type: 'protocol-failure', code, message });
    this.forgetEverything();
    this.failed = true;
    this.numberingStale = true;
  }
}

/** The command inside a framed line `N<n> <cmd>*<cs>\n` (bare lines have no number and no checksum). */
function payloadOf(framed: string): string {
  const body = framed.endsWith('\n') ? framed.slice(0, -1) : framed;
  if (body.charCodeAt(0) !== 78 /* N */) return body;
  const sp = body.indexOf(' ');
  const star = body.lastIndexOf('*');
  return body.slice(sp + 1, star > sp ? star : body.length);
}
