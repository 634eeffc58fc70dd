// Builds the farm's services (files, jobs, the job runner, the scheduler loop) from the platform's deps, in one place
// for the server and the tests, and starts and stops them in the right order.
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/event-bus.js';
import type { EventsRuntime } from '../events/events-runtime.js';
import { bridgePrinterEvents } from '../printers/printer-events.js';
import { createFilesService, type FilesService } from '../files/files.service.js';
import { createFilePruner, type FilePruner, type FilePrunerDeps } from '../files/file-pruner.service.js';
import type { ContentStore } from '../files/content-store.js';
import { findOrganization } from '../auth/organization.repository.js';
import { recordExternalJobs } from '../jobs/external-jobs.js';
import { JobRunner, type JobRunnerDeps } from '../jobs/job-runner.js';
import { printableFormats } from '../printers/network-url.js';
import { jobFilesFrom, type JobFiles } from '../jobs/job-files.js';
import { JobsService, type PublishJobEvent } from '../jobs/jobs.service.js';
import { queueEmptyAfterStart } from '../jobs/queue-empty.js';
import { MaterialMeter } from '../materials/material-meter.js';
import { spoolsByPrinter } from '../materials/loaded-spools.js';
import type { Logger } from '../logger.js';
import type { PrintersService } from '../printers/printers.service.js';
import type { SessionRegistry } from '../printers/session-registry.js';
import { SchedulerLoop, type PrinterSchedulingInfo } from '../scheduler/scheduler-loop.js';
import type { LoadedMaterial } from '../scheduler/scheduler-types.js';
import type { PrinterRecord } from '../printers/printer-record.js';
import { TemperatureHistory } from '../printers/temperature-history.js';
import type { Db } from '../storage/db.js';
import type { DurableWriter } from '../storage/durable-writer.js';
import type { StorageStatus } from '../storage/storage-status.js';
import type { HostResolver } from '../files/url-guard.js';
import type { ClusterBus } from '../cluster/cluster-bus.js';
import { schedulerNodeView } from '../nodes/scheduler-node-view.js';
import { START_RETRY_MS } from '../printers/start-refusals.js';
import { printerRefusedDetail } from '../scheduler/waiting-reasons.js';

export interface FarmBase {
  events: EventsRuntime;
  db: Db;
  clock: Clock;
  logger: Logger;
  bus: EventBus;
  dataDir: string;
  sessions: SessionRegistry;
  printers: PrintersService;
  /** Resolves file_url host names (tests answer with addresses that must be refused); the system resolver by default. */
  resolveHost?: HostResolver;
  /** Writes a running print's state, holding it while the disk is full. */
  durable: DurableWriter;
  /** Free space and the database's reserve (uploads ask it first). */
  storage: StorageStatus;
  /** Where G-code content and thumbnails live (see files/content-store-choice.ts). */
  contentStore: ContentStore;
  /** How often the file pruning pass runs (hourly by default; it also runs at start). */
  pruneEveryMs?: number;
  /** This node: its scheduler considers only its printers, and only it settles jobs cut off on them. */
  nodeId: string;
  /** Signals between the nodes: a queued job wakes every node's scheduler. */
  cluster: ClusterBus;
  /** How long after a refused start the printer is offered the job again (START_RETRY_MS by default; tests shorten it). */
  startRetryMs?: number;
  /** The job's end picture, taken before its end is written (the cameras feature); absent: none. */
  endPicture?: JobRunnerDeps['endPicture'];
  /** Removes what else belongs to the jobs of a pruned file (their pictures), in the pruning transaction. */
  onFilePruned?: FilePrunerDeps['onPruned'];
}

export interface Farm {
  files: FilesService;
  /** Removes stored files by the organization's retention and store-size policy (on start, then hourly). */
  filePruner: FilePruner;
  jobFiles: JobFiles;
  jobs: JobsService;
  runner: JobRunner;
  scheduler: SchedulerLoop;
  /** Charges what each job really extruded to the spools it printed from. */
  meter: MaterialMeter;
  /** The last hour of each connected printer's temperatures (sampled from start() until settled()). */
  temperatures: TemperatureHistory;
  /** Fails jobs cut off by the last stop and runs the first scheduling pass; call before the printers connect. */
  start(): Promise<void>;
  /** Stops scheduling: nothing new starts. Call before the printer sessions close. */
  stop(): Promise<void>;
  /** After the sessions closed: waits until the jobs they ended are written. */
  settled(): Promise<void>;
}

export function createFarm(base: FarmBase): Farm {
  // Job events go to the public log in the transaction of the change that caused them (the outbox).
  const publish: PublishJobEvent = async (trx, type, job) => {
    await base.events.record(trx, type, job);
    // The last queued job started: the queue ran dry (queue.empty), in the same transaction, so it is said exactly once.
    if (type === 'job.started') {
      const queue = await queueEmptyAfterStart(trx, job);
      if (queue) await base.events.record(trx, 'queue.empty', queue);
    }
  };
  // One store for uploads and pruning: its exclusive sections keep an upload and a removal of one file apart.
  const store = base.contentStore;
  const files = createFilesService({ ...base, store });
  const filePruner = createFilePruner({
    db: base.db,
    clock: base.clock,
    logger: base.logger,
    store,
    publish: (trx, file) => base.events.record(trx, 'file.pruned', file).then(() => undefined),
    ...(base.onFilePruned ? { onPruned: base.onFilePruned } : {}),
    ...(base.pruneEveryMs !== undefined ? { everyMs: base.pruneEveryMs } : {}),
  });
  const jobFiles = jobFilesFrom(files);
  // The scheduler is built after the jobs service, which wakes it: the late binding keeps construction one-way.
  let scheduler: SchedulerLoop | null = null;
  let runnerRef: JobRunner | null = null;
  // A change the queue's schedulers should see: this node's at once, every node's through the cluster signal.
  const wakeEveryNode = (): void => {
    scheduler?.wake();
    base.cluster.publish('jobs').catch((err: Error) => base.logger.warn('could not signal the other nodes', { error: err }));
  };
  const jobs = new JobsService({
    db: base.db,
    clock: base.clock,
    logger: base.logger,
    sessions: base.sessions,
    publish,
    printerFormats: (id) => base.printers.get(id).then(
      (p) => printableFormats(p.kind),
      () => null,
    ),
    wakeScheduler: wakeEveryNode,
    remoteJob: (printerId) => base.printers.remoteJob(printerId),
    runnerSettled: () => runnerRef?.settled() ?? Promise.resolve(),
  });
  const meter = new MaterialMeter({
    db: base.db,
    durable: base.durable,
    clock: base.clock,
    events: base.events,
    logger: base.logger,
    rates: async (printerId) => {
      const org = await findOrganization(base.db);
      const printer = printerId ? await base.printers.get(printerId).catch(() => null) : null;
      return { hourly_rate: org?.hourly_rate ?? 0, energy_cost_per_kwh: org?.energy_cost_per_kwh ?? 0, power_watts: printer?.power_watts ?? null };
    },
  });
  // The stored ready flag goes through the durable writer: on a full disk it is held (the newest value of a printer
  // replacing an older one still waiting) and written in order once there is room; callers never wait for room.
  const writeReady = (printerId: string, ready: boolean): Promise<void> => {
    const written = base.durable
      .write(`ready flag of printer ${printerId}`, () => base.printers.setReady(printerId, ready), `ready:${printerId}`)
      .catch((err: Error) => base.logger.warn('could not store the printer ready flag', { printer_id: printerId, error: err }))
      .finally(wakeEveryNode);
    return base.durable.untilStoredOrHeld([written]);
  };
  // After a print (ours or one started on the printer) the link keeps its own not-ready flag; the stored one survives a restart.
  const storeReady = (printerId: string): Promise<unknown> => writeReady(printerId, base.sessions.get(printerId)?.snapshot().ready ?? false);
  const runner = new JobRunner({
    meter,
    ...(base.endPicture ? { endPicture: base.endPicture } : {}),
    durable: base.durable,
    jobs,
    sessions: base.sessions,
    bus: base.bus,
    clock: base.clock,
    logger: base.logger,
    filePath: (fileId) => jobFiles.pathOf(fileId),
    slicedOf: (fileId) => jobFiles.slicedOf(fileId),
    keepsPrinting: async (printerId) => ((await base.printers.get(printerId).catch(() => null))?.kind ?? 'serial') !== 'serial',
    ownsPrinter: async (printerId) => (await base.printers.get(printerId).catch(() => null))?.node_id === base.nodeId,
    publishProgress: (job) => base.events.live('job.progress', job),
    onJobEnded: (printerId) => storeReady(printerId),
    refusals: {
      refused: async (printerId, message) => {
        const count = await base.printers.startRefused(printerId, message);
        return { held: count.held, attempts: count.attempts, detail: printerRefusedDetail(count.name, message) };
      },
      requeued: (printerId, held) => {
        // Held: its record changed (dashboards follow printer.updated, which also wakes the scheduler to name the reason).
        if (held) base.bus.emit('printer.updated', { printer_id: printerId, reason: 'held: it refused job starts in a row' });
        else scheduler?.wakeAfter(base.startRetryMs ?? START_RETRY_MS);
        // The job may fit another node's printer: those nodes look at once. This node's own pass waits for the retry
        // above (signed with its id, its own signal does not wake it), or the refusing printer would be offered the job
        // again at once, refuse, signal, and so on.
        base.cluster.publish('jobs', requeuedBy(base.nodeId)).catch((err: Error) => base.logger.warn('could not signal the other nodes', { error: err }));
      },
      accepted: (printerId) => base.printers.startAccepted(printerId),
    },
  });
  runnerRef = runner;
  scheduler = new SchedulerLoop({
    db: base.db,
    clock: base.clock,
    logger: base.logger,
    bus: base.bus,
    sessions: base.sessions,
    runner,
    durable: base.durable,
    printers: async () => schedulingInfos(await base.printers.listOwn(), await spoolsByPrinter(base.db)),
    // Another node's printer as its owner publishes it: the waiting reasons and the forecast are the whole farm's.
    otherPrinters: async () => {
      const others = await base.printers.listOthers();
      if (others.length === 0) return [];
      return schedulingInfos(others, await spoolsByPrinter(base.db)).map((info, i) => {
        const p = others[i]!;
        return { ...info, live: { status: p.connecting ? 'connecting' : p.status, ready: p.ready, bed_temperature: p.temperatures.bed } };
      });
    },
    org: async () => {
      const org = await findOrganization(base.db);
      return { auto_start: org ? org.auto_start === 1 : true, power_budget_watts: org?.power_budget_watts ?? null };
    },
    setPrinterReady: writeReady,
    nodeView: () => schedulerNodeView(base.db, base.nodeId),
    currentRemaining: async (printerId) => {
      const current = (await base.printers.get(printerId)).current_job;
      return current ? (await jobs.get(current)).estimated_remaining : null;
    },
  });
  const loop = scheduler;
  const temperatures = new TemperatureHistory({ sessions: base.sessions, clock: base.clock, bus: base.bus });
  let stopBridge: (() => Promise<void>) | null = null;
  let stopExternal: (() => void) | null = null;
  let stopSignals: (() => void) | null = null;
  return {
    files,
    filePruner,
    jobFiles,
    jobs,
    runner,
    scheduler: loop,
    meter,
    temperatures,
    async start() {
      const failed = await runner.failInterrupted();
      if (failed > 0) base.logger.warn('jobs cut off by the last stop were marked failed (host_restart)', { jobs: failed });
      // Jobs on network printers went on printing there: followed again once their printers answer (in the background).
      runner.adoptInterrupted().catch((err: Error) => base.logger.error('could not follow interrupted network jobs', { error: err }));
      stopBridge = bridgePrinterEvents(base);
      stopExternal = recordExternalJobs({ bus: base.bus, jobs, logger: base.logger, meter, durable: base.durable, onEnded: (printerId) => storeReady(printerId) });
      temperatures.start();
      filePruner.start();
      stopSignals = base.cluster.subscribe('jobs', (payload) => {
        if (payload !== requeuedBy(base.nodeId)) loop.wake();
        runner.stopJobsEndedElsewhere().catch((err: Error) => base.logger.error('could not stop a job ended by another node', { error: err }));
      });
      loop.wake();
    },
    async stop() {
      stopSignals?.();
      await loop.stop();
      await filePruner.stop();
    },
    async settled() {
      runner.stop();
      // Writes still held by a full disk get one last try; what still finds no room is given up (and logged).
      await base.durable.close();
      await runner.settled();
      await stopBridge?.();
      stopExternal?.();
      temperatures.stop();
    },
  };
}

/** The 'jobs' signal of a job put back in the queue after a refused start on `nodeId`'s printer. */
const requeuedBy = (nodeId: string): string => `requeued-by:${nodeId}`;

/** The stored printers as the scheduler reads them (the printers feature's records, reduced). */
function schedulingInfos(printers: readonly PrinterRecord[], spools: Map<string, LoadedMaterial[]>): PrinterSchedulingInfo[] {
  return printers.map((p) => ({
    id: p.id,
    name: p.name,
    start_refusal: p.start_refusal,
    group: p.group,
    tags: p.tags,
    ready: p.ready,
    clear_bed_gcode: p.clear_bed_gcode,
    clear_bed_temperature: p.clear_bed_temperature,
    nozzle_diameter: p.nozzle_diameter,
    heatup_watts: p.heatup_watts,
    material_type: p.material_type,
    material_color: p.material_color,
    spools: spools.get(p.id) ?? [],
    formats: printableFormats(p.kind),
    model: p.model,
  }));
}
