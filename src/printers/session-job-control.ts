// The job side of a printer session: start, feed, acknowledge, pause/park, resume, cancel, finish, and the job events.
import { AppError } from '../errors.js';
import { stripGcodeLine, checkLine, lengthProblem } from '../protocol/framing.js';
import type { HostProtocol } from '../protocol/host-protocol.js';
import { JobStream } from './job-stream.js';
import { printerOffline, wrongState, type JobFailureCode, type JobOutcome, type JobSnapshot } from './printer-state.js';
import type { SessionContext } from './session-context.js';
import { countGcode } from './session-gcode-total.js';
import { cancelScript, cooldownScript, lastFilamentLine, pauseScript, reheatScript, returnScript, type PausedState } from './session-scripts.js';

export interface JobHandle {
  id: string;
  /** Settles when the job completes, fails or is cancelled (never rejects). */
  finished: Promise<JobOutcome>;
  /** The job's counters, also after it ended. */
  snapshot(): JobSnapshot;
}

export class SessionJobControl {
  private job: JobStream | null = null;
  private paused: PausedState | null = null;
  private pauseWaiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  /** A cancelled job whose cancel script still runs: its lines count for it until it settles. */
  private settling: JobStream | null = null;
  /** Job lines behind a blocking wait are held in the protocol (a pause interrupted the wait) until the resume. */
  private holding = false;
  /** The blocking wait a pause broke with the profile's break command; the park remembers it for the resume. */
  private brokenWait: string | null = null;
  /** Set while a resume's reheat lines run (the head has not moved back yet): a pause may still break them. */
  private reheating: object | null = null;
  /** Counts resumes: one a pause ended must not act on the replies it gets after a newer resume began. */
  private resumes = 0;
  /** The cancel script the printer still runs after its job ended; null once it ran (or failed). */
  private scriptTail: Promise<void> | null = null;
  /** False after a print until the operator marks the bed cleared. */
  ready = true;

  constructor(private readonly ctx: SessionContext) {}

  /** The running job, or null. */
  get current(): JobStream | null {
    return this.job;
  }

  snapshot(): JobSnapshot | null {
    return this.job ? this.job.snapshot(this.ctx.clock.monotonic()) : null;
  }

  /** Starts streaming a file; the caller checked that the printer is idle. */
  async start(req: { jobId: string; filePath: string }): Promise<JobHandle> {
    const { ctx } = this;
    if (!this.ready) throw new AppError(409, 'printer_busy', `printer ${ctx.printerId} is waiting for the bed to be cleared`);
    // The link's tracker counts for one job at a time: a cancelled job still running its script stops counting here.
    this.settleCancelled();
    const extrusion = ctx.extrusion();
    // Modes, E position, flow and retraction state carry on from what ran before; only the counters are this job's.
    extrusion.resetTotals();
    const job = new JobStream(
      req.jobId,
      req.filePath,
      { wall: ctx.clock.now(), monotonic: ctx.clock.monotonic() },
      () => this.onReadable(job),
      (message) => this.onFileError(job, message),
      extrusion,
    );
    this.job = job;
    ctx.setStatus('printing');
    // Every job starts its own numbering (M110 N0, sent once nothing else is in flight).
    ctx.protocol()!.resetLineNumbers(ctx.clock.monotonic());
    try {
      // A file held in the shared cache (or read into it now) is read and parsed once for every printer printing it;
      // one too big to hold is streamed by this job alone.
      const prepared = (await ctx.preparedFiles?.open(req.filePath)) ?? null;
      if (prepared && this.job !== job) prepared.release();
      else if (prepared) job.usePrepared(prepared);
      else await job.source.open();
    } catch (err) {
      if (this.job === job) {
        this.job = null;
        if (ctx.status() === 'printing') ctx.setStatus('idle');
      }
      throw err;
    }
    if (this.job !== job) throw printerOffline(ctx.printerId, ctx.status());
    // The progress total: a second, streaming read of the file, counted like the lines that are sent (a prepared
    // file has its own once it is read).
    if (!job.isPrepared) countGcode(req.filePath, stripGcodeLine, () => job.outcome !== null).then(
      (total) => {
        if (total !== null) job.gcodeTotal = total;
      },
      () => undefined, // the job's own read reports a bad file
    );
    ctx.bus.emit('job.started', { printer_id: ctx.printerId, job_id: job.id });
    ctx.flush();
    return { id: job.id, finished: job.finished, snapshot: () => job.snapshot(ctx.clock.monotonic()) };
  }

  /**
   * Stops feeding, lets the queued lines finish, remembers position and temperatures, parks. Resolves when parked.
   * Inside a blocking wait (a heat-up) the lines behind it were never written: they stay held for the resume, and the
   * wait is broken (Marlin M108) so the park follows at once, or, where the firmware cannot break it, the pause is
   * the job's pending action until the wait ends.
   */
  pause(): Promise<void> {
    const { ctx } = this;
    const job = this.job;
    if (ctx.status() !== 'printing' || !job) return Promise.reject(wrongState(ctx.printerId, 'pause', ctx.status()));
    if (job.phase === 'pausing') return new Promise((resolve, reject) => this.pauseWaiters.push({ resolve, reject }));
    if (job.phase === 'resuming') return this.pauseReheat(job);
    if (job.phase !== 'streaming') return Promise.reject(new AppError(409, 'invalid_state', `cannot pause while the job is ${job.phase}`));
    const now = ctx.clock.monotonic();
    job.transition('pausing', now);
    const parked = new Promise<void>((resolve, reject) => this.pauseWaiters.push({ resolve, reject }));
    const p = ctx.protocol();
    const wait = p?.waitInFlight() ?? null;
    // Shown on the job until it reads paused: the moves the firmware holds run first (seconds to tens of seconds on
    // real Marlin with a full planner), or a heat-up it cannot break.
    job.pendingAction = 'pause';
    if (p && wait) {
      this.hold(p);
      if (p.breakWait(now)) this.brokenWait = wait.command;
    }
    if (this.parkable(job)) this.park(job);
    ctx.flush();
    return parked;
  }

  /**
   * A pause while a resume heats again, before the head moves back: the wait is broken (Marlin M108), the rest of the
   * resume is dropped, and the job is paused again where it was parked, with what the first pause remembered. Refused
   * once the head is on its way back, or when the heat-up cannot be broken.
   */
  private pauseReheat(job: JobStream): Promise<void> {
    const { ctx } = this;
    const p = ctx.protocol();
    const now = ctx.clock.monotonic();
    const wait = p?.waitInFlight() ?? null;
    if (!this.reheating || !p || !wait || wait.jobLine || !p.breakWait(now)) {
      const why = 'the head is on its way back, or its heat-up cannot be interrupted';
      return Promise.reject(new AppError(409, 'invalid_state', 'cannot pause while the job is resuming', why));
    }
    p.dropQueuedCommands('not sent: the job was paused again');
    // The reheat set its targets again: a farm that cools on pause turns them off, as the first pause did.
    ctx.coolOnPause().then(
      (cool) => (cool ? ctx.runScript(cooldownScript(ctx.profile())) : undefined),
      () => undefined,
    ).catch(() => undefined);
    job.transition('paused', now);
    ctx.setStatus('paused');
    ctx.bus.emit('job.paused', { printer_id: ctx.printerId, job_id: job.id });
    ctx.flush();
    return Promise.resolve();
  }

  /**
   * Reheats, returns to the remembered position, restores E and the modes, and streams on. The job is printing again
   * from the call (status and `job.resumed`): the reheat is part of the print, as its own M190 was, and may take
   * minutes (a pause may still break it, see pauseReheat). The return waits for the heaters; were it refused, the job
   * is paused again (`job.paused`).
   */
  async resume(): Promise<void> {
    const { ctx } = this;
    const job = this.job;
    if (ctx.status() !== 'paused' || !job || !this.paused) throw wrongState(ctx.printerId, 'resume', ctx.status());
    const run = ++this.resumes;
    job.transition('resuming', ctx.clock.monotonic());
    ctx.setStatus('printing');
    ctx.bus.emit('job.resumed', { printer_id: ctx.printerId, job_id: job.id });
    // A fresh reading decides between setting and waiting: an autoreport up to seconds old may predate a cooldown.
    await ctx.command('M105').catch(() => undefined);
    if (this.job !== job || job.outcome || !this.paused) throw wrongState(ctx.printerId, 'resume', ctx.status());
    // Back to back (the protocol paces them; nothing passes a heat-up wait before its ok).
    const heating = reheatScript(ctx.profile(), this.paused, ctx.temperatures()).map((l) => ctx.command(l));
    const moving = returnScript(ctx.profile(), this.paused).map((l) => ctx.command(l));
    const token = {};
    this.reheating = heating.length > 0 ? token : null;
    const reheated = (): void => {
      if (this.reheating === token) this.reheating = null;
    };
    Promise.all(heating).then(reheated, reheated);
    const replies = await Promise.all([...heating, ...moving]);
    if (this.job !== job || job.outcome) throw wrongState(ctx.printerId, 'resume', ctx.status());
    // A pause broke the reheat and dropped the rest: the job is paused again (maybe resumed anew) and this resume is over.
    if (job.phase === 'paused' || run !== this.resumes) return;
    if (!replies.every((r) => r.ok)) {
      // The printer refused part of the way back: streaming on would print in the wrong place.
      job.transition('paused', ctx.clock.monotonic());
      ctx.setStatus('paused');
      ctx.bus.emit('job.paused', { printer_id: ctx.printerId, job_id: job.id });
      throw new AppError(409, 'invalid_state', 'resume failed: the printer did not accept the return moves', replies.flatMap((r) => r.lines).join('\n'));
    }
    this.paused = null;
    this.release();
    job.transition('streaming', ctx.clock.monotonic());
    ctx.flush();
  }

  /**
   * Drops what is queued, runs the profile's cancel script; resolves with `cancelled` once the job ended (after the
   * script's filament lines, see cancelNow; the printer finishes the script on its own). Inside a
   * blocking wait, the wait is broken first (Marlin M108) and the heaters go off ahead of the script; where the
   * firmware cannot break it, resolves at once with `pending`: the cancel is the job's pending action and happens the
   * moment the wait ends (the job stays printing until then).
   */
  async cancel(): Promise<'cancelled' | 'pending'> {
    const { ctx } = this;
    const job = this.job;
    const status = ctx.status();
    if (!job || (status !== 'printing' && status !== 'paused')) throw wrongState(ctx.printerId, 'cancel', status);
    if (job.pendingAction === 'cancel') return 'pending';
    const p = ctx.protocol();
    const wait = p?.waitInFlight() ?? null;
    let broken = false;
    if (p && wait) {
      broken = p.breakWait(ctx.clock.monotonic());
      if (!broken && wait.jobLine) {
        this.hold(p);
        job.pendingAction = 'cancel';
        ctx.flush();
        return 'pending';
      }
    }
    await this.cancelNow(job, broken);
    return 'cancelled';
  }

  private async cancelNow(job: JobStream, heatersOff: boolean): Promise<void> {
    const { ctx } = this;
    const p = ctx.protocol();
    p?.clearJob();
    // What a resume still had queued (return moves, prime) would run before the cancel script otherwise.
    p?.dropQueuedCommands('not sent: the job was cancelled');
    this.holding = false;
    // The cancel script's retract or purge is this job's filament: the job settles (and its meter reads it) after it.
    this.end(job, { status: 'cancelled' }, true);
    this.settling = job;
    ctx.setStatus('idle');
    // A broken heat-up left its target set: off first, not after the script's moves.
    const lines = heatersOff ? [...cooldownScript(ctx.profile()), ...cancelScript(ctx.profile())] : cancelScript(ctx.profile());
    const replies = lines.map((line) => ctx.command(line));
    // The printer finishes the rest on its own (a lift, a park, M84 that waits for every move: seconds on a real
    // Marlin); the job ends once the script's last line that may move filament was acknowledged, so its retract or
    // purge still counts and nobody waits for the park. A line lost with the link is the printer's to report.
    const tail = Promise.all(replies).then(
      () => undefined,
      () => undefined,
    );
    this.scriptTail = tail;
    void tail.then(() => {
      if (this.scriptTail === tail) this.scriptTail = null;
    });
    try {
      await Promise.all(replies.slice(0, lastFilamentLine(lines) + 1));
    } finally {
      if (this.settling === job) this.settleCancelled();
    }
  }

  /**
   * Resolves once the printer ran the cancel script it still runs, or after `ms`: a link closed mid-script could leave
   * the heaters on (its heaters-off lines may still wait behind the park or the job lines in flight).
   */
  async cancelScriptDone(ms: number): Promise<void> {
    const tail = this.scriptTail;
    if (!tail) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([tail, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /** Pushes job lines while the protocol has room; finishes the job once every line is acknowledged. */
  feed(p: HostProtocol): void {
    const job = this.job;
    if (!job || job.phase !== 'streaming') return;
    const failure = job.feed(p, this.lineRules, this.ctx.clock.monotonic());
    if (failure) {
      p.clearJob();
      this.fail(failure.code, failure.message);
      if (this.ctx.status() === 'printing') this.ctx.setStatus('idle');
      return;
    }
    if (job.sourceDone && job.drained && job.phase === 'streaming') this.finish(job);
  }

  private readonly lineRules = {
    strip: stripGcodeLine,
    check: (text: string) => checkLine(text, this.ctx.profile()),
    checkLength: (length: number) => lengthProblem(length, this.ctx.profile()),
  };

  /** The firmware acknowledged a job line carrying `bytes` of the file. */
  acked(bytes: number): void {
    const job = this.job;
    if (!job || job.outcome) return;
    // Targets follow the lines the firmware ran: lines held behind a broken wait must not count for the pause.
    if (job.acked(bytes, this.ctx.clock.monotonic(), this.observeTarget)) this.emitProgress(job);
    if (job.pendingAction === 'cancel') {
      // The wait that kept the cancel pending is over: nothing behind it was written, so it takes effect now.
      if (!this.ctx.protocol()?.waitInFlight()) this.cancelNow(job, false).catch(() => undefined);
      return;
    }
    if (job.phase === 'pausing' && this.parkable(job)) this.park(job);
    else if (job.drained && job.phase === 'streaming' && job.sourceDone) this.finish(job);
  }

  private readonly observeTarget = (line: string): void => this.ctx.targets.observe(line);

  /** Every job line written was acknowledged (the held ones behind a wait are not written). */
  private parkable(job: JobStream): boolean {
    if (job.drained) return true;
    return this.holding && this.ctx.protocol()?.jobLinesInFlight() === 0;
  }

  private hold(p: HostProtocol): void {
    this.holding = true;
    p.holdJob(true, this.ctx.clock.monotonic());
  }

  private release(): void {
    if (!this.holding) return;
    this.holding = false;
    this.ctx.protocol()?.holdJob(false, this.ctx.clock.monotonic());
  }

  /** The running job (if any) fails with `code`. */
  fail(code: JobFailureCode | string, message: string): void {
    const job = this.job;
    if (!job) return;
    this.end(job, { status: 'failed', error: { code: code as JobFailureCode, message } });
  }

  /** The printer went to error or offline: nobody waits for a park any more. */
  abandonPause(err: Error): void {
    this.rejectPauseWaiters(err);
    this.paused = null;
    this.holding = false;
    this.brokenWait = null;
  }

  private onReadable(job: JobStream): void {
    if (this.job === job && job.phase === 'streaming') this.ctx.flush();
  }

  private onFileError(job: JobStream, message: string): void {
    if (this.job !== job) return;
    this.ctx.protocol()?.clearJob();
    this.fail('file_invalid', message);
    if (this.ctx.status() === 'printing') this.ctx.setStatus('idle');
    this.ctx.timer.arm();
  }

  private finish(job: JobStream): void {
    job.transition('finishing', this.ctx.clock.monotonic());
    // The last line is acknowledged; M400 answers once the planner has executed every move.
    this.ctx.send('M400', (reply) => {
      if (this.job !== job || job.outcome) return;
      if (!reply) return;
      this.end(job, { status: 'completed' });
      if (this.ctx.status() === 'printing') this.ctx.setStatus('idle');
    });
  }

  private park(job: JobStream): void {
    const { ctx } = this;
    // Every job line is acknowledged here, so the protocol's tracker of what was sent is where the nozzle is.
    const motion = ctx.protocol()!.motion;
    const temps = ctx.temperatures();
    const saved: PausedState = {
      position: { ...motion.position },
      relativeXyz: motion.isRelativeXyz,
      relativeE: motion.isRelativeE,
      hotendTarget: ctx.targets.hotend ?? temps.hotend_target ?? 0,
      bedTarget: ctx.targets.bed ?? temps.bed_target ?? 0,
      interruptedWait: this.brokenWait,
    };
    this.brokenWait = null;
    this.paused = saved;
    // The targets above are kept for the resume; the organization may want the heaters off meanwhile.
    const cool = ctx.coolOnPause().catch(() => false);
    ctx.runScript(pauseScript(ctx.profile(), saved)).then(
      async () => {
        if (await cool) await ctx.runScript(cooldownScript(ctx.profile()));
        if (this.job !== job || job.outcome || job.phase !== 'pausing') return;
        job.pendingAction = null;
        job.transition('paused', ctx.clock.monotonic());
        ctx.setStatus('paused');
        ctx.bus.emit('job.paused', { printer_id: ctx.printerId, job_id: job.id });
        const waiters = this.pauseWaiters;
        this.pauseWaiters = [];
        for (const w of waiters) w.resolve();
      },
      (err: Error) => {
        if (job.pendingAction === 'pause') job.pendingAction = null;
        this.rejectPauseWaiters(err);
      },
    );
  }

  private settleCancelled(): void {
    const job = this.settling;
    this.settling = null;
    job?.settle();
  }

  private rejectPauseWaiters(err: Error): void {
    const waiters = this.pauseWaiters;
    this.pauseWaiters = [];
    for (const w of waiters) w.reject(err);
  }

  private end(job: JobStream, outcome: JobOutcome, settleLater = false): void {
    const { ctx } = this;
    if (!job.end(outcome, ctx.clock.monotonic(), settleLater)) return;
    if (this.job === job) this.job = null;
    // Something was printed: the bed must be cleared before the next job (API `ready: false`).
    if (job.linesAcked > 0) this.ready = false;
    this.paused = null;
    this.brokenWait = null;
    if (this.holding) this.release();
    const base = { printer_id: ctx.printerId, job_id: job.id };
    if (outcome.status === 'completed') {
      ctx.bus.emit('job.progress', { ...base, progress: 100, lines_acked: job.linesAcked, bytes_acked: job.bytesAcked });
      ctx.bus.emit('job.completed', base);
    } else if (outcome.status === 'cancelled') {
      this.rejectPauseWaiters(new AppError(409, 'invalid_state', 'the job was cancelled'));
      ctx.bus.emit('job.cancelled', base);
    } else {
      this.rejectPauseWaiters(new AppError(409, 'invalid_state', outcome.error.message));
      ctx.bus.emit('job.failed', { ...base, error: outcome.error });
    }
  }

  private emitProgress(job: JobStream): void {
    this.ctx.bus.emit('job.progress', {
      printer_id: this.ctx.printerId,
      job_id: job.id,
      progress: job.progressPct(),
      lines_acked: job.linesAcked,
      bytes_acked: job.bytesAcked,
    });
  }
}
