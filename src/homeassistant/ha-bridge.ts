// The farm in Home Assistant: publishes each of this node's printers (discovery, retained state) and the farm's totals
// through a publishing link, and runs the button commands it receives. State changes go at once, telemetry at most
// once a second per printer; nothing here waits for the broker.
import { performance } from 'node:perf_hooks';
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logger.js';
import type { PrinterRecord } from '../printers/printer-record.js';
import type { PrinterSnapshot } from '../printers/printer-state.js';
import { findOrganization } from '../auth/organization.repository.js';
import type { Db } from '../storage/db.js';
import { countFailedSince, countQueuedJobs } from './farm-counts.repository.js';
import { decideCommand, type MqttAction } from './ha-commands.js';
import { farmDiscovery, printerDiscovery, printerDiscoveryTopics } from './ha-discovery.js';
import { filamentOf, isStateChange, printerState, startOfLocalDay, type FarmTotals, type JobInfo, type PrinterInfo, type PrinterState } from './ha-state.js';
import { availabilityTopic, ERROR_TOPIC, FARM_STATE_TOPIC, HA_STATUS_TOPIC, printerStateTopic } from './ha-topics.js';
import { PublishGate } from './publish-gate.js';

/** What the bridge publishes through (MqttLink in the server; a recorder in unit tests). */
export interface PublishLink {
  publishRetained(topic: string, payload: string): void;
  clearRetained(topic: string): void;
  publishNow(topic: string, payload: string): void;
  republish(): void;
}

export interface HomeAssistantDeps {
  bus: EventBus;
  db: Db;
  clock: Clock;
  logger: Logger;
  nodeId: string;
  /** This node's printers as the API shows them. */
  ownPrinters: () => Promise<PrinterRecord[]>;
  printer: (id: string) => Promise<PrinterRecord>;
  /** The live snapshot of this node's printer, or null without a session. */
  snapshot: (id: string) => PrinterSnapshot | null;
  job: (id: string) => Promise<{ id: string; name: string; estimated_duration: number | null; started_at: string | null }>;
  /** Runs a printer action with the checks of POST /v1/printers/:id/actions; throws an AppError when refused. */
  runAction: (printerId: string, action: MqttAction) => Promise<unknown>;
  /** How often the live state is looked at (default 250 ms; the gate keeps telemetry to once a second). */
  tickMs?: number;
  /**
   * Real elapsed ms for the rate limits (performance.now by default): they pace messages on the wire, so a test's
   * hand-moved clock must not freeze them.
   */
  monotonic?: () => number;
}

const JOB_EVENTS = ['job.started', 'job.paused', 'job.resumed', 'job.completed', 'job.failed', 'job.cancelled'] as const;
const PRINTER_EVENTS = ['printer.online', 'printer.offline', 'printer.error', 'printer.ready', 'printer.updated'] as const;

export class HomeAssistantBridge {
  private readonly infos = new Map<string, PrinterInfo>();
  private readonly jobInfos = new Map<string, JobInfo | 'loading'>();
  private readonly sent = new Map<string, PrinterState>();
  private readonly gate = new PublishGate();
  private readonly offs: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private totalsDirty = true;
  private totalsAt = -Infinity;
  private totalsRunning = false;
  private lastTotals = '';
  /** Commands refused since start (the status route shows it). */
  refused = 0;

  constructor(
    private readonly d: HomeAssistantDeps,
    private readonly link: PublishLink,
  ) {}

  private elapsed(): number {
    return this.d.monotonic ? this.d.monotonic() : performance.now();
  }

  async start(): Promise<void> {
    this.link.publishRetained(availabilityTopic(this.d.nodeId), 'online');
    const org = await findOrganization(this.d.db);
    for (const m of farmDiscovery(this.d.nodeId, org?.name ?? 'Print farm')) this.link.publishRetained(m.topic, JSON.stringify(m.config));
    for (const p of await this.d.ownPrinters()) this.noteInfo(p);
    for (const name of PRINTER_EVENTS) this.offs.push(this.d.bus.on(name, (e) => this.refresh(e.printer_id)));
    for (const name of JOB_EVENTS) {
      this.offs.push(
        this.d.bus.on(name, (e) => {
          this.totalsDirty = true;
          this.refresh(e.printer_id);
        }),
      );
    }
    this.offs.push(this.d.bus.on('printer.external_job_ended', () => void (this.totalsDirty = true)));
    this.offs.push(this.d.bus.on('printer.removed', (e) => this.removed(e.printer_id)));
    this.tick();
    this.timer = setInterval(() => this.tick(), this.d.tickMs ?? 250);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    for (const off of this.offs) off();
  }

  /** A message on a subscribed topic: Home Assistant's birth message, or a command. */
  onMessage(topic: string, payload: string): void {
    if (topic === HA_STATUS_TOPIC) {
      if (payload === 'online') this.link.republish();
      return;
    }
    this.command(topic, payload).catch((err: Error) => this.d.logger.error('mqtt: command failed', { topic, error: err }));
  }

  private async command(topic: string, payload: string): Promise<void> {
    const decision = decideCommand(topic, payload);
    if (!decision.ok) return this.refuse(topic, payload, decision.printerId, decision.code, decision.message);
    let printer: PrinterRecord;
    try {
      printer = await this.d.printer(decision.printerId);
    } catch (err) {
      return this.refuse(topic, payload, decision.printerId, codeOf(err), (err as Error).message);
    }
    // Several nodes may share a broker: the node driving the printer runs and answers its commands.
    if (printer.node_id !== null && printer.node_id !== this.d.nodeId) return;
    try {
      await this.d.runAction(decision.printerId, decision.action);
      this.d.logger.info('mqtt: printer action', { printer_id: decision.printerId, action: decision.action });
    } catch (err) {
      this.refuse(topic, payload, decision.printerId, codeOf(err), (err as Error).message);
    }
  }

  private refuse(topic: string, payload: string, printerId: string | null, code: string, message: string): void {
    this.refused += 1;
    const body = { topic, command: payload.slice(0, 100), printer_id: printerId, error: { code, message }, at: new Date(this.d.clock.now()).toISOString() };
    this.link.publishNow(ERROR_TOPIC, JSON.stringify(body));
  }

  /** The stored printer changed (or its status): read it again, publish its discovery and its state at once. */
  private refresh(printerId: string): void {
    this.d
      .printer(printerId)
      .then((p) => {
        if (p.node_id !== null && p.node_id !== this.d.nodeId) return;
        this.noteInfo(p);
        this.publishPrinter(printerId);
      })
      .catch((err: Error) => this.d.logger.debug('mqtt: printer not published', { printer_id: printerId, error: err }));
  }

  private noteInfo(p: PrinterRecord): void {
    this.infos.set(p.id, { name: p.name, model: p.model, firmware: p.firmware, filament: filamentOf(p), ready: p.ready });
    for (const m of printerDiscovery({ id: p.id, name: p.name, model: p.model, firmware: p.firmware }, this.d.nodeId)) {
      this.link.publishRetained(m.topic, JSON.stringify(m.config));
    }
    this.totalsDirty = true;
  }

  private removed(printerId: string): void {
    this.infos.delete(printerId);
    this.sent.delete(printerId);
    this.gate.forget(printerId);
    for (const topic of [...printerDiscoveryTopics(printerId), printerStateTopic(printerId)]) this.link.clearRetained(topic);
    this.totalsDirty = true;
  }

  private publishPrinter(printerId: string): void {
    const info = this.infos.get(printerId);
    if (!info) return;
    const snap = this.d.snapshot(printerId);
    const state = printerState(info, snap, this.jobInfo(snap), this.d.clock.now());
    const prev = this.sent.get(printerId);
    const change = isStateChange(prev, state);
    if (prev && !change && JSON.stringify(prev) === JSON.stringify(state)) return;
    if (!this.gate.admit(printerId, change, this.elapsed())) return;
    this.sent.set(printerId, state);
    if (change) this.totalsDirty = true;
    this.link.publishRetained(printerStateTopic(printerId), JSON.stringify(state));
  }

  /** The running job's name and estimate, read once per job (null until read). */
  private jobInfo(snap: PrinterSnapshot | null): JobInfo | null {
    const id = snap?.job?.id;
    if (!id) return null;
    const known = this.jobInfos.get(id);
    if (known === 'loading') return null;
    if (known) return known;
    this.jobInfos.set(id, 'loading');
    this.d
      .job(id)
      .then((j) => {
        // Only running jobs are kept: the map holds one entry per printer at most.
        for (const [k] of this.jobInfos) if (k !== id && !this.runningJobIds().has(k)) this.jobInfos.delete(k);
        this.jobInfos.set(id, { id, name: j.name, estimated_duration: j.estimated_duration, started_at: j.started_at ? Date.parse(j.started_at) : null });
        if (snap) this.publishPrinter(snap.printer_id);
      })
      .catch(() => this.jobInfos.delete(id));
    return null;
  }

  private runningJobIds(): Set<string> {
    const ids = new Set<string>();
    for (const id of this.infos.keys()) {
      const j = this.d.snapshot(id)?.job?.id;
      if (j) ids.add(j);
    }
    return ids;
  }

  /** One look at the live state of every printer (the timer calls it every tickMs). */
  tick(): void {
    for (const id of this.infos.keys()) this.publishPrinter(id);
    const now = this.elapsed();
    // "Failed today" turns to 0 at midnight without any event: looked at again each minute anyway.
    if (now - this.totalsAt >= 60_000) this.totalsDirty = true;
    if (this.totalsDirty && !this.totalsRunning && now - this.totalsAt >= 1000) {
      this.totalsDirty = false;
      this.totalsAt = now;
      this.totalsRunning = true;
      this.publishTotals()
        .catch((err: Error) => {
          this.totalsDirty = true;
          this.d.logger.warn('mqtt: farm totals not published', { error: err });
        })
        .finally(() => (this.totalsRunning = false));
    }
  }

  private async publishTotals(): Promise<void> {
    const org = await findOrganization(this.d.db);
    const since = new Date(startOfLocalDay(this.d.clock.now(), org?.timezone ?? 'UTC')).toISOString();
    let printing = 0;
    let idle = 0;
    for (const s of this.sent.values()) {
      if (s.status === 'printing' || s.status === 'paused') printing += 1;
      else if (s.status === 'idle') idle += 1;
    }
    const totals: FarmTotals = { printing, idle, queued: await countQueuedJobs(this.d.db), failed_today: await countFailedSince(this.d.db, since) };
    const payload = JSON.stringify(totals);
    if (payload === this.lastTotals) return;
    this.lastTotals = payload;
    this.link.publishRetained(FARM_STATE_TOPIC, payload);
  }
}

const codeOf = (err: unknown): string => {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'internal_error';
};
