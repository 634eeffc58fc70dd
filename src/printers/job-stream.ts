// One running job on a session: pulls lines from the file, strips and checks them, pushes them into the protocol, counts acks.
import { GcodeFileSource } from './gcode-file-source.js';
import type { JobFailureCode, JobOutcome, JobSnapshot } from './printer-state.js';

/** What the job needs from the protocol core (HostProtocol satisfies it). */
export interface JobSink {
  jobCapacity(): number;
  pushJobLine(text: string, bytes: number, now: number): unknown;
}

/** The pure line helpers of the protocol core, passed in so this file stays testable on its own. */
export interface LineRules {
  strip(raw: string): string;
  /** null when the firmware can take the line, otherwise why not. */
  check(stripped: string): string | null;
  /** Sees every line pushed (the motion tracker, for pause/resume). */
  observe?(stripped: string): void;
}

export type JobPhase = JobSnapshot['phase'];

export class JobStream {
  readonly source: GcodeFileSource;
  phase: JobPhase = 'streaming';
  linesPushed = 0;
  linesAcked = 0;
  bytesAcked = 0;
  /** Every line of the file was pushed. */
  sourceDone = false;
  /** Bytes of blank and comment-only lines since the last pushed line: they ride on the next line's count. */
  private skippedBytes = 0;
  private lastProgressPct = -1;
  private lastProgressAt = 0;
  /** Set when the job ended; the session publishes the matching event. */
  outcome: JobOutcome | null = null;
  readonly finished: Promise<JobOutcome>;
  private resolveFinished!: (o: JobOutcome) => void;

  constructor(
    readonly id: string,
    readonly filePath: string,
    readonly startedAt: number,
    onReadable: () => void,
    onError: (message: string) => void,
  ) {
    this.source = new GcodeFileSource(filePath, { onReadable, onError: (err) => onError(err.message) });
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
  }

  get size(): number {
    return this.source.size;
  }

  /**
   * Pushes lines while the protocol has room. Returns a failure when a line cannot be sent as-is (never truncated or
   * skipped), otherwise null. When the file has no more lines right now, the source calls onReadable later.
   */
  feed(sink: JobSink, rules: LineRules, now: number): { code: JobFailureCode; message: string } | null {
    if (this.phase !== 'streaming' || this.sourceDone || this.outcome) return null;
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
      sink.pushJobLine(text, bytes, now);
      this.linesPushed += 1;
      room -= 1;
    }
    if (src.done) this.sourceDone = true;
    return null;
  }

  /** Counts one acknowledged line; true when a progress event is due (a new whole percent, or a second passed). */
  acked(bytes: number, now: number): boolean {
    this.linesAcked += 1;
    this.bytesAcked += bytes;
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

  progressPct(): number {
    if (this.outcome?.status === 'completed') return 100;
    const size = this.source.size;
    if (size === 0) return this.sourceDone && this.drained ? 100 : 0;
    return Math.min(100, Math.round((this.bytesAcked / size) * 10000) / 100);
  }

  /** Marks the job ended (once); trailing comment bytes count as done on completion. */
  end(outcome: JobOutcome): boolean {
    if (this.outcome) return false;
    this.outcome = outcome;
    if (outcome.status === 'completed') this.bytesAcked = this.source.size;
    this.source.close();
    this.resolveFinished(outcome);
    return true;
  }

  snapshot(): JobSnapshot {
    return {
      id: this.id,
      file_path: this.filePath,
      progress: this.progressPct(),
      bytes_acked: this.bytesAcked,
      bytes_total: this.source.size,
      lines_acked: this.linesAcked,
      lines_sent: this.linesPushed,
      phase: this.phase,
      started_at: this.startedAt,
    };
  }
}
