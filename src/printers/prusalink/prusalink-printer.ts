// A Prusa printer over PrusaLink's v1 HTTP API: polled status (PrusaLink pushes nothing), uploads that start printing,
// pause/resume/stop by the printer's job id, progress and filament from the reported percentage. The printer prints its
// own copy of the file, so a print survives our restart (adoptJob) and one started on its screen shows as external.
// The held state, the snapshot and the job/external-print bookkeeping are the network core's; this file is PrusaLink's
// protocol: polling, the one place a poll's answers are applied (apply()), uploads and job actions by the printer's id.
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { instantOf } from '../../clock.js';
import { AppError } from '../../errors.js';
import { isBgcode, readBgcodeMetadata } from '../../files/bgcode-reader.js';
import type { Logger } from '../../logger.js';
import type { JobStartRequest } from '../printer-link.js';
import { uploadName } from '../network-url.js';
import { printerBusy, printerOffline, wrongState, type CommandReply, type JobOutcome, type PrinterSnapshot, type PrinterStatus } from '../printer-state.js';
import type { JobHandle } from '../session-job-control.js';
import { adoptedStart } from '../network/adoption.js';
import { externalSeen, type ExternalPrint } from '../network/external-print.js';
import { withOurJob } from '../network/held-state.js';
import { NetworkPrinterCore, type NetworkPrinterCoreOptions } from '../network/network-printer-core.js';
import { PollLoop, pollDelay } from '../network/poll-loop.js';
import { StateWaiters } from '../network/state-waiters.js';
import { jobIsFile, readJob, readStatus, readVersion, type JobAnswer, type StatusAnswer } from './prusalink-answers.js';
import { PrusaLinkHttp, PrusaLinkRequestError } from './prusalink-http.js';
import { PrusaLinkJob } from './prusalink-job.js';
import { endOfPrint } from './prusalink-states.js';
import { parsePrusaLinkUrl, prusaLinkAuth } from './prusalink-url.js';

export interface PrusaLinkPrinterOptions extends NetworkPrinterCoreOptions {
  /** prusalink://host[:port] or prusalink+https://host[:port]?fingerprint=SHA256 (optional &storage=usb|local). */
  url: string;
  /** `user:password` (HTTP Digest, the printer's PrusaLink login) or an API key (X-Api-Key); null: no auth. */
  apiKey?: string | null;
  logger?: Logger;
  /** /api/v1/status every this many ms (default 1500); /api/v1/job too while a print is on the printer. */
  pollMs?: number;
  /** One request's timeout (no answer, or no upload progress), default 5000 ms. */
  requestTimeoutMs?: number;
  /** Polls that must fail in a row before the printer shows offline (default 2; auth and TLS failures at once). */
  failuresBeforeOffline?: number;
  /** How long pause/resume/cancel wait for the printer to show the new state (default 30000 ms). */
  actionTimeoutMs?: number;
  /** How long an upload may take to show up as the printer's print before the job fails (default 60000 ms). */
  startTimeoutMs?: number;
  /**
   * How long adoptJob waits for a state that hides the print (BUSY in crash recovery or power-panic resume, UNKNOWN)
   * to pass before it decides (default 120000 ms).
   */
  holdWaitMs?: number;
}

type PrusaExternal = ExternalPrint & { printerJobId: number; timePrintingS: number | null };

const noConsole = (what: string): AppError =>
  new AppError(409, 'invalid_state', `PrusaLink has no ${what}`, 'PrusaLink v1 offers no G-code console nor manual control; use the printer\'s screen');

export class PrusaLinkPrinter extends NetworkPrinterCore<PrusaLinkJob, PrusaExternal> {
  private readonly log: Logger | undefined;
  private readonly http: PrusaLinkHttp;
  private readonly storage: string;
  private readonly pollMs: number;
  private readonly failuresBeforeOffline: number;
  private readonly actionTimeoutMs: number;
  private readonly startTimeoutMs: number;
  private readonly holdWaitMs: number;
  private readonly loop: PollLoop;

  private firmware: PrinterSnapshot['firmware'] = null;
  private acceptsJob = false;
  private lastStatus: StatusAnswer | null = null;
  private failures = 0;
  private readonly waiters = new StateWaiters<null>();

  constructor(opts: PrusaLinkPrinterOptions) {
    super(opts);
    const target = parsePrusaLinkUrl(opts.url);
    this.storage = target.storage;
    this.log = opts.logger;
    this.pollMs = opts.pollMs ?? 1500;
    this.failuresBeforeOffline = opts.failuresBeforeOffline ?? 2;
    this.actionTimeoutMs = opts.actionTimeoutMs ?? 30_000;
    this.startTimeoutMs = opts.startTimeoutMs ?? 60_000;
    this.holdWaitMs = opts.holdWaitMs ?? 120_000;
    // Offline: backing off, so a printer that is switched off is not hammered.
    this.loop = new PollLoop({ round: () => this.poll(), delay: () => pollDelay(this.pollMs, this.status === 'offline', this.failures) });
    this.http = new PrusaLinkHttp({
      baseUrl: target.baseUrl,
      auth: prusaLinkAuth(opts.apiKey),
      fingerprint: target.fingerprint,
      timeoutMs: opts.requestTimeoutMs ?? 5000,
    });
  }

  protected firmwareView(): PrinterSnapshot['firmware'] {
    return this.firmware;
  }

  /** Identifies the printer and reads its state; rejects with the reason when it cannot (polling keeps retrying). */
  async connect(): Promise<void> {
    if (!this.loop.isStopped && this.status !== 'offline' && this.status !== 'connecting') return;
    this.loop.start();
    // The last reason stays visible while we try again.
    if (this.status === 'offline') this.show('connecting', this.offlineReason, this.error);
    await this.loop.now();
    const now = this.status as PrinterStatus;
    if (now === 'offline' || now === 'connecting') {
      throw new AppError(409, 'printer_offline', `printer ${this.printerId} is offline: ${this.error?.message ?? 'no answer'}`);
    }
  }

  async reconnect(): Promise<void> {
    this.refuseWhileBusy();
    this.firmware = null;
    await this.loop.stop();
    // Quietly: the connect() that follows tells how it went.
    this.status = 'offline';
    return this.connect();
  }

  /**
   * Stops polling. The printer keeps printing its own copy, so a followed job does NOT fail here: it stays open and is
   * picked up again by adoptJob (or this instance's connect()).
   */
  async disconnect(): Promise<void> {
    await this.loop.stop();
    this.http.close();
    this.acceptsJob = false;
    this.closed();
    this.waiters.reject(printerOffline(this.printerId, 'offline'));
  }

  /** Uploads the file with Print-After-Upload; resolves once the printer took it (the print shows on a later poll). */
  async startJob(req: JobStartRequest): Promise<JobHandle> {
    this.requireBedCleared();
    if (this.status === 'idle' && !this.acceptsJob) throw printerBusy(this.printerId, this.status);
    this.requireIdle('start a job');
    const { size } = await stat(req.filePath);
    const binary = await startsWithBgcode(req.filePath);
    const remoteName = uploadName(req, binary ? 'bgcode' : 'gcode');
    const job = new PrusaLinkJob(req.jobId, req.filePath, remoteName, size, instantOf(this.clock), this.lastStatus?.job?.id ?? null, () => this.clock.monotonic());
    this.acceptsJob = false;
    // The file's scan runs while it uploads; both are done before the job can end.
    const filament = this.loadFilament(job, binary);
    const upload = async (): Promise<void> => {
      const res = await this.http.request('PUT', `/api/v1/files/${this.storage}/${encodeURIComponent(remoteName)}`, {
        headers: { 'Content-Type': 'application/octet-stream', 'Print-After-Upload': '?1', Overwrite: '?1' },
        body: () => createReadStream(req.filePath),
        bodyLength: size,
      });
      if (res.status < 200 || res.status >= 300) {
        const text = res.body.subarray(0, 200).toString('utf8').trim();
        // The firmware stores the upload first and only then finds it cannot print now (409 "Can't print right now",
        // lib/WUI/nhttp/gcode_upload.cpp): our copy would stay on the stick. The job goes back to the queue, maybe to
        // another printer, so the copy is removed (the firmware refuses to delete a file it prints, so no print is hurt).
        if (res.status === 409) await this.dropUpload(remoteName);
        throw new AppError(409, res.status === 409 ? 'printer_busy' : 'invalid_state', `PrusaLink refused the upload (HTTP ${res.status}${text ? `: ${text}` : ''})`);
      }
      await filament;
      // From here a result state is this print's: see followJob. Set after the filament is known, so its end is charged.
      job.acceptedMono = this.clock.monotonic();
    };
    const refused = (err: unknown): Error =>
      err instanceof PrusaLinkRequestError ? new AppError(409, 'printer_offline', `the upload to printer ${this.printerId} failed: ${err.message}`) : (err as Error);
    const handle = await this.launch(job, upload, refused);
    this.loop.soon();
    return handle;
  }

  /** Best effort: removes an upload the printer stored but did not print; a failure is only logged. */
  private async dropUpload(remoteName: string): Promise<void> {
    try {
      const res = await this.http.request('DELETE', `/api/v1/files/${this.storage}/${encodeURIComponent(remoteName)}`);
      if (res.status >= 300 && res.status !== 404) this.log?.warn('prusalink: the refused upload stays on the printer', { printer: this.printerId, file: remoteName, status: res.status });
    } catch (err) {
      this.log?.warn('prusalink: could not remove the refused upload', { printer: this.printerId, file: remoteName, error: (err as Error).message });
    }
  }

  pause(): Promise<void> {
    return this.jobAction('pause', 'printing', 'PUT', '/pause', (j) => j.phase === 'paused');
  }

  resume(): Promise<void> {
    return this.jobAction('resume', 'paused', 'PUT', '/resume', (j) => j.phase === 'streaming');
  }

  async cancel(): Promise<'cancelled'> {
    const job = this.job;
    if (job) job.cancelRequested = true;
    await this.jobAction('cancel', null, 'DELETE', '', (j) => j.outcome !== null).catch((err: Error) => {
      if (job) job.cancelRequested = false;
      throw err;
    });
    return 'cancelled';
  }

  async home(): Promise<CommandReply> {
    throw noConsole('command to home the axes');
  }

  async cooldown(): Promise<void> {
    throw noConsole('command to turn the heaters off');
  }

  emergencyStop(): void {
    throw noConsole('emergency stop (cancel the job, or use the printer\'s reset button)');
  }

  async sendCommand(_text: string): Promise<CommandReply> {
    throw noConsole('G-code console: commands cannot be sent to this printer');
  }

  /** After our restart: follow the printer's print of `req.remoteName` as this job; null when it runs something else. */
  async adoptJob(req: JobStartRequest & { startedAt: number }): Promise<JobHandle | null> {
    if (!req.remoteName) return null;
    const first = this.adoption(req.jobId);
    if (first.step !== 'look') return first.step === 'same' ? first.handle : null;
    const binary = await startsWithBgcode(req.filePath);
    const remoteName = uploadName(req, binary ? 'bgcode' : 'gcode');
    if (this.status === 'offline' || this.status === 'connecting') await this.connect();
    const status = await this.statusPastHold();
    const answer = readJob(await this.http.getJson('/api/v1/job'));
    if (!answer || !jobIsFile(answer, remoteName)) return null;
    if (!status.meaning.jobActive && status.meaning.ends === null) return null;
    const { size } = await stat(req.filePath);
    // Before our restart it ran this long (wall clock: the only reading that survives a restart), on from now monotonic.
    const start = adoptedStart(instantOf(this.clock), req.startedAt, null);
    const job = new PrusaLinkJob(req.jobId, req.filePath, remoteName, size, start, null, () => this.clock.monotonic());
    job.printerJobId = answer.id;
    await this.loadFilament(job, binary);
    const handle = this.adopted(job, (ext) => ext.printerJobId === answer.id);
    if (handle) this.apply(status, answer, this.clock.monotonic());
    return handle;
  }

  /**
   * The printer's status once it no longer hides its print: in crash recovery the firmware shows BUSY with no job for
   * a while, and judging then would give up a print that goes on (up to holdWaitMs; then the status as it is).
   */
  private async statusPastHold(): Promise<StatusAnswer> {
    const until = this.clock.monotonic() + this.holdWaitMs;
    for (;;) {
      const status = readStatus(await this.http.getJson('/api/v1/status'));
      if (!status.meaning.holds || this.clock.monotonic() >= until || this.loop.isStopped) return status;
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
  }

  // ---------------------------------------------------------------- polling

  private async poll(): Promise<void> {
    const begun = this.clock.monotonic();
    try {
      if (this.firmware === null) await this.identify();
      const status = readStatus(await this.http.getJson('/api/v1/status'));
      const wantJob = status.meaning.jobActive || (status.job !== null && (this.job !== null || this.external !== null));
      const answer = wantJob ? readJob(await this.http.getJson('/api/v1/job')) : null;
      if (this.loop.isStopped) return;
      this.failures = 0;
      this.apply(status, answer, begun);
    } catch (err) {
      if (this.loop.isStopped) return;
      this.pollFailed(err as Error);
    }
    this.waiters.check(null);
  }

  private async identify(): Promise<void> {
    const version = readVersion(await this.http.getJson('/api/version'));
    // /api/v1/info names the printer; older firmware may lack it, which is no reason to stay offline.
    const info = await this.http.getJson('/api/v1/info').catch((err: Error) => {
      if (err instanceof PrusaLinkRequestError && (err.reason === 'auth_failed' || err.reason === 'tls_error')) throw err;
      return null;
    });
    const name = [version.text, version.firmware ? `firmware ${version.firmware}` : null].filter(Boolean).join(', ');
    const serial = typeof info === 'object' && info !== null && typeof (info as Record<string, unknown>).serial === 'string';
    this.firmware = { name, profile: 'prusalink', capabilities: { console: false, upload_by_put: true, serial_known: serial } };
  }

  private pollFailed(err: Error): void {
    const reason = err instanceof PrusaLinkRequestError ? err.reason : 'unreachable';
    this.failures++;
    if (reason !== 'auth_failed' && reason !== 'tls_error' && this.failures < this.failuresBeforeOffline && this.status !== 'connecting') {
      this.log?.warn('prusalink poll failed; retrying', { printer: this.printerId, error: err.message });
      return;
    }
    this.log?.warn('prusalink printer offline', { printer: this.printerId, reason, error: err.message });
    this.firmware = null;
    this.acceptsJob = false;
    this.linkDown(reason, err.message);
    this.waiters.reject(printerOffline(this.printerId, 'offline'));
  }

  /** Everything a poll learnt, applied in one place: status, the followed job, the external print. */
  /** `begun`: the monotonic time the poll was sent (a poll sent during our upload may show the state before it). */
  private apply(status: StatusAnswer, answer: JobAnswer | null, begun: number): void {
    const was = this.status;
    const previousState = this.lastStatus?.state ?? null;
    this.lastStatus = status;
    this.temperatures = status.temperatures;
    if (previousState !== status.state) this.emitConsole('received', 'info', `PrusaLink state ${status.state}`);
    // Without its printer PrusaLink knows nothing true about the print: the jobs are judged when it is back. A holding
    // state (BUSY in crash recovery or power-panic resume, UNKNOWN) hides the print without ending it: keep both as
    // they are, so the print that comes back is still the farm's job, not an external one.
    if ((status.printerOk !== false || status.state === 'ERROR') && !status.meaning.holds) {
      this.followJob(status, answer, begun);
      this.followExternal(status, answer);
    }
    const m = status.meaning;
    if (status.state === 'ERROR') {
      this.show('error', 'firmware_error', { code: 'firmware_error', message: status.message ?? 'the printer reports an error' });
    } else if (status.printerOk === false) {
      // PrusaLink (on a Pi) answers, but its printer does not.
      this.show('offline', 'printer_disconnected', { code: 'printer_disconnected', message: status.message ?? 'PrusaLink has lost its printer' });
    } else {
      // An upload that has not shown up as a print yet keeps the printer ours; a state that tells nothing (UNKNOWN)
      // keeps the last status, and occupied when there was none (no job goes to a printer in an unknown state).
      const online: PrinterStatus = was === 'idle' || was === 'printing' || was === 'paused' ? was : 'printing';
      this.show(withOurJob(m.status ?? online, this.job && !this.job.outcome ? this.job.phase : null));
    }
    this.acceptsJob = m.acceptsJob && this.job === null && this.external === null && this.status === 'idle';
  }

  private followJob(status: StatusAnswer, answer: JobAnswer | null, begun: number): void {
    const job = this.job;
    if (!job || job.outcome) return;
    const m = status.meaning;
    const printerId = status.job?.id ?? answer?.id ?? null;
    if (job.printerJobId === null) {
      // Waiting for our upload to show up: a new job id running our file.
      const isOurs = answer !== null && printerId !== job.previousPrinterJobId && jobIsFile(answer, job.remoteName);
      // Both PrusaLinks answer the upload only once its print has begun (Prusa-Firmware-Buddy wui_api.cpp
      // wui_start_print waits on marlin_client.cpp is_print_started; Prusa-Link web/files.py runs StartPrint before its
      // 201): a result state seen by a poll sent after that, naming no job, is this print's, however short it was.
      const resultOfOurs = m.ends !== null && m.ends !== 'failed' && printerId === null && job.acceptedMono !== null && begun >= job.acceptedMono;
      if (isOurs) job.printerJobId = answer.id;
      else if (resultOfOurs) {
        this.endJob(job, job.cancelRequested && m.ends !== 'completed' ? { status: 'cancelled' } : ({ status: m.ends } as JobOutcome));
        return;
      } else {
        if (m.ends === 'failed') this.endJob(job, { status: 'failed', error: { code: 'firmware_error', message: status.message ?? 'the printer reports an error' } });
        else if (this.clock.monotonic() - job.clock.startMono > this.startTimeoutMs) {
          this.endJob(job, { status: 'failed', error: { code: 'firmware_error', message: `the printer did not start printing the upload within ${this.startTimeoutMs} ms` } });
        }
        return;
      }
    }
    const same = printerId === job.printerJobId;
    if (same) {
      const progress = status.job?.progress ?? answer?.progress ?? job.progress;
      job.timePrintingS = status.job?.timePrintingS ?? answer?.timePrintingS ?? job.timePrintingS;
      if (progress !== job.progress) {
        job.progress = progress;
        this.jobProgress(job, progress);
      }
    }
    if (same && m.jobActive && m.phase !== null && m.phase !== job.phase) {
      job.phase = m.phase;
      this.jobEvent(job, m.phase === 'paused' ? 'job.paused' : 'job.resumed');
      return;
    }
    if (same && m.jobActive) return;
    if (m.ends === 'failed') {
      this.endJob(job, { status: 'failed', error: { code: 'firmware_error', message: status.message ?? 'the printer reports an error' } });
      return;
    }
    // The printer shows the result (FINISHED/STOPPED, with no job in them on the firmware), or the job is gone (a new
    // one, or IDLE between two polls).
    const ends = endOfPrint(m, printerId, job.printerJobId, job.progress);
    this.endJob(job, job.cancelRequested && ends !== 'completed' ? { status: 'cancelled' } : { status: ends } as JobOutcome);
  }

  private followExternal(status: StatusAnswer, answer: JobAnswer | null): void {
    const m = status.meaning;
    const ext = this.external;
    const ours = this.job !== null && answer !== null && (this.job.printerJobId === answer.id || jobIsFile(answer, this.job.remoteName));
    const running = m.jobActive && answer !== null && !ours ? answer : null;
    const shownId = status.job?.id ?? answer?.id ?? null;
    // The status still shows it running but /api/v1/job answered 204: the print ended between the two requests, and
    // only the next poll shows how (judged now it would read as vanished, i.e. cancelled).
    if (ext && answer === null && m.jobActive && shownId === ext.printerJobId) return;
    if (ext && (!running || running.id !== ext.printerJobId)) {
      const ends = endOfPrint(m, shownId, ext.printerJobId, ext.progress);
      this.endExternal({ status: ends, printSeconds: ext.timePrintingS, extrudedMm: null, message: ends === 'failed' ? (status.message ?? undefined) : undefined });
    }
    if (!running) return;
    const progress = running.progress;
    const timePrintingS = status.job?.timePrintingS ?? running.timePrintingS;
    if (this.external) Object.assign(this.external, { progress, timePrintingS });
    else {
      this.external = {
        ...externalSeen(running.fileName ?? `job ${running.id}`, progress, instantOf(this.clock), (timePrintingS ?? 0) * 1000),
        printerJobId: running.id,
        timePrintingS,
      };
    }
  }

  // ---------------------------------------------------------------- actions

  /** Sends a job action by the printer's job id and waits until a poll shows its effect. */
  private async jobAction(action: string, need: PrinterStatus | null, method: string, suffix: string, done: (j: PrusaLinkJob) => boolean): Promise<void> {
    const job = this.job;
    const statusOk = need === null ? this.status === 'printing' || this.status === 'paused' : this.status === need;
    if (!job || !statusOk) throw wrongState(this.printerId, action, this.status);
    if (job.printerJobId === null) await this.loop.now();
    if (job.printerJobId === null) throw new AppError(409, 'invalid_state', `cannot ${action}: the printer has not started the job yet`);
    let res;
    try {
      res = await this.http.request(method, `/api/v1/job/${job.printerJobId}${suffix}`);
    } catch (err) {
      throw err instanceof PrusaLinkRequestError ? new AppError(409, 'printer_offline', `cannot ${action}: ${err.message}`) : err;
    }
    if (res.status < 200 || res.status >= 300) {
      const text = res.body.subarray(0, 200).toString('utf8').trim();
      throw new AppError(409, 'invalid_state', `PrusaLink refused to ${action} (HTTP ${res.status}${text ? `: ${text}` : ''})`);
    }
    await this.waitFor(() => done(job), action);
  }

  private waitFor(check: () => boolean, action: string): Promise<void> {
    if (check()) return Promise.resolve();
    const done = this.waiters.wait(check, this.actionTimeoutMs, () => new AppError(409, 'invalid_state', `the printer did not ${action} within ${this.actionTimeoutMs} ms`));
    this.loop.soon();
    return done.promise;
  }

  /**
   * Filament at a share of the file: the G-code's extrusion index, or a binary G-code's total from its metadata. Never
   * rejects (a job without figures still prints); callers await it before the job can end, so its end is charged.
   */
  private async loadFilament(job: PrusaLinkJob, binary: boolean): Promise<void> {
    try {
      if (binary) {
        const meta = await readBgcodeMetadata(job.filePath, { skipGcodeChecksums: true });
        job.filament = meta.filament_used_mm !== null ? { kind: 'total', mm: meta.filament_used_mm } : null;
      } else job.filament = { kind: 'index', index: await this.indexes.forFile(job.filePath, 'marlin') };
    } catch (err) {
      this.log?.warn('prusalink: no filament figures for the job', { job: job.id, error: (err as Error).message });
    }
  }

}

async function startsWithBgcode(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await fh.read(head, 0, 4, 0);
    return isBgcode(head.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

/** The factory the printers service calls for prusalink:// and prusalink+https:// URLs. */
export function createPrusaLinkPrinter(opts: PrusaLinkPrinterOptions): PrusaLinkPrinter {
  return new PrusaLinkPrinter(opts);
}
