// Printers: stored settings (CRUD, list), one live session per printer opened and closed with it, the persisted `ready` flag.
import type { RemotePrinterStates } from './remote-printer-states.js';
import { engineSqlOf } from '../storage/engines/engine-sql.js';
import { isUniqueViolation } from '../storage/engines/unique-violation.js';
import { sql, type SqlBool, type Updateable } from 'kysely';
import { isoTime, type Clock } from '../clock.js';
import { AppError, notFound } from '../errors.js';
import { findOrganization } from '../auth/organization.repository.js';
import type { EventBus } from '../events/event-bus.js';
import type { ListSpec } from '../http/list-query.js';
import { customCondition, runListQuery, withCustomCondition, type ListCondition, type ListPage, type ListQuery } from '../storage/list-page.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import type { PrinterTable } from '../storage/schema.js';
import type { DiscoveryOptions } from '../transport/serial-discovery.js';
import { checkConnectionUrl, linkIdentity, type PrinterUrl } from './connection-url.js';
import type { NetworkDiscovery } from './network-discovery.js';
import { cleanClearBedGcode, cleanOptionalText, cleanTags, cleanText } from './printer-input.js';
import { apiStatus, PRINTER_FIELDS, PRINTER_STATUSES, toPrinterRecord, type ApiPrinterStatus, type PrinterRecord, type PrinterRow } from './printer-record.js';
import type { PreparedGcodeCache } from './prepared-gcode-cache.js';
import type { ExtrusionIndexCache } from './extrusion-index-cache.js';
import { printerKindOf, withFingerprint } from './network-url.js';
import { openPrinterLink, type LinkDeps, type SessionTuning } from './open-printer-link.js';
import type { PrinterLink } from './printer-link.js';
import { printerBusy, type JobSnapshot } from './printer-state.js';
import type { PrinterCreateInput, PrinterUpdateInput } from './printers.schemas.js';
import { activeJobStatus, allPrinters, deletePrinter, findPrinterById, insertPrinter, selectPrinters, updatePrinter } from './printers.repository.js';
import type { SecretBox } from './secret-box.js';
import { forgetStartRefusals, liftStartRefusal, recordStartRefusal, type RefusalCount } from './start-refusals.js';
import { serialStatsOf } from './serial-stats.js';
import type { SessionRegistry } from './session-registry.js';
import type { LinkWorkerPool } from './workers/link-worker-pool.js';


export interface PrintersServiceDeps {
  db: Db;
  bus: EventBus;
  /** Timestamps of the records; sessions keep the system clock (their timers need time that moves). */
  clock: Clock;
  logger: Logger;
  sessions: SessionRegistry;
  secrets: SecretBox;
  sessionOptions?: SessionTuning;
  /** Network printer drivers' tuning (tests shorten polling and timeouts). */
  networkOptions?: LinkDeps['networkOptions'];
  /** Extrusion indexes of stored files, shared by every network printer. */
  extrusionIndexes: ExtrusionIndexCache;
  /** Files read and parsed once, shared by every serial session printing them (each session has its own otherwise). */
  preparedFiles?: PreparedGcodeCache;
  /** Roots for serial discovery (tests build a /dev and /sys tree). */
  discovery?: DiscoveryOptions;
  /** mDNS browsing for network printers; absent when off (`--no-mdns`, and in tests unless they pass a loopback one). */
  mdns?: NetworkDiscovery;
  /** How long POST /commands waits for one command's answer (default 30 s). */
  commandTimeoutMs?: number;
  /** The worker threads serial sessions run in (--workers N > 0); absent: every session on this thread. */
  workers?: LinkWorkerPool;
  /** Live state of printers other nodes own (several nodes on one database); absent: every printer is this node's. */
  remote?: RemotePrinterStates;
  /** This node: only the node a printer belongs to opens its connection. */
  nodeId: string;
  /** Whether a node with this id is registered (POST /v1/printers with node_id). */
  nodeExists(id: string): Promise<boolean>;
  /** A printer of another node was created, changed or removed here: tells the nodes (signal 'nodes'), so its owner follows. */
  signalNodes(): Promise<void>;
}

/** Fields that change which jobs a printer can take: a PATCH of one of them wakes the scheduler up. */
const SCHEDULING_FIELDS = ['material_type', 'material_color', 'nozzle_diameter', 'group'] as const;

export const PRINTER_LIST_SPEC: ListSpec = {
  fields: PRINTER_FIELDS,
  sortable: { name: 'name', model: 'model', group: 'group_name', created_at: 'created_at', updated_at: 'updated_at' },
  filters: {
    status: {
      type: 'enum',
      values: PRINTER_STATUSES,
      description: 'idle, printing, offline (includes connecting), paused or error: the live status',
      // Status is live (the sessions), not a column: list() replaces this with the ids that have it right now.
      where: () => sql<SqlBool>`1 = 0`,
    },
    group: { column: 'group_name', type: 'string', description: 'Only printers of this group (exact name).' },
    tag: {
      type: 'string',
      description: 'Only printers carrying this tag.',
      // The JSON test differs per engine: list() puts in the engine's (storage/engines), this stand-in is never run.
      where: () => sql<SqlBool>`1 = 0`,
    },
    model: { column: 'model', type: 'string', description: 'Only printers of this model (exact name).' },
  },
};

/** What a session's link is opened from: when it differs from the stored row, the session must be opened again. */
const linkKey = (row: PrinterRow): string => `${row.connection_url}\n${row.api_key_sealed ?? ''}`;
const busy = (status: string | undefined): boolean => status === 'printing' || status === 'paused';

const linkTaken = (why: string): AppError =>
  new AppError(409, 'invalid_request', `connection_url: ${why}`, 'two sessions on one link would fight over it');

export class PrintersService {
  private readonly pendingWrites = new Set<Promise<unknown>>();
  /** The link each open session was opened with: a change made on another node shows as a difference here. */
  private readonly openedWith = new Map<string, string>();
  private readonly unsubscribe: Array<() => void> = [];
  private closing = false;

  constructor(readonly deps: PrintersServiceDeps) {
    // The session turns `ready` false when a job that printed something ends; the row follows so a restart remembers.
    for (const name of ['job.completed', 'job.failed', 'job.cancelled'] as const) {
      this.unsubscribe.push(deps.bus.on(name, (p) => this.followSessionReady(p.printer_id)));
    }
    // The firmware name is kept so an offline printer still says what it runs.
    this.unsubscribe.push(
      deps.bus.on('printer.online', (p) => {
        if (p.firmware) this.track(updatePrinter(deps.db, p.printer_id, { firmware: p.firmware }));
        // A printer that connected again may have been fixed (restarted, storage freed): it is offered jobs again.
        this.track(this.liftStartRefusal(p.printer_id, 'reconnected'));
      }),
    );
  }

  /**
   * Opens a session for every stored printer of this node not open yet (at start, and when ownership changes);
   * connecting goes on in the background with retries. A session of a printer that moved to another node is closed.
   */
  async openAllSessions(): Promise<void> {
    // From now on this node's printers' state reaches the other nodes, and theirs reaches this one.
    await this.deps.remote?.start();
    const rows = await allPrinters(this.deps.db);
    // A shutdown that began while the rows were read must not be followed by sessions nobody closes.
    if (this.closing) return;
    const own = new Map(rows.filter((r) => r.node_id === this.deps.nodeId).map((r) => [r.id, r]));
    for (const s of this.deps.sessions.list()) {
      const row = own.get(s.printerId);
      // Moved to another node or deleted there; or its link changed there (a busy printer keeps its link until it is idle).
      const relink = row !== undefined && this.openedWith.get(row.id) !== linkKey(row) && !busy(s.currentStatus);
      if (row === undefined || relink) {
        await this.deps.sessions.remove(s.printerId);
        this.openedWith.delete(s.printerId);
      }
    }
    for (const row of own.values()) {
      if (this.deps.sessions.has(row.id)) continue;
      try {
        this.openSession(row);
      } catch (err) {
        this.deps.logger.error('printer session could not be opened', { printer_id: row.id, error: err as Error });
      }
    }
  }

  /**
   * Closes every session (bounded) and waits for the bookkeeping writes they caused; for shutdown. A job cut off by
   * the shutdown leaves a part on the bed: that is stored (ready = false) so the next start does not print over it.
   */
  async close(): Promise<void> {
    this.closing = true;
    this.deps.remote?.stop();
    // A browse in flight ends now (its sockets would keep the process alive for up to its length).
    this.deps.mdns?.close();
    const open = this.deps.sessions.list();
    const late = await this.deps.sessions.closeAll();
    if (late.length > 0) this.deps.logger.warn('shutdown: printer sessions did not close in time', { printers: late.join(',') });
    for (const s of open) if (!s.snapshot().ready) this.track(updatePrinter(this.deps.db, s.printerId, { ready: 0 }));
    await this.deps.workers?.close();
    await Promise.allSettled([...this.pendingWrites]);
    for (const off of this.unsubscribe) off();
  }

  /** Builds, registers and starts connecting a session; a failed attempt is retried by the session itself. */
  openSession(row: PrinterRow): PrinterLink {
    const apiKey = row.api_key_sealed === null ? null : this.deps.secrets.open(row.api_key_sealed, row.id);
    const session = openPrinterLink({ id: row.id, url: row.connection_url, apiKey }, {
      ...this.deps,
      coolOnPause: async () => (await findOrganization(this.deps.db))?.cool_on_pause === 1,
      onCertificatePinned: (id, fingerprint) => this.track(this.keepPin(id, row.connection_url, fingerprint)),
    });
    this.deps.sessions.add(session);
    this.openedWith.set(row.id, linkKey(row));
    session.connect().catch((err: Error) => {
      this.deps.logger.info('printer not connected yet; retrying in the background', { printer_id: row.id, reason: err.message });
    });
    return session;
  }

  /**
   * Writes a certificate pinned on first contact into the printer's stored URL, unless the owner changed the URL
   * meanwhile. The running link already holds that pin: it is not reopened.
   */
  private async keepPin(id: string, openedUrl: string, fingerprint: string): Promise<void> {
    const row = await findPrinterById(this.deps.db, id);
    if (!row || row.connection_url !== openedUrl) return;
    const connection_url = withFingerprint(openedUrl, fingerprint);
    await updatePrinter(this.deps.db, id, { connection_url });
    if (this.openedWith.has(id)) this.openedWith.set(id, linkKey({ ...row, connection_url }));
    this.deps.logger.info('printer certificate pinned on first contact, kept in its URL', { printer_id: id, fingerprint });
    this.deps.bus.emit('printer.updated', { printer_id: id, reason: 'changed: connection_url (certificate pinned on first contact)' });
  }

  session(printerId: string): PrinterLink | undefined {
    return this.deps.sessions.get(printerId);
  }

  record(row: PrinterRow): PrinterRecord {
    const session = this.session(row.id);
    return toPrinterRecord(row, session?.snapshot() ?? null, serialStatsOf(session), this.deps.sessions.heldJob(row.id) ?? null);
  }

  async requireRow(id: string): Promise<PrinterRow> {
    const row = await findPrinterById(this.deps.db, id);
    if (!row) throw notFound(`printer ${id}`);
    return row;
  }

  async get(id: string): Promise<PrinterRecord> {
    return this.view(await this.requireRow(id));
  }

  /**
   * A printer as the API shows it: the owner node's published state when another node owns it. The scheduler keeps
   * record() (this node's own links only), so it never plans on a printer it cannot drive.
   */
  view(row: PrinterRow): PrinterRecord {
    const remote = this.deps.remote?.snapshotFor(row.id, row.node_id);
    return remote === undefined ? this.record(row) : toPrinterRecord(row, remote);
  }

  /** Every printer with its live state, oldest first. */
  async listAll(): Promise<PrinterRecord[]> {
    return (await allPrinters(this.deps.db)).map((row) => this.record(row));
  }

  /** The job another node's printer runs as its owner last published it; null for this node's own printers. */
  remoteJob(printerId: string): JobSnapshot | null {
    return this.deps.remote?.jobOf(printerId) ?? null;
  }

  /** The other nodes' printers as their owners publish them, oldest first (the scheduler's view of the whole farm). */
  async listOthers(): Promise<PrinterRecord[]> {
    return (await allPrinters(this.deps.db)).filter((row) => row.node_id !== this.deps.nodeId).map((row) => this.view(row));
  }

  /** This node's printers with their live state, oldest first (for its scheduler). */
  async listOwn(): Promise<PrinterRecord[]> {
    return (await allPrinters(this.deps.db)).filter((row) => row.node_id === this.deps.nodeId).map((row) => this.record(row));
  }

  async list(q: ListQuery): Promise<ListPage<Partial<PrinterRecord>>> {
    const where: ListCondition[] = q.where.map((c) =>
      c.param === 'status' ? customCondition(c, (v) => this.statusCondition(v as ApiPrinterStatus)) : c,
    );
    const tagged = withCustomCondition({ ...q, where }, 'tag', (v) => engineSqlOf(this.deps.db).jsonArrayHas(sql.ref('printers.tags'), String(v)));
    return runListQuery(selectPrinters(this.deps.db), tagged, (row) => this.view(row));
  }

  async create(input: PrinterCreateInput): Promise<PrinterRecord> {
    const { url, parsed } = checkConnectionUrl(input.connection_url);
    await this.ensureLinkFree(url, parsed, null);
    const nodeId = input.node_id ?? this.deps.nodeId;
    if (input.node_id !== undefined && !(await this.deps.nodeExists(nodeId))) {
      throw new AppError(422, 'invalid_request', `node_id: no node ${nodeId} is registered`, 'list the nodes with GET /v1/nodes');
    }
    const id = newId('prt');
    const now = isoTime(this.deps.clock.now());
    const row: PrinterRow = {
      id,
      name: cleanText('name', input.name),
      connection_url: url,
      api_key_sealed: null,
      model: cleanOptionalText('model', input.model ?? null),
      group_name: cleanOptionalText('group', input.group ?? null),
      tags: JSON.stringify(cleanTags(input.tags ?? [])),
      ready: 1,
      firmware: null,
      material_type: cleanOptionalText('material_type', input.material_type ?? null),
      material_color: cleanOptionalText('material_color', input.material_color ?? null),
      nozzle_diameter: input.nozzle_diameter ?? null,
      heatup_watts: input.heatup_watts ?? null,
      power_watts: input.power_watts ?? null,
      clear_bed_gcode: cleanClearBedGcode(input.clear_bed_gcode ?? null),
      clear_bed_temperature: input.clear_bed_temperature ?? null,
      node_id: nodeId,
      start_refusals: 0,
      start_refused_message: null,
      start_refused_since: null,
      created_at: now,
      updated_at: now,
    };
    const apiKey = cleanOptionalText('api_key', input.api_key ?? null);
    if (apiKey !== null) row.api_key_sealed = this.deps.secrets.seal(apiKey, id);
    await this.unlessTaken(url, insertPrinter(this.deps.db, row));
    // Only the owner connects: another node opens it when the signal reaches it (or at its next start).
    if (nodeId === this.deps.nodeId) this.openSession(row);
    else await this.deps.signalNodes();
    this.deps.bus.emit('printer.updated', { printer_id: id, reason: 'created' });
    return this.record(row);
  }

  async update(id: string, input: PrinterUpdateInput): Promise<PrinterRecord> {
    const row = await this.requireRow(id);
    const patch: Updateable<PrinterTable> = {};
    if (input.name !== undefined) patch.name = cleanText('name', input.name);
    let reconnect = false;
    if (input.connection_url !== undefined) {
      const { url, parsed } = checkConnectionUrl(input.connection_url);
      if (url !== row.connection_url) {
        await this.refuseWhileBusy(row, 'change connection_url');
        await this.ensureLinkFree(url, parsed, id);
        patch.connection_url = url;
        reconnect = true;
      }
    }
    if (input.api_key !== undefined) {
      const key = cleanOptionalText('api_key', input.api_key);
      patch.api_key_sealed = key === null ? null : this.deps.secrets.seal(key, id);
      // A network printer's driver holds the credential: a new one takes effect on a new link (a refused key is fixed this way).
      if (printerKindOf(row.connection_url) !== 'serial' && patch.api_key_sealed !== row.api_key_sealed) {
        await this.refuseWhileBusy(row, 'change api_key');
        reconnect = true;
      }
    }
    if (input.model !== undefined) patch.model = cleanOptionalText('model', input.model);
    if (input.group !== undefined) patch.group_name = cleanOptionalText('group', input.group);
    if (input.tags !== undefined) patch.tags = JSON.stringify(cleanTags(input.tags));
    if (input.material_type !== undefined) patch.material_type = cleanOptionalText('material_type', input.material_type);
    if (input.material_color !== undefined) patch.material_color = cleanOptionalText('material_color', input.material_color);
    if (input.nozzle_diameter !== undefined) patch.nozzle_diameter = input.nozzle_diameter;
    if (input.heatup_watts !== undefined) patch.heatup_watts = input.heatup_watts;
    if (input.power_watts !== undefined) patch.power_watts = input.power_watts;
    if (input.clear_bed_gcode !== undefined) patch.clear_bed_gcode = cleanClearBedGcode(input.clear_bed_gcode);
    if (input.clear_bed_temperature !== undefined) patch.clear_bed_temperature = input.clear_bed_temperature;
    // Someone changed the printer: a start it kept refusing is tried again (the refusal count stays, see start-refusals).
    patch.start_refused_since = null;
    patch.updated_at = isoTime(this.deps.clock.now());
    await this.unlessTaken(patch.connection_url ?? row.connection_url, updatePrinter(this.deps.db, id, patch));
    const updated: PrinterRow = { ...row, ...patch } as PrinterRow;
    if (reconnect && updated.node_id === this.deps.nodeId) {
      await this.deps.sessions.remove(id);
      this.openSession(updated);
    } else if (reconnect || (row.start_refused_since !== null && updated.node_id !== this.deps.nodeId)) {
      // The owner opens the new link, or offers its lifted printer jobs again.
      await this.deps.signalNodes();
    } else if (this.openedWith.has(id)) {
      // A key a serial link does not use changed: its session stays as it is.
      this.openedWith.set(id, linkKey(updated));
    }
    const changed = Object.keys(input);
    this.deps.bus.emit('printer.updated', {
      printer_id: id,
      reason: `changed: ${changed.join(', ')}${changed.some((k) => (SCHEDULING_FIELDS as readonly string[]).includes(k)) ? ' (scheduling)' : ''}`,
    });
    return this.record(updated);
  }

  /** Removes the printer and closes its session; refused while it prints (cancel the job first). */
  async remove(id: string): Promise<void> {
    const row = await this.requireRow(id);
    await this.refuseWhileBusy(row, 'delete the printer');
    await this.deps.sessions.remove(id);
    this.openedWith.delete(id);
    await deletePrinter(this.deps.db, id);
    if (row.node_id !== this.deps.nodeId) await this.deps.signalNodes();
    this.deps.bus.emit('printer.removed', { printer_id: id });
  }

  /**
   * Stores whether the bed is cleared. true also tells the session and wakes the scheduler (printer.ready); the job
   * runner calls setReady(id, false) after a print.
   */
  async setReady(printerId: string, ready: boolean): Promise<void> {
    const before = await this.requireRow(printerId);
    await updatePrinter(this.deps.db, printerId, { ready: ready ? 1 : 0 });
    if (!ready) {
      // Only a change is news: the live stream's printer.updated tells open dashboards the bed waits to be cleared.
      if (before.ready) {
        this.deps.bus.emit('printer.updated', { printer_id: printerId, reason: 'changed: ready' });
        this.deps.bus.emit('printer.bed_waiting', { printer_id: printerId });
      }
      return;
    }
    this.session(printerId)?.markReady();
    this.deps.bus.emit('printer.ready', { printer_id: printerId });
  }

  /**
   * The printer refused a job start (its upload or start failed before a line printed): counted, and held once the
   * count reached the limit. The caller announces it (printer.updated) once the job is back in the queue.
   */
  async startRefused(printerId: string, message: string): Promise<RefusalCount> {
    return recordStartRefusal(this.deps.db, printerId, message, isoTime(this.deps.clock.now()));
  }

  /** A start went through: the refusals before it no longer count. */
  async startAccepted(printerId: string): Promise<void> {
    await forgetStartRefusals(this.deps.db, printerId);
  }

  /** The printer is offered jobs again (it reconnected, was edited, or action connect retries it); `why` is logged. */
  async liftStartRefusal(printerId: string, why: string): Promise<void> {
    if (!(await liftStartRefusal(this.deps.db, printerId))) return;
    this.deps.logger.info('printer offered jobs again after refused starts', { printer_id: printerId, reason: why });
    this.deps.bus.emit('printer.updated', { printer_id: printerId, reason: `start refusal lifted: ${why}` });
  }

  /** The printer interface's credential, decrypted (for the network printer drivers); null when none is stored. */
  async readApiKey(printerId: string): Promise<string | null> {
    const row = await this.requireRow(printerId);
    return row.api_key_sealed === null ? null : this.deps.secrets.open(row.api_key_sealed, printerId);
  }

  // ------------------------------------------------------------------------------------------------ internals

  /** printer_busy while a job is printing or paused on it (another node's printer: as its jobs' rows say). */
  private async refuseWhileBusy(row: PrinterRow, what: string): Promise<void> {
    const id = row.id;
    const status = row.node_id === this.deps.nodeId ? this.session(id)?.currentStatus : await activeJobStatus(this.deps.db, id);
    if (status === 'printing' || status === 'paused') {
      const err = printerBusy(id, status);
      throw new AppError(err.status, err.code, `cannot ${what}: ${err.message}`, err.details);
    }
  }

  /** Two sessions on one serial port or TCP bridge would fight over it: refused, however the URL spells the device. */
  private async ensureLinkFree(url: string, parsed: PrinterUrl, selfId: string | null): Promise<void> {
    const wanted = await linkIdentity(url, parsed);
    for (const other of await allPrinters(this.deps.db)) {
      if (other.id === selfId) continue;
      if ((await linkIdentity(other.connection_url)) === wanted) throw linkTaken(`printer ${other.id} already uses ${other.connection_url}`);
    }
  }

  /** Two requests racing for one URL: the UNIQUE index decides, and the loser gets the same 409 as the check above. */
  private async unlessTaken(url: string, write: Promise<void>): Promise<void> {
    try {
      await write;
    } catch (err) {
      if (isUniqueViolation(err, 'printers', 'connection_url')) throw linkTaken(`another printer already uses ${url}`);
      throw err;
    }
  }

  /**
   * The live status as SQL: ids whose session has it now, or whose owner node last reported it (offline: every printer
   * not online, with or without a session).
   */
  private statusCondition(status: ApiPrinterStatus) {
    const live = new Map(this.deps.sessions.list().map((s) => [s.printerId, apiStatus(s.currentStatus)]));
    for (const [id, remoteStatus] of this.deps.remote?.liveStatuses() ?? []) live.set(id, apiStatus(remoteStatus));
    const entries = [...live];
    if (status === 'offline') {
      const online = entries.filter(([, s]) => s !== 'offline').map(([id]) => id);
      return online.length === 0 ? sql<SqlBool>`1 = 1` : sql<SqlBool>`printers.id not in (${sql.join(online)})`;
    }
    const ids = entries.filter(([, s]) => s === status).map(([id]) => id);
    return ids.length === 0 ? sql<SqlBool>`1 = 0` : sql<SqlBool>`printers.id in (${sql.join(ids)})`;
  }

  private followSessionReady(printerId: string): void {
    const session = this.session(printerId);
    if (!session || session.snapshot().ready) return;
    this.track(
      updatePrinter(this.deps.db, printerId, { ready: 0 }).then(() =>
        this.deps.bus.emit('printer.updated', { printer_id: printerId, reason: 'changed: ready' }),
      ),
    );
  }

  /** Background bookkeeping writes: logged on failure, awaited at close so none is cut off by the database closing. */
  private track(p: Promise<unknown>): void {
    const tracked = p.catch((err: Error) => this.deps.logger.error('printer bookkeeping write failed', { error: err }));
    this.pendingWrites.add(tracked);
    void tracked.finally(() => this.pendingWrites.delete(tracked));
  }
}
