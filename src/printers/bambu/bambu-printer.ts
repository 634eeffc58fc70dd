// A Bambu Lab printer in LAN mode: live state over MQTT on TLS (push_status reports, partial ones merged), uploads over
// implicit FTPS, then project_file; pause, resume, stop and G-code lines as requests. The printer prints its own copy,
// so a print survives our restart (adoptJob) and one started on its screen or from Bambu's apps shows as external.
// The held state, the snapshot and the job/external bookkeeping are the network core's; this file is Bambu's protocol.
import { stat } from 'node:fs/promises';
import { instantOf } from '../../clock.js';
import { AppError, badRequest } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { isFullReport, mergeReport, readReport, type BambuReading, type BambuState } from '../../protocol/bambu/bambu-report.js';
import { gcodeLine, getVersion, printAction, projectFile, pushAll, type BambuRequest } from '../../protocol/bambu/bambu-requests.js';
import { planAms, trayLabel, type TrayChoice } from '../../protocol/bambu/ams-mapping.js';
import { bambuError, bambuMeaning, failureWords } from '../../protocol/bambu/bambu-status.js';
import { adoptedStart } from '../network/adoption.js';
import { externalSeen, type ExternalPrint } from '../network/external-print.js';
import { withOurJob } from '../network/held-state.js';
import { NetworkPrinterCore, type NetworkPrinterCoreOptions } from '../network/network-printer-core.js';
import { StateWaiters } from '../network/state-waiters.js';
import { parseNetworkUrl, uploadName } from '../network-url.js';
import type { JobStartRequest, SlicedStart } from '../printer-link.js';
import { printerOffline, wrongState, type CommandReply, type PrinterSnapshot, type PrinterStatus } from '../printer-state.js';
import type { JobHandle } from '../session-job-control.js';
import { uploadToPrinter } from './bambu-ftps.js';
import { BambuJob, type SlotUse } from './bambu-job.js';
import { BambuMqtt, type BambuLinkError } from './bambu-mqtt.js';
import { bambuView } from './bambu-view.js';
import { CertificatePin } from './bambu-tls.js';

export interface BambuPrinterOptions extends NetworkPrinterCoreOptions {
  /** bambu://host[:mqtt port]?serial=SERIAL[&fingerprint=SHA256][&ftp_port=990] */
  url: string;
  /** The printer's LAN access code. */
  apiKey?: string | null;
  logger?: Logger;
  /** No report for this long while connected: ask for the full state again (default 30000 ms). */
  gapMs?: number;
  /** One connection attempt's or request's timeout (default 10000 ms). */
  requestTimeoutMs?: number;
  /** First retry after a lost connection (doubling up to 30 s); default 1000 ms. */
  retryMs?: number;
  /** How long pause/resume/stop/start wait for the printer to show their effect (default 30000 ms). */
  actionTimeoutMs?: number;
  /** The certificate was pinned on first contact (the service keeps it in the stored URL from then on). */
  onPinned?: (fingerprint: string) => void;
  /** Unused by this kind (it is pushed to): accepted so the service can pass every network option. */
  pollMs?: number;
}

type BambuExternal = ExternalPrint & { file: string | null };

export class BambuPrinter extends NetworkPrinterCore<BambuJob, BambuExternal> {
  private readonly log: Logger | undefined;
  private readonly host: string;
  private readonly port: number;
  private readonly ftpPort: number;
  private readonly serial: string;
  private readonly accessCode: string;
  private readonly pin: CertificatePin;
  private readonly gapMs: number;
  private readonly timeoutMs: number;
  private readonly retryMs: number;
  private readonly actionTimeoutMs: number;
  private mqtt: BambuMqtt | null = null;
  private stopped = true;
  private retryTimer: NodeJS.Timeout | null = null;
  private gapTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private seq = 1;
  private state: BambuState = {};
  private haveFull = false;
  private reading: BambuReading | null = null;
  private version: string | null = null;
  private model: string | null = null;
  private readonly waiters = new StateWaiters<null>();
  private readonly answers = new Map<string, (ok: boolean, reason: string) => void>();

  constructor(opts: BambuPrinterOptions) {
    super(opts);
    const u = parseNetworkUrl(opts.url);
    if (u.kind !== 'bambu') throw badRequest(`not a bambu:// URL: ${opts.url}`);
    this.host = u.host;
    this.port = u.port;
    this.ftpPort = u.ftpPort ?? 990;
    this.serial = u.serial!;
    this.accessCode = opts.apiKey ?? '';
    this.log = opts.logger;
    this.gapMs = opts.gapMs ?? 30_000;
    this.timeoutMs = opts.requestTimeoutMs ?? 10_000;
    this.retryMs = opts.retryMs ?? 1000;
    this.actionTimeoutMs = opts.actionTimeoutMs ?? 30_000;
    this.pin = new CertificatePin(u.fingerprint, (fp) => {
      // Trust on first contact: shown to the owner, and kept in the printer's URL (?fingerprint=) from then on, so a
      // certificate that changes later (another device at that address) is refused rather than trusted again.
      const text = `Bambu printer ${this.serial}: certificate pinned on first contact, SHA-256 ${fp} (kept in the printer's URL as ?fingerprint=)`;
      this.emitConsole('received', 'info', text);
      this.log?.info('bambu: certificate pinned on first contact', { printer: this.printerId, fingerprint: fp });
      opts.onPinned?.(fp);
    });
  }

  /** The certificate's SHA-256 this link trusts (from the URL, or pinned on first contact). */
  get fingerprint(): string | null {
    return this.pin.fingerprint;
  }

  override snapshot(): PrinterSnapshot {
    return { ...super.snapshot(), bambu: bambuView({ serial: this.serial, model: this.model, fingerprint: this.pin.fingerprint, presented: this.pin.presented }, this.reading) };
  }

  protected firmwareView(): PrinterSnapshot['firmware'] {
    if (!this.haveFull) return null;
    const fp = this.pin.fingerprint;
    const name = [`Bambu Lab ${this.serial}`, this.version ? `firmware ${this.version}` : null, fp ? `certificate SHA-256 ${fp}` : null].filter(Boolean).join(', ');
    return { name, profile: 'bambu', capabilities: { console: true, upload_by_put: false, serial_known: true } };
  }

  // ---------------------------------------------------------------- the link

  /** Connects and waits for the printer's full state; rejects with the reason when it cannot (retries go on). */
  async connect(): Promise<void> {
    if (!this.stopped && this.status !== 'offline' && this.status !== 'connecting') return;
    this.stopped = false;
    if (this.status === 'offline') this.show('connecting', this.offlineReason, this.error);
    await this.attempt();
    const now = this.status as PrinterStatus;
    if (now === 'offline' || now === 'connecting') {
      throw new AppError(409, 'printer_offline', `printer ${this.printerId} is offline: ${this.error?.message ?? 'no answer'}`);
    }
  }

  async reconnect(): Promise<void> {
    this.refuseWhileBusy();
    await this.stopLink();
    this.status = 'offline';
    return this.connect();
  }

  /** Closes the link; a print goes on on the printer and is followed again by adoptJob. */
  async disconnect(): Promise<void> {
    await this.stopLink();
    this.closed();
    this.waiters.reject(printerOffline(this.printerId, 'offline'));
  }

  private async stopLink(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.retryTimer = this.gapTimer = null;
    const m = this.mqtt;
    this.mqtt = null;
    await m?.close();
    this.haveFull = false;
  }

  /** One connection attempt: a session, pushall, and the first full report (or the failure shown). */
  private async attempt(): Promise<void> {
    const mqtt = new BambuMqtt(
      { host: this.host, port: this.port, serial: this.serial, accessCode: this.accessCode, pin: this.pin, timeoutMs: this.timeoutMs },
      (msg) => this.message(mqtt, msg),
      (err) => this.dropped(mqtt, err),
    );
    try {
      await mqtt.open();
      if (this.stopped) {
        await mqtt.close();
        return;
      }
      this.mqtt = mqtt;
      this.haveFull = false;
      const full = this.waiters.wait(() => this.haveFull, this.timeoutMs, () => new Error('the printer sent no full report after pushall')).promise;
      // Awaited below; a request failing first must not leave its timeout as an unhandled rejection.
      full.catch(() => undefined);
      await this.request(getVersion(this.nextSeq()));
      await this.request(pushAll(this.nextSeq()));
      await full;
      this.failures = 0;
    } catch (err) {
      await mqtt.close();
      if (this.mqtt === mqtt) this.mqtt = null;
      if (this.stopped) return;
      this.failed(err as BambuLinkError);
    }
  }

  private failed(err: BambuLinkError & { reason?: string }): void {
    const reason = err.reason === 'auth_failed' || err.reason === 'tls_error' ? err.reason : 'unreachable';
    this.failures++;
    this.log?.warn('bambu printer offline', { printer: this.printerId, reason, error: err.message });
    this.linkDown(reason, err.message);
    this.scheduleRetry();
  }

  private dropped(mqtt: BambuMqtt, err: BambuLinkError): void {
    // Ended for good: mqtt.js keeps its keep-alive timer on a client that was not ended.
    void mqtt.close();
    if (this.mqtt !== mqtt || this.stopped) return;
    this.mqtt = null;
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.haveFull = false;
    // The print goes on on the printer: the job stays ours and is picked up from the next full report.
    this.failed(err);
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = Math.min(30_000, this.retryMs * 2 ** Math.min(5, this.failures - 1));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped && !this.mqtt) void this.attempt();
    }, delay);
  }

  private nextSeq(): number {
    return this.seq++;
  }

  private async request(msg: BambuRequest): Promise<void> {
    const m = this.mqtt;
    if (!m) throw printerOffline(this.printerId, this.status);
    await m.publish(msg);
  }

  /** Sends a print request and waits for the printer's answer to it (result success/fail). */
  private async ask(msg: BambuRequest, what: string): Promise<void> {
    const body = Object.values(msg)[0]!;
    const seq = String(body.sequence_id);
    const answered = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.answers.delete(seq);
        reject(new AppError(409, 'invalid_state', `the printer did not answer ${what} within ${this.actionTimeoutMs} ms`));
      }, this.actionTimeoutMs);
      this.answers.set(seq, (ok, reason) => {
        clearTimeout(timer);
        if (ok) resolve();
        else reject(new AppError(409, 'invalid_state', `the printer refused ${what}${reason ? `: ${reason}` : ''}`));
      });
    });
    try {
      await this.request(msg);
    } catch (err) {
      this.answers.delete(seq);
      throw err instanceof AppError ? err : new AppError(409, 'printer_offline', `cannot send ${what}: ${(err as Error).message}`);
    }
    return answered;
  }

  // ---------------------------------------------------------------- reports

  private message(mqtt: BambuMqtt, msg: Record<string, unknown>): void {
    if (this.mqtt !== mqtt && this.mqtt !== null) return;
    this.armGap();
    const info = msg.info as Record<string, unknown> | undefined;
    if (info?.command === 'get_version' && Array.isArray(info.module)) {
      const ota = (info.module as Array<Record<string, unknown>>).find((m) => m.name === 'ota');
      if (typeof ota?.sw_ver === 'string') this.version = ota.sw_ver;
      const named = (info.module as Array<Record<string, unknown>>).find((m) => typeof m.product_name === 'string' && m.product_name !== '');
      if (named) this.model = String(named.product_name);
      return;
    }
    const print = msg.print as Record<string, unknown> | undefined;
    if (!print || typeof print !== 'object') return;
    if (typeof print.result === 'string') {
      const answer = this.answers.get(String(print.sequence_id));
      if (answer) {
        this.answers.delete(String(print.sequence_id));
        answer(print.result.toLowerCase() === 'success', typeof print.reason === 'string' ? print.reason : '');
      }
      return;
    }
    if (print.command !== 'push_status') return;
    const full = isFullReport(print);
    // Before the first full report a partial one cannot be judged alone (it names only what changed).
    if (!full && !this.haveFull) return;
    this.state = mergeReport(this.state, print, full);
    if (full) this.haveFull = true;
    this.apply(readReport(this.state));
    this.waiters.check(null);
  }

  /** A quiet link: ask for everything again (the broker may have dropped reports, or a P1 went silent). */
  private armGap(): void {
    if (this.gapTimer) clearTimeout(this.gapTimer);
    if (this.stopped) return;
    this.gapTimer = setTimeout(() => {
      this.gapTimer = null;
      if (this.mqtt) void this.request(pushAll(this.nextSeq())).catch(() => undefined);
      this.armGap();
    }, this.gapMs);
  }

  private apply(r: BambuReading): void {
    const was = this.status;
    const previous = this.reading;
    this.reading = r;
    this.temperatures = r.temperatures;
    if (previous?.gcodeState !== r.gcodeState) this.emitConsole('received', 'info', `Bambu state ${r.gcodeState ?? 'unknown'}`);
    for (const h of r.hms) if (!previous?.hms.some((p) => p.code === h.code)) this.emitConsole('received', 'warning', `HMS ${h.code} (${h.severity}, ${h.module})`);
    this.followJob(r);
    this.followExternal(r);
    const m = bambuMeaning(r.gcodeState);
    const error = bambuError(r);
    if (error) {
      this.show('error', 'firmware_error', { code: 'firmware_error', message: error });
      return;
    }
    const online: PrinterStatus = was === 'idle' || was === 'printing' || was === 'paused' ? was : 'idle';
    this.show(withOurJob(m.status ?? online, this.job && !this.job.outcome ? this.job.phase : null));
  }

  private isOurs(r: BambuReading, job: BambuJob): boolean {
    return r.file === job.remoteName || r.taskName === job.remoteName;
  }

  private followJob(r: BambuReading): void {
    const job = this.job;
    if (!job || job.outcome) return;
    const m = bambuMeaning(r.gcodeState);
    const ours = this.isOurs(r, job);
    if (!job.seen) {
      if (ours && m.jobActive) job.seen = true;
      else if (ours && m.ends !== null && job.acceptedMono !== null) {
        // Our print began and ended between two reports.
        job.seen = true;
      } else return;
    }
    if (ours && r.progress !== null && r.progress !== job.progress && m.ends !== 'completed') {
      job.progress = r.progress;
      this.jobProgress(job, r.progress);
    }
    job.layer = r.layer;
    job.remainingMinutes = r.remainingMinutes;
    if (ours && m.jobActive) {
      if (m.phase !== null && m.phase !== job.phase) {
        job.phase = m.phase;
        this.jobEvent(job, m.phase === 'paused' ? 'job.paused' : 'job.resumed');
      }
      return;
    }
    if (ours && m.status === null) return;
    // The print is over: FINISH, FAILED (also what a stop leaves), or another file / IDLE: gone.
    if (ours && m.ends === 'completed') this.endJob(job, { status: 'completed' });
    else if (job.cancelRequested) this.endJob(job, { status: 'cancelled' });
    else if (ours && m.ends === 'failed') this.endJob(job, { status: 'failed', error: { code: 'firmware_error', message: failureWords(r) } });
    else this.endJob(job, { status: 'failed', error: { code: 'firmware_error', message: 'the printer no longer shows the print' } });
  }

  private followExternal(r: BambuReading): void {
    const m = bambuMeaning(r.gcodeState);
    const job = this.job && !this.job.outcome ? this.job : null;
    const name = r.taskName ?? r.file;
    const theirs = m.jobActive && !(job && (this.isOurs(r, job) || !job.seen));
    const ext = this.external;
    if (ext && (!theirs || ext.file !== name)) {
      const status = m.ends === 'completed' ? 'completed' : m.ends === 'failed' ? 'failed' : 'cancelled';
      this.endExternal({ status, printSeconds: null, extrudedMm: null, message: status === 'failed' ? failureWords(r) : undefined });
    }
    if (!theirs) return;
    const progress = r.progress ?? 0;
    if (this.external) this.external.progress = progress;
    else this.external = { ...externalSeen(name ?? 'print started on the printer', progress, instantOf(this.clock), 0), file: name };
  }

  // ---------------------------------------------------------------- jobs

  /** Uploads the file over FTPS, then starts it with project_file; resolves once the printer accepted the start. */
  async startJob(req: JobStartRequest): Promise<JobHandle> {
    this.requireStartable();
    const { size } = await stat(req.filePath);
    const remoteName = uploadName(req, req.sliced ? 'gcode.3mf' : 'gcode');
    // Before any upload: a plate whose filaments no tray holds cannot print here, and the printer must not be tied up.
    const ams = req.sliced ? this.amsFor(req.sliced) : { useAms: false, mapping: [] as number[], choices: [] };
    const job = new BambuJob(req.jobId, req.filePath, remoteName, size, instantOf(this.clock), () => this.clock.monotonic());
    if (req.sliced) job.slots = slotUses(req.sliced, ams);
    const start = async (): Promise<void> => {
      const index = req.sliced ? Promise.resolve(null) : this.indexes.forFile(req.filePath, 'marlin').catch(() => null);
      await uploadToPrinter({ host: this.host, port: this.ftpPort, accessCode: this.accessCode, pin: this.pin, timeoutMs: this.timeoutMs }, req.filePath, remoteName);
      job.index = await index;
      await this.ask(
        projectFile(this.nextSeq(), {
          fileName: remoteName,
          plate: req.sliced?.plate ?? 1,
          ...(req.sliced ? { plateGcode: req.sliced.gcode } : {}),
          taskName: remoteName,
          useAms: ams.useAms,
          amsMapping: ams.mapping,
          // The job's options, else what Bambu Studio's send dialog starts with.
          bedLevelling: req.printOptions?.bed_levelling ?? true,
          timelapse: req.printOptions?.timelapse ?? false,
          flowCalibration: req.printOptions?.flow_calibration ?? false,
        }),
        'the print (project_file)',
      );
      job.acceptedMono = this.clock.monotonic();
    };
    const refused = (err: unknown): Error =>
      err instanceof AppError ? err : new AppError(409, 'printer_offline', `the upload to printer ${this.printerId} failed: ${(err as Error).message}`);
    return this.launch(job, start, refused);
  }

  /** The AMS plan of a sliced plate on the trays last reported; a colour that differs is said on the console. */
  private amsFor(sliced: SlicedStart): { useAms: boolean; mapping: number[]; choices: TrayChoice[] } {
    const plan = planAms(sliced.filaments, this.reading?.trays ?? []);
    if ('refused' in plan) throw new AppError(409, 'invalid_state', `printer ${this.printerId} cannot print this plate: ${plan.refused}`);
    for (const c of plan.choices) {
      const slot = sliced.filaments.find((f) => f.slot === c.slot);
      const text = `filament slot ${c.slot} (${slot?.type ?? '?'} ${slot?.color ?? ''}) prints from AMS tray ${trayLabel(c.tray)}`;
      this.emitConsole('sent', 'info', c.colorDiffers ? `${text}: the colour differs (nearest of that type)` : text);
    }
    return plan;
  }

  async adoptJob(req: JobStartRequest & { startedAt: number }): Promise<JobHandle | null> {
    if (!req.remoteName) return null;
    const first = this.adoption(req.jobId);
    if (first.step !== 'look') return first.step === 'same' ? first.handle : null;
    if (this.status === 'offline' || this.status === 'connecting') await this.connect();
    const r = this.reading;
    const remoteName = uploadName(req, req.sliced ? 'gcode.3mf' : 'gcode');
    if (!r || !(r.file === remoteName || r.taskName === remoteName) || !bambuMeaning(r.gcodeState).jobActive) return null;
    const { size } = await stat(req.filePath);
    const job = new BambuJob(req.jobId, req.filePath, remoteName, size, adoptedStart(instantOf(this.clock), req.startedAt, null), () => this.clock.monotonic());
    job.seen = true;
    job.acceptedMono = this.clock.monotonic();
    job.progress = r.progress ?? 0;
    // The mapping the start sent is not reported back: the trays are planned again on what the printer shows now.
    if (req.sliced) {
      const plan = planAms(req.sliced.filaments, r.trays);
      job.slots = slotUses(req.sliced, 'refused' in plan ? { useAms: false, choices: [] } : plan);
    } else job.index = await this.indexes.forFile(req.filePath, 'marlin').catch(() => null);
    const handle = this.adopted(job, (ext) => ext.file === remoteName);
    if (handle) this.apply(r);
    return handle;
  }

  async pause(): Promise<void> {
    await this.action('pause', 'printing', (j) => j.phase === 'paused');
  }

  async resume(): Promise<void> {
    await this.action('resume', 'paused', (j) => j.phase === 'streaming');
  }

  async cancel(): Promise<'cancelled' | 'pending'> {
    const job = this.job;
    if (!job || (this.status !== 'printing' && this.status !== 'paused')) throw wrongState(this.printerId, 'cancel', this.status);
    return this.cancelJob(
      async () => {
        await this.ask(printAction(this.nextSeq(), 'stop'), 'stop');
        await this.waitFor(() => job.outcome !== null, 'stop');
      },
      (err) => this.log?.warn('bambu: the stop did not take', { printer: this.printerId, error: err.message }),
    );
  }

  private async action(command: 'pause' | 'resume', need: PrinterStatus, done: (j: BambuJob) => boolean): Promise<void> {
    const job = this.job;
    if (!job || this.status !== need) throw wrongState(this.printerId, command, this.status);
    await this.ask(printAction(this.nextSeq(), command), command);
    await this.waitFor(() => done(job), command);
  }

  private waitFor(check: () => boolean, action: string): Promise<void> {
    if (check()) return Promise.resolve();
    return this.waiters.wait(check, this.actionTimeoutMs, () => new AppError(409, 'invalid_state', `the printer did not ${action} within ${this.actionTimeoutMs} ms`)).promise;
  }

  async home(): Promise<CommandReply> {
    this.requireIdle('home');
    return this.sendLine('G28');
  }

  async cooldown(): Promise<void> {
    this.requireCoolable();
    await this.sendLine('M104 S0\nM140 S0');
  }

  emergencyStop(): void {
    this.emergencyStopped(
      () => this.request(gcodeLine(this.nextSeq(), 'M112')),
      (err) => this.log?.warn('bambu: M112 not sent', { printer: this.printerId, error: err.message }),
      'emergency stop (M112) sent to the printer',
    );
  }

  async sendCommand(text: string): Promise<CommandReply> {
    return this.consoleCommand(text, true, (command) => this.sendLine(command));
  }

  /** G-code lines through gcode_line; the printer answers the request, not the lines (no replies to show). */
  private async sendLine(lines: string): Promise<CommandReply> {
    this.emitConsole('sent', 'command', lines);
    await this.ask(gcodeLine(this.nextSeq(), lines), 'the G-code line');
    return { ok: true, lines: [] };
  }
}

/** Each slot's metres on the tool it prints from: its tray with the AMS, tool 0 (the external spool) without. */
function slotUses(sliced: SlicedStart, plan: { useAms: boolean; choices: TrayChoice[] }): SlotUse[] {
  return sliced.filaments.map((f) => ({
    tool: plan.useAms ? (plan.choices.find((c) => c.slot === f.slot)?.tray ?? 0) : 0,
    mm: (f.used_m ?? 0) * 1000,
  }));
}

export function createBambuPrinter(opts: BambuPrinterOptions): BambuPrinter {
  return new BambuPrinter(opts);
}
