// The I/O shell around the pure decide(): gathers the queue, the printers and their live sessions, applies the
// decisions (claims and starts, bed clearing, waiting reasons). It runs when something changes, never in a busy poll;
// a one-second watch runs only while a decision depends on a temperature (a heat-up to finish, a bed to cool).
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/event-bus.js';
import type { JobRunner } from '../jobs/job-runner.js';
import { queuedJobs, setWaitingReason, type JobRow, type QueuedJobRow } from '../jobs/jobs.repository.js';
import type { Db } from '../storage/db.js';
import type { Logger } from '../logger.js';
import type { DurableWriter } from '../storage/durable-writer.js';
import type { SessionRegistry } from '../printers/session-registry.js';
import type { PrinterSnapshot } from '../printers/printer-state.js';
import { decide } from './decide.js';
import { formatDetail, printerRefusedDetail } from './waiting-reasons.js';
import { forecast } from './forecast.js';
import type { Decisions, Forecast, LoadedMaterial, PrinterStatus, SchedulerInput, SchedulerJob, SchedulerOrg, SchedulerPrinter } from './scheduler-types.js';

/** What the loop needs to know of a stored printer (the printers feature's row, reduced). */
export interface PrinterSchedulingInfo {
  id: string;
  /** For the words of a job it holds back (printer_refused). */
  name?: string;
  /** Held after refusing several job starts in a row (its last message); null or absent: not held. */
  start_refusal?: { message: string } | null;
  group: string | null;
  tags: string[];
  /** The bed is cleared (persisted, so a restart does not forget an uncleared bed). */
  ready: boolean;
  clear_bed_gcode: string | null;
  clear_bed_temperature: number | null;
  nozzle_diameter: number | null;
  heatup_watts: number | null;
  /** Stop-gap fields of a printer without spools: the material it holds, remaining unknown. */
  material_type: string | null;
  material_color: string | null;
  /** The spools loaded on the printer's tools (materials feature); when there are any, they replace the two fields above. */
  spools?: readonly LoadedMaterial[];
  /** File formats it prints. */
  formats: readonly ('gcode' | 'bgcode' | '3mf')[];
  /** The model set on the printer (a sliced 3MF fits only its model); absent: null. */
  model?: string | null;
  /**
   * Another node's printer: its state as its owner publishes it (offline when that node is lost or silent). Absent: this
   * node's own, read from its session.
   */
  live?: { status: PrinterStatus; ready: boolean; bed_temperature: number | null };
}

export interface SchedulerLoopDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  bus: EventBus;
  sessions: SessionRegistry;
  runner: JobRunner;
  /** Waiting reasons are written through it: held in order while the disk is full, never waited for by a pass. */
  durable: Pick<DurableWriter, 'write' | 'untilStoredOrHeld'>;
  printers(): Promise<PrinterSchedulingInfo[]>;
  /**
   * The other nodes' printers, each with `live` (several nodes share the queue): waiting reasons and the forecast are
   * the whole farm's, while jobs start only on printers(). Absent: one node.
   */
  otherPrinters?(): Promise<PrinterSchedulingInfo[]>;
  org(): Promise<SchedulerOrg>;
  setPrinterReady(printerId: string, ready: boolean): Promise<void>;
  /** Seconds the print running on this printer still needs (null: unknown), for the forecast. */
  currentRemaining(printerId: string): Promise<number | null>;
  /**
   * Several nodes share the queue: printers of other nodes (jobs pinned to them are theirs alone), and whether this node
   * writes the waiting reasons of unpinned jobs (one node does, so two views of the farm never flap them). Absent: one node.
   */
  nodeView?(): Promise<{ foreignPrinters: ReadonlySet<string>; writesSharedReasons: boolean; lost: boolean }>;
}

/** How long after a start a printer counts as heating when the firmware has not reported targets yet. */
export const HEAT_GRACE_MS = 30_000;
/** Below the target by more than this, a heater is still heating up (°C). */
const HEAT_TOLERANCE_C = 3;
const WATCH_INTERVAL_MS = 1_000;

const toMs = (iso: string): number => Date.parse(iso);

export function toSchedulerJob(row: QueuedJobRow): SchedulerJob {
  return {
    id: row.id,
    priority: row.priority,
    created_at: toMs(row.created_at),
    printer_id: row.pinned ? row.printer_id : null,
    group: row.group_name,
    material: row.material_type ? { type: row.material_type, color: row.material_color } : null,
    nozzle_diameter: row.nozzle_diameter,
    estimated_duration_s: row.estimated_duration,
    estimated_usage_g: row.material_estimated_usage,
    batch_id: row.batch_id,
    file_format: row.file_format,
    printer_model_id: row.file_printer_model_id,
  };
}

/** The materials decide() matches: the loaded spools, else the printer's declared material (remaining unknown). */
function loadedMaterials(p: PrinterSchedulingInfo, bambu?: PrinterSnapshot['bambu']): readonly LoadedMaterial[] {
  if (p.spools && p.spools.length > 0) return p.spools;
  // A Bambu printer with no spool records: what its AMS trays report (type and colour; grams unknown, an empty tray
  // or one at 0 % is left out), tray index as tool, as the start maps them.
  if (bambu && bambu.ams.length > 0) {
    return bambu.ams.flatMap((t) => (t.type && t.remain_percent !== 0 ? [{ tool: t.index, type: t.type, color: t.color, remaining_g: null }] : []));
  }
  return p.material_type ? [{ tool: 0, type: p.material_type, color: p.material_color, remaining_g: null }] : [];
}

/**
 * Another node's printer as decide() sees it: its published state; its heat-up and bed clearing are its owner's to
 * know (counted as neither here: this node never starts a job there, it only explains and forecasts).
 */
function otherSchedulerPrinter(p: PrinterSchedulingInfo): SchedulerPrinter {
  const live = p.live ?? { status: 'offline', ready: true, bed_temperature: null };
  return {
    id: p.id,
    group: p.group,
    tags: p.tags,
    status: live.status,
    ready: p.ready && live.ready,
    has_clear_bed_gcode: !!p.clear_bed_gcode?.trim(),
    clear_bed_temperature: p.clear_bed_temperature,
    bed_temperature: live.bed_temperature,
    clearing_bed: false,
    start_refused: !!p.start_refusal,
    nozzle_diameter: p.nozzle_diameter,
    heatup_watts: p.heatup_watts,
    heating: false,
    loaded_materials: loadedMaterials(p),
    current_job_remaining_s: null,
    formats: p.formats,
    model: p.model ?? null,
  };
}

/** Whether a heater is still short of its target by more than the tolerance. */
function belowTarget(now: number | undefined, target: number | undefined): boolean {
  return target != null && target > 0 && (now == null || now < target - HEAT_TOLERANCE_C);
}

export class SchedulerLoop {
  private scheduled = false;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private watch: NodeJS.Timeout | null = null;
  /** A pass asked for later (a refused start is tried again then). */
  private later: NodeJS.Timeout | null = null;
  /** When this loop started a job on a printer: it counts as heating until its heaters reach their targets. */
  private readonly heatingSince = new Map<string, number>();
  private readonly clearing = new Set<string>();
  private readonly unsubscribe: Array<() => void> = [];
  private lastReasons = new Map<string, string | null>();

  constructor(private readonly d: SchedulerLoopDeps) {
    const wake = (): void => this.wake();
    this.unsubscribe.push(
      d.bus.on('printer.online', wake),
      d.bus.on('printer.ready', wake),
      d.bus.on('printer.updated', wake),
      d.bus.on('printer.offline', wake),
    );
    // A job's end wakes the loop through the runner, after the job's row is written (not on the session's event, which
    // comes first and would show an idle printer whose job still looks active).
  }

  /** Something changed: run a pass soon (coalesced; a change during a pass runs one more). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.runPass();
    });
  }

  /** Runs a pass after `ms` even if nothing else changes (a refused start is tried again then); one such timer at a time. */
  wakeAfter(ms: number): void {
    if (this.stopped || this.later) return;
    this.later = setTimeout(() => {
      this.later = null;
      this.wake();
    }, ms);
    this.later.unref();
  }

  /** Runs one pass now and resolves when it (and any pass it triggered) is done: for tests and the forecast. */
  async passNow(): Promise<Decisions | null> {
    while (this.running) await this.running;
    return this.runPass();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const off of this.unsubscribe.splice(0)) off();
    if (this.watch) clearTimeout(this.watch);
    this.watch = null;
    if (this.later) clearTimeout(this.later);
    this.later = null;
    while (this.running) await this.running;
  }

  /**
   * What decide() sees now: `input` holds this node's printers and the jobs it may start (it starts jobs from it);
   * `farm` holds every node's printers with the same jobs (the waiting reasons come from it), and `farmJobs` every
   * queued job, pinned to another node's printer too (the forecast's).
   */
  async input(): Promise<{
    input: SchedulerInput;
    farm: SchedulerInput;
    farmJobs: SchedulerJob[];
    rows: JobRow[];
    allRows: JobRow[];
    infos: PrinterSchedulingInfo[];
    writesSharedReasons: boolean;
    lost: boolean;
  }> {
    const [all, printers, others, org, view] = await Promise.all([
      queuedJobs(this.d.db),
      this.d.printers(),
      this.d.otherPrinters?.() ?? [],
      this.d.org(),
      this.d.nodeView?.(),
    ]);
    const rows = view ? all.filter((r) => !(r.pinned && r.printer_id !== null && view.foreignPrinters.has(r.printer_id))) : all;
    const jobs = rows.map(toSchedulerJob);
    const own = printers.map((p) => this.toSchedulerPrinter(p));
    return {
      input: { jobs, printers: own, org },
      farm: { jobs, printers: [...own, ...others.map(otherSchedulerPrinter)], org },
      farmJobs: all.map(toSchedulerJob),
      rows,
      allRows: all,
      infos: [...printers, ...others],
      writesSharedReasons: view?.writesSharedReasons ?? true,
      lost: view?.lost ?? false,
    };
  }

  /** Forgets which waiting reasons it wrote, so the next pass writes them all (another node changed some meanwhile). */
  forgetReasons(): void {
    this.lastReasons.clear();
  }

  /** The farm's timeline, every node's printers and queued jobs: which job starts on which printer and when. */
  async forecast(): Promise<{ forecast: Forecast; rows: JobRow[] }> {
    const { farm, farmJobs, allRows } = await this.input();
    const printers = await Promise.all(
      farm.printers.map(async (p) =>
        p.status === 'printing' || p.status === 'paused' ? { ...p, current_job_remaining_s: await this.d.currentRemaining(p.id) } : p,
      ),
    );
    return { forecast: forecast({ ...farm, jobs: farmJobs, printers, now: this.d.clock.now() }), rows: allRows };
  }

  private async runPass(): Promise<Decisions | null> {
    if (this.stopped) return null;
    let decisions: Decisions | null = null;
    const pass = (async () => {
      try {
        decisions = await this.pass();
      } catch (err) {
        this.d.logger.error('scheduler pass failed', { error: err as Error });
      }
    })();
    this.running = pass;
    await pass;
    this.running = null;
    if (this.again && !this.stopped) {
      this.again = false;
      this.wake();
    }
    return decisions;
  }

  private async pass(): Promise<Decisions> {
    const { input, farm, rows, infos, writesSharedReasons, lost } = await this.input();
    const decisions = decide(input);
    // Marked lost by the other nodes: nothing starts here (nor is a reason written) until this node beats again.
    if (lost) return decisions;
    const fileOf = new Map(rows.map((r) => [r.id, r.file_id]));
    const pinned = new Set(rows.filter((r) => r.pinned).map((r) => r.id));
    const org = input.org;

    for (const s of decisions.starts) {
      const session = this.d.sessions.get(s.printer_id);
      // With auto_start the operator does not confirm a cleared bed: the session's own gate is lifted here.
      if (session && org.auto_start) session.markReady();
      const started = await this.d.runner.start(s.job_id, s.printer_id, fileOf.get(s.job_id)!);
      if (started) {
        this.heatingSince.set(s.printer_id, this.d.clock.now());
        this.lastReasons.delete(s.job_id);
      }
    }
    for (const c of decisions.clear_bed) this.clearBed(c.printer_id, input.printers.find((p) => p.id === c.printer_id));

    // Waiting reasons, from the whole farm's printers (a job only another node's printer fits waits for that printer,
    // not for "no printer"); a job the farm's plan starts on another node's printer keeps its reason until it starts.
    // Written only when they change, so a quiet farm writes nothing.
    const seen = farm.printers.length === input.printers.length ? decisions : decide(farm);
    const started = new Set(decisions.starts.map((s) => s.job_id));
    const next = new Map<string, string | null>();
    const writes: Promise<unknown>[] = [];
    const jobById = new Map(input.jobs.map((j) => [j.id, j]));
    for (const [jobId, reason] of seen.waiting) {
      if (started.has(jobId) || (!writesSharedReasons && !pinned.has(jobId))) continue;
      const queued = jobById.get(jobId);
      const detail = this.detailOf(seen.refused_by.get(jobId), infos) ?? (queued ? formatDetail(reason, queued) : null);
      const key = detail === null ? reason : `${reason}\n${detail}`;
      next.set(jobId, key);
      if (this.lastReasons.get(jobId) !== key) writes.push(this.storeReason(jobId, reason, detail));
    }
    this.lastReasons = next;
    // Stored before the pass ends (a reader after it sees them), unless the disk is full: then they are held, written
    // once there is room (a job's newest reason replacing an older one still waiting), and the scheduler goes on.
    await this.d.durable.untilStoredOrHeld(writes);
    this.armWatch(input, decisions);
    return decisions;
  }

  private storeReason(jobId: string, reason: string, detail: string | null): Promise<unknown> {
    const db = this.d.db;
    return this.d.durable
      .write(`waiting reason of job ${jobId}`, () => setWaitingReason(db, jobId, reason, detail), `waiting-reason:${jobId}`)
      .catch((err: Error) => {
        // Written again by the next pass.
        this.lastReasons.delete(jobId);
        this.d.logger.warn('could not store a waiting reason', { job_id: jobId, error: err });
      });
  }

  /** The words of a job held back by a refusing printer: its name and what it said. */
  private detailOf(printerId: string | undefined, infos: readonly PrinterSchedulingInfo[]): string | null {
    const info = printerId === undefined ? undefined : infos.find((p) => p.id === printerId);
    return info?.start_refusal ? printerRefusedDetail(info.name ?? info.id, info.start_refusal.message) : null;
  }

  private toSchedulerPrinter(p: PrinterSchedulingInfo): SchedulerPrinter {
    if (p.live) return otherSchedulerPrinter(p);
    const snap: PrinterSnapshot | undefined = this.d.sessions.get(p.id)?.snapshot();
    // An idle printer whose last job's end is still held by a full disk is not free yet.
    const held = snap?.status === 'idle' && this.d.sessions.heldJob(p.id) !== undefined;
    const status = snap ? (held ? 'printing' : snap.status === 'connecting' ? 'connecting' : snap.status) : 'offline';
    const t = snap?.temperatures ?? {};
    return {
      id: p.id,
      group: p.group,
      tags: p.tags,
      status,
      ready: p.ready && (snap?.ready ?? true),
      has_clear_bed_gcode: !!p.clear_bed_gcode?.trim(),
      clear_bed_temperature: p.clear_bed_temperature,
      bed_temperature: t.bed ?? null,
      clearing_bed: this.clearing.has(p.id),
      start_refused: !!p.start_refusal,
      nozzle_diameter: p.nozzle_diameter,
      heatup_watts: p.heatup_watts,
      heating: this.isHeating(p.id, snap),
      loaded_materials: loadedMaterials(p, snap?.bambu),
      current_job_remaining_s: null,
      formats: p.formats,
      // The model the owner set, else the one a Bambu printer reports of itself ("Bambu Lab P1S").
      model: p.model ?? snap?.bambu?.model ?? null,
    };
  }

  /** A printer this loop started counts as heating until its heaters report their targets reached. */
  private isHeating(printerId: string, snap: PrinterSnapshot | undefined): boolean {
    const since = this.heatingSince.get(printerId);
    if (since == null) return false;
    const t = snap?.temperatures ?? {};
    const printing = snap?.status === 'printing' || snap?.status === 'paused';
    const targetsKnown = (t.hotend_target ?? 0) > 0 || (t.bed_target ?? 0) > 0;
    const stillHeating = belowTarget(t.hotend, t.hotend_target) || belowTarget(t.bed, t.bed_target);
    const heating = printing && (targetsKnown ? stillHeating : this.d.clock.now() - since < HEAT_GRACE_MS);
    if (!heating) this.heatingSince.delete(printerId);
    return heating;
  }

  /** The push-off script of a printer whose bed has cooled: runs line by line, then the printer is ready again. */
  private clearBed(printerId: string, printer: SchedulerPrinter | undefined): void {
    const session = this.d.sessions.get(printerId);
    if (!session || !printer || this.clearing.has(printerId)) return;
    this.clearing.add(printerId);
    void (async () => {
      try {
        const info = (await this.d.printers()).find((p) => p.id === printerId);
        const lines = (info?.clear_bed_gcode ?? '')
          .split(/\r?\n/)
          .map((l) => l.replace(/;.*$/, '').trim())
          .filter(Boolean);
        for (const line of lines) {
          const reply = await session.sendCommand(line);
          if (!reply.ok) throw new Error(`the printer refused "${line}": ${reply.lines.join(' ')}`);
        }
        session.markReady();
        await this.d.setPrinterReady(printerId, true);
        this.d.logger.info('bed cleared by G-code', { printer_id: printerId, lines: lines.length });
      } catch (err) {
        this.d.logger.warn('clear-bed G-code failed; the bed waits for the operator', { printer_id: printerId, error: err as Error });
      } finally {
        this.clearing.delete(printerId);
        this.wake();
      }
    })();
  }

  /** Keeps a 1 s watch only while a decision waits on a temperature: a heat-up under a power budget or a bed to cool. */
  private armWatch(input: SchedulerInput, decisions: Decisions): void {
    const waitsOnHeat = [...decisions.waiting.values()].some((r) => r === 'power_budget' || r === 'bed_clearing');
    const bedCooling = input.printers.some((p) => p.has_clear_bed_gcode && !p.ready && p.status === 'idle' && !p.clearing_bed);
    const heating = this.heatingSince.size > 0 && (waitsOnHeat || input.org.power_budget_watts != null);
    if (this.watch || this.stopped || !(waitsOnHeat || bedCooling || heating)) return;
    this.watch = setTimeout(() => {
      this.watch = null;
      this.wake();
    }, WATCH_INTERVAL_MS);
    this.watch.unref();
  }
}
