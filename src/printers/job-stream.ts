// One running job on a session: pulls lines from the file, strips and checks them, pushes them into the protocol, counts
// acks, and owns its phase (the one place phase changes and the printing time is kept).
import { ExtrusionTracker } from '../protocol/extrusion-tracker.js';
import { GcodeFileSource } from './gcode-file-source.js';
import type { PreparedReader } from './prepared-gcode-cache.js';
import type { JobFailureCode, JobOutcome, JobSnapshot, PendingAction } from './printer-state.js';
import { sentBytes, type GcodeTotal } from './session-gcode-total.js';

/** What the job needs from the protocol core (HostProtocol satisfies it). */
export interface JobSink {
  jobCapacity(): number;
  pushJobLine(text: string, bytes: number, now: number): unknown;
  /** A line of a prepared file: its characters are checked and its checksum known (`checkedLength` the profile's limit). */
  pushPreparedLine?(text: string, xor: number, bytes: number, now: number): unknown;
}

/** The pure line helpers of the protocol core, passed in so this file stays testable on its own. */
export interface LineRules {
  strip(raw: string): string;
  /** null when the firmware can take the line, otherwise why not. */
  check(stripped: string): string | null;
  /** Sees every line pushed (the motion tracker, for pause/resume). */
  observe?(stripped: string): void;
  /** Why a line of this many characters, already checked character by character, cannot be sent; null when it can. */
  checkLength?(length: number): string | null;
}

export type JobPhase = JobSnapshot['phase'];

/** The phases a job may move to from each phase; anything else is a bug in the caller. */
const NEXT: Record<JobPhase, readonly JobPhase[]> = {
  streaming: ['pausing', 'finishing'],
  pausing: ['paused'],
  paused: ['resuming'],
  resuming: ['streaming', 'paused'],
  finishing: [],
};

/** Phases in which the printer is printing: elapsed_ms counts only these (pauses and their scripts excluded). */
const PRINTING: ReadonlySet<JobPhase> = new Set(['streaming', 'finishing']);

export class JobStream {
  readonly source: GcodeFileSource;
  private currentPhase: JobPhase = 'streaming';
  linesPushed = 0;
  linesAcked = 0;
  /** File bytes acknowledged, comments and blank lines included (they ride on the next sent line). */
  bytesAcked = 0;
  /** Bytes of the lines actually sent that were acknowledged (comments and blank lines excluded). */
  gcodeBytesAcked = 0;
  /** The same measure over the whole file, once the pre-pass finished (null until then). */
  gcodeTotal: GcodeTotal | null = null;
  /** Each pushed, not yet acknowledged line, oldest first (acks come in order): its bytes and its extrusion count on ack. */
  private readonly unackedLines: string[] = [];
  private unackedHead = 0;
  /** Printing time accumulated before `printingSince`. */
  private printedMs = 0;
  private printingSince: number | null;
  /** Every line of the file was pushed. */
  sourceDone = false;
  /** Bytes of blank and comment-only lines since the last pushed line: they ride on the next line's count. */
  private skippedBytes = 0;
  private lastProgressPct = -1;
  private lastProgressAt = 0;
  /** A pause or cancel waiting for the blocking wait in flight to end (the firmware cannot break it). */
  pendingAction: PendingAction | null = null;
  /** Set when the job ended; the session publishes the matching event. */
  outcome: JobOutcome | null = null;
  /** Filament per tool as it stood when the job settled; null while the link's lines still count for this job. */
  private settledMm: number[] | null = null;
  readonly finished: Promise<JobOutcome>;
  private resolveFinished!: (o: JobOutcome) => void;
  private readonly onReadable: () => void;

  /** Wall-clock ms of the start, for the record; durations run on the monotonic clock instead. */
  readonly startedAt: number;

  /**
   * `start`: the same instant on the wall clock (kept as started_at) and on the monotonic clock, which every `now` given
   * to this job's methods is read from: a wall-clock jump mid-print changes neither the printing time nor the pauses.
   */
  constructor(
    readonly id: string,
    readonly filePath: string,
    start: { wall: number; monotonic: number },
    onReadable: () => void,
    onError: (message: string) => void,
    /**
     * Counts the filament of every acknowledged line (what the firmware ran, not what was sent). The session passes its
     * link's tracker, which the commands between job lines (pause/resume/cancel scripts) feed too; its totals were reset
     * at the job's start, so until the job settles they are the job's.
     */
    readonly extrusion: ExtrusionTracker = new ExtrusionTracker(),
  ) {
    this.onReadable = onReadable;
    this.source = new GcodeFileSource(filePath, { onReadable, onError: (err) => onError(err.message) });
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
    this.startedAt = start.wall;
    this.printingSince = start.monotonic;
  }

  get phase(): JobPhase {
    return this.currentPhase;
  }

  /** The one way a job changes phase; keeps the printing time (pauses excluded). Throws on a move the table forbids. */
  transition(to: JobPhase, now: number): void {
    const from = this.currentPhase;
    if (from === to) return;
    if (!NEXT[from].includes(to)) throw new Error(`job ${this.id}: no transition from ${from} to ${to}`);
    if (PRINTING.has(from) && !PRINTING.has(to) && this.printingSince !== null) {
      this.printedMs += now - this.printingSince;
      this.printingSince = null;
    } else if (!PRINTING.has(from) && PRINTING.has(to)) this.printingSince = now;
    this.currentPhase = to;
  }

  /** Milliseconds spent printing so far (pauses, and the scripts that park and return, excluded). */
  elapsedMs(now: number): number {
    return this.printedMs + (this.printingSince === null ? 0 : Math.max(0, now - this.printingSince));
  }

  get size(): number {
    return this.prepared?.size ?? this.source.size;
  }

  /** The file read once and shared (prepared-gcode-cache): lines come stripped, checked and with their checksum. */
  private prepared: PreparedReader | null = null;

  get isPrepared(): boolean {
    return this.prepared !== null;
  }

  /** Reads the job's lines from a prepared file instead of streaming it; the reader is released when the job ends. */
  usePrepared(reader: PreparedReader): void {
    this.prepared = reader;
  }

  /** The progress total: the prepared file's own once it is read, else the pre-pass's. */
  private total(): GcodeTotal | null {
    return this.prepared?.totals ?? this.gcodeTotal;
  }

  /**
   * Pushes lines while the protocol has room. Returns a failure when a line cannot be sent as-is (never truncated or
   * skipped), otherwise null. When the file has no more lines right now, the source calls onReadable later.
   */
  feed(sink: JobSink, rules: LineRules, now: number): { code: JobFailureCode; message: string } | null {
    if (this.phase !== 'streaming' || this.sourceDone || this.outcome) return null;
    if (this.prepared) return this.feedPrepared(this.prepared, sink, rules, now);
    const src = this.source;
    let room = sink.jobCapacity();
    while (room > 0) {
      const raw = src.nextLine();
      if (raw === null) {
        if (src.done) this.sourceDone = true;
        return null;
      }
      const bytes = src.lastLineBytes + this.skippedBytes;
      const text = rules.strip(raw);
      if (text === '') {
        this.skippedBytes = bytes;
        continue;
      }
      const problem = rules.check(text);
      if (problem !== null) {
        return { code: 'line_rejected', message: `line ${src.lineNumber} of ${this.filePath} cannot be sent: ${problem}` };
      }
      this.skippedBytes = 0;
      rules.observe?.(text);
      this.unackedLines.push(text);
      sink.pushJobLine(text, bytes, now);
      this.linesPushed += 1;
      room -= 1;
    }
    if (src.done) this.sourceDone = true;
    return null;
  }

  /** feed() over a prepared file: no read, strip or checksum per line, only the profile's length limit. */
  private feedPrepared(r: PreparedReader, sink: JobSink, rules: LineRules, now: number): { code: JobFailureCode; message: string } | null {
    let room = sink.jobCapacity();
    while (room > 0) {
      if (!r.next(this.onReadable)) {
        if (r.error) return { code: 'file_invalid', message: r.error.message };
        if (r.done) this.sourceDone = true;
        return null;
      }
      const b = r.block!;
      const i = r.index;
      const start = b.starts[i]!;
      const end = b.starts[i + 1]!;
      const problem = b.problems?.get(i) ?? rules.checkLength?.(end - start) ?? null;
      if (problem !== null) {
        return { code: 'line_rejected', message: `line ${b.fileLine[i]} of ${this.filePath} cannot be sent: ${problem}` };
      }
      const text = b.text.toString('latin1', start, end);
      rules.observe?.(text);
      this.unackedLines.push(text);
      if (sink.pushPreparedLine) sink.pushPreparedLine(text, b.xor[i]!, b.srcBytes[i]!, now);
      else sink.pushJobLine(text, b.srcBytes[i]!, now);
      this.linesPushed += 1;
      room -= 1;
    }
    if (r.done) this.sourceDone = true;
    return null;
  }

  /**
   * Counts one acknowledged line; true when a progress event is due (a new whole percent, or a second passed).
   * `observe` sees the line the firmware just ran (the heater targets follow what ran, not what waits in a queue).
   */
  acked(bytes: number, now: number, observe?: (line: string) => void): boolean {
    this.linesAcked += 1;
    this.bytesAcked += bytes;
    const line = this.unackedLines[this.unackedHead++];
    if (line !== undefined) {
      observe?.(line);
      // Prepared lines are ASCII (a line with other characters is refused before it is sent).
      this.gcodeBytesAcked += this.prepared ? line.length + 1 : sentBytes(line);
      this.extrusion.update(line);
    }
    // Drop the consumed head now and then, so the queue holds only what is in flight.
    if (this.unackedHead >= 1024) this.unackedLines.splice(0, this.unackedHead), (this.unackedHead = 0);
    const pct = this.progressPct();
    if (pct !== this.lastProgressPct && (Math.floor(pct) !== Math.floor(this.lastProgressPct) || now - this.lastProgressAt >= 1000)) {
      this.lastProgressPct = pct;
      this.lastProgressAt = now;
      return true;
    }
    return false;
  }

  /** Every pushed line is acknowledged (nothing of the job left in the firmware's queue or in flight). */
  get drained(): boolean {
    return this.linesAcked === this.linesPushed;
  }

  /**
   * Percent of the G-code bytes acknowledged, comments and blank lines excluded, against the pre-pass total; until
   * the pre-pass is done, the share of the file's bytes (a close first estimate).
   */
  progressPct(): number {
    if (this.outcome?.status === 'completed') return 100;
    const total = this.total()?.bytes;
    if (total !== undefined) {
      if (total === 0) return this.sourceDone && this.drained ? 100 : 0;
      return Math.min(100, Math.round((this.gcodeBytesAcked / total) * 10000) / 100);
    }
    const size = this.size;
    if (size === 0) return this.sourceDone && this.drained ? 100 : 0;
    return Math.min(100, Math.round((this.bytesAcked / size) * 10000) / 100);
  }

  /**
   * Marks the job ended (once); trailing comment bytes count as done on completion. `settleLater`: lines still to run
   * for this job (its cancel script) count for it until settle(); `finished` resolves then.
   */
  end(outcome: JobOutcome, now: number, settleLater = false): boolean {
    if (this.outcome) return false;
    this.outcome = outcome;
    this.pendingAction = null;
    if (this.printingSince !== null) this.printedMs += Math.max(0, now - this.printingSince);
    this.printingSince = null;
    if (outcome.status === 'completed') this.bytesAcked = this.size;
    this.source.close();
    this.prepared?.release();
    if (!settleLater) this.settle();
    return true;
  }

  /** After end(): the filament count is frozen (later lines are not this job's) and `finished` resolves. Once. */
  settle(): void {
    if (!this.outcome || this.settledMm) return;
    this.settledMm = this.extrudedMm();
    this.resolveFinished(this.outcome);
  }

  snapshot(now: number): JobSnapshot {
    return {
      id: this.id,
      file_path: this.filePath,
      progress: this.progressPct(),
      bytes_acked: this.bytesAcked,
      bytes_total: this.size,
      gcode_bytes_acked: this.gcodeBytesAcked,
      gcode_bytes_total: this.total()?.bytes ?? null,
      lines_acked: this.linesAcked,
      lines_sent: this.linesPushed,
      lines_total: this.total()?.lines ?? null,
      phase: this.phase,
      pending_action: this.pendingAction,
      started_at: this.startedAt,
      elapsed_ms: Math.round(this.elapsedMs(now)),
      extruded_mm: this.extrudedMm(),
      used_basis: 'wire',
    };
  }

  /** Net filament per tool (index = tool) of the acknowledged lines: retractions subtracted, never below 0. */
  extrudedMm(): number[] {
    if (this.settledMm) return [...this.settledMm];
    const out: number[] = [];
    for (const t of this.extrusion.report().tools) {
      while (out.length < t.tool) out.push(0);
      out[t.tool] = Math.max(0, t.net_mm);
    }
    return out;
  }
}
