// Builds the one deps object of a running app (bus, sessions, printers, event log, the farm's services, access
// control) from an open database: the server and the test app call this, so the wiring exists once.
import { createAuthRuntime } from '../auth/auth-runtime.js';
import { CamerasService, type CameraTuning } from '../cameras/cameras.service.js';
import { JobSnapshots, type JobSnapshotBudget } from '../cameras/job-snapshots.service.js';
import { deleteSnapshotsOfFile } from '../cameras/job-snapshots.repository.js';
import { WebcamSync } from '../cameras/webcam-sync.js';
import { systemResolver } from '../files/url-guard.js';
import { SlicerUploads } from '../slicer/slicer-uploads.service.js';
import { PasswordCheckGate } from '../auth/password-check-gate.js';
import type { Clock } from '../clock.js';
import type { RunEnvironment } from '../config.js';
import { EventBus } from '../events/event-bus.js';
import { createEventsRuntime, type EventsOptions, type EventsRuntime } from '../events/events-runtime.js';
import { listNodeRecords } from '../nodes/nodes.service.js';
import { createFarm, type Farm } from './farm.js';
import type { AppDeps } from './app-deps.js';
import type { Logger } from '../logger.js';
import { FarmMetrics } from '../metrics/metrics.service.js';
import { PrintersService, type PrintersServiceDeps } from '../printers/printers.service.js';
import type { SecretBox } from '../printers/secret-box.js';
import type { DeliveryWorkerOptions } from '../webhooks/delivery-worker.js';
import { createWebhooksRuntime } from '../webhooks/webhooks-runtime.js';
import { createNotificationsRuntime, type NotificationsOptions } from '../notifications/notifications-runtime.js';
import { SessionRegistry } from '../printers/session-registry.js';
import { LinkWorkerPool } from '../printers/workers/link-worker-pool.js';
import type { SessionTuning } from '../printers/open-printer-link.js';
import { PreparedGcodeCache } from '../printers/prepared-gcode-cache.js';
import { ExtrusionIndexCache } from '../printers/extrusion-index-cache.js';
import type { DbHandle } from '../storage/db.js';
import { engineSql } from '../storage/engines/engine-sql.js';
import { DurableWriter } from '../storage/durable-writer.js';
import { StorageStatus } from '../storage/storage-status.js';
import { findOrganization } from '../auth/organization.repository.js';
import type { HostResolver } from '../files/url-guard.js';
import { defaultFileStorage, openContentStore, type FileStorage } from '../files/content-store-choice.js';
import { newId } from '../ids.js';
import type { NodeIdentity } from '../nodes/node-identity.js';
import type { ForwardingOptions } from '../forwarding/forwarding.middleware.js';
import { LocalClusterBus, type ClusterBus } from '../cluster/cluster-bus.js';
import { RemotePrinterStates, type RemotePrinterStatesOptions } from '../printers/remote-printer-states.js';
import { NodeRuntime, type NodeTuning } from '../nodes/node-runtime.js';
import { handleNodeLost } from '../nodes/node-lost.service.js';
import { findNode, setPinnedWaitingReason } from '../nodes/nodes.repository.js';
import { VERSION } from '../version.js';
import { homeAssistantFor, type HomeAssistantSettings } from '../homeassistant/homeassistant-runtime.js';
import { HomeAssistantControl } from '../homeassistant/homeassistant-control.js';
import { storedBrokerTarget } from '../homeassistant/broker-settings.js';

export interface DepsSettings {
  handle: DbHandle;
  clock: Clock;
  logger: Logger;
  env: RunEnvironment;
  dataDir: string;
  trustProxy: boolean;
  /** Seals printer credentials; its key file lives in the data directory. */
  secrets: SecretBox;
  /** Session tuning, discovery roots, command timeout (tests shorten them), mDNS browsing (off when absent). */
  printers?: Partial<Pick<PrintersServiceDeps, 'sessionOptions' | 'networkOptions' | 'discovery' | 'commandTimeoutMs' | 'mdns'>>;
  events?: EventsOptions;
  /** Webhook delivery tuning (tests shorten timeouts, the benchmark scales the retry schedule). */
  webhooks?: DeliveryWorkerOptions;
  /** Notification grouping window and send tuning (tests shorten them). */
  notifications?: NotificationsOptions;
  /** Resolves file_url host names; the system resolver when absent. */
  resolveHost?: HostResolver;
  /** How often state writes held by a full disk are tried again (tests shorten it). */
  durableRetryMs?: number;
  /** Worker threads for the serial sessions (--workers); 0 or absent: all on the main thread. */
  workers?: number;
  /**
   * Where G-code content lives: absent, a shared directory when `filesDir` (--files-dir) is given, else the database on
   * PostgreSQL and the data directory on SQLite. Tests select the database store on SQLite with it.
   */
  fileStorage?: FileStorage;
  /** --files-dir / PRINTFARM_FILES_DIR: a directory every node mounts. */
  filesDir?: string;
  /** This appliance among the nodes sharing the database; absent (tests): a fresh id, no address. */
  node?: NodeIdentity;
  /** Timeouts of printer actions forwarded to the owning node; defaults when absent. */
  forwarding?: ForwardingOptions;
  /** Signals between the nodes sharing the database; absent: this process only (a single box, or tests). */
  cluster?: ClusterBus;
  /** Publishing and staleness of printer state between nodes (tests shorten them). */
  remotePrinters?: RemotePrinterStatesOptions;
  /** How long after a refused job start the printer is offered it again (tests shorten it). */
  startRetryMs?: number;
  /** Heartbeat and liveness tuning (tests shorten them). */
  nodes?: NodeTuning;
  /** --mqtt: publish the farm to Home Assistant through this broker; absent: the broker set in the settings, if any. */
  homeassistant?: HomeAssistantSettings;
  /** Reconnect back-off and tick of the Home Assistant bridge, whichever broker it uses (tests shorten them). */
  homeassistantTuning?: Pick<HomeAssistantSettings, 'backoff' | 'tickMs'>;
  /** Camera timeouts and limits (tests shorten them). */
  cameras?: Partial<CameraTuning>;
  /** Size budgets and timeouts of job pictures (tests shrink them). */
  jobSnapshots?: Partial<JobSnapshotBudget>;
}

/** The deps and the farm whose lifecycle (start, stop, settled) the caller drives. */
export function buildAppDeps(s: DepsSettings): { deps: AppDeps; farm: Farm } {
  const { handle, clock, logger } = s;
  const bus = new EventBus();
  const storage = new StorageStatus({ dataDir: s.dataDir, reserveMb: async () => (await findOrganization(handle.db))?.storage_reserve_mb ?? null });
  // State of running prints is written through one queue that holds it in memory while the disk is full.
  const durable = new DurableWriter({ logger, retryMs: s.durableRetryMs, onFull: () => storage.noteFull(), onWritten: () => storage.noteWritten() });
  storage.onRoom(() => durable.nudge());
  const sessions = new SessionRegistry();
  const extrusionIndexes = new ExtrusionIndexCache();
  const preparedFiles = new PreparedGcodeCache();
  const workers = s.workers ? linkWorkerPool(s.workers, bus, logger, s.printers?.sessionOptions) : undefined;
  const node: NodeIdentity = s.node ?? { id: newId('nod'), name: 'test node', address: null };
  const cluster = s.cluster ?? new LocalClusterBus();
  const remote = new RemotePrinterStates({ cluster, sessions, db: handle.db, nodeId: node.id }, s.remotePrinters);
  const printers = new PrintersService({
    db: handle.db,
    bus,
    clock,
    logger,
    sessions,
    secrets: s.secrets,
    extrusionIndexes,
    preparedFiles,
    workers,
    remote,
    nodeId: node.id,
    nodeExists: async (id) => (await findNode(handle.db, id)) !== undefined,
    signalNodes: () => cluster.publish('nodes', node.id),
    ...s.printers,
  });
  const sql = engineSql(handle.engine);
  const events = createEventsRuntime({ db: handle.db, sql, clock, logger, cluster }, s.events);
  // Webhooks subscribe to the event log here: events/ publishes and knows nothing of them.
  const webhooks = createWebhooksRuntime({ db: handle.db, clock, logger, events, cluster, nodeId: node.id, durable }, s.webhooks);
  const notifications = createNotificationsRuntime({ db: handle.db, clock, logger, secrets: s.secrets, events, cluster, nodeId: node.id, durable }, s.notifications);
  const contentStore = openContentStore(s.fileStorage ?? defaultFileStorage(handle.engine, s.filesDir), { db: handle.db, dataDir: s.dataDir, engine: handle.engine });
  const cameras = new CamerasService({ db: handle.db, bus, clock, secrets: s.secrets, resolveHost: s.resolveHost ?? systemResolver, ...(s.cameras ? { tuning: s.cameras } : {}) });
  const jobSnapshots = new JobSnapshots({ db: handle.db, bus, cameras, clock, logger, ...(s.jobSnapshots ? { budget: s.jobSnapshots } : {}) });
  jobSnapshots.start();
  // Moonraker's and OctoPrint's own webcam lists become the printer's cameras.
  const webcamSync = new WebcamSync({ db: handle.db, bus, logger, cameras, nodeId: node.id, readApiKey: (id) => printers.readApiKey(id) });
  webcamSync.start();
  const farm = createFarm({
    endPicture: (jobId, printerId, status) => jobSnapshots.ended(jobId, printerId, status),
    onFilePruned: (trx, fileId) => deleteSnapshotsOfFile(trx, fileId),
    events, db: handle.db, clock, logger, bus, dataDir: s.dataDir, sessions, printers, resolveHost: s.resolveHost, durable, storage, contentStore, nodeId: node.id, cluster, ...(s.startRetryMs !== undefined ? { startRetryMs: s.startRetryMs } : {}) });
  // Another node's printer changing state changes this node's waiting reasons and forecast (the whole farm's).
  remote.onChange(() => farm.scheduler.wake());
  const nodes = nodeRuntime(s, node, cluster, printers, farm, events);
  const metrics = new FarmMetrics({ db: handle.db, clock, sessions, dataDir: s.dataDir, webhookOutcomes: () => webhooks.worker.outcomes, cameraStats: () => cameras.stats() });
  const homeassistant = new HomeAssistantControl({
    flag: s.homeassistant ?? null,
    stored: () => storedBrokerTarget(handle.db, s.secrets),
    ...(s.homeassistantTuning ? { tuning: s.homeassistantTuning } : {}),
    make: (settings) => homeAssistantFor({ bus, db: handle.db, clock, logger, nodeId: node.id, printers, sessions, jobs: farm.jobs }, settings),
    logger,
  });
  const deps: AppDeps = {
    homeassistant,
    node,
    cluster,
    ...(s.forwarding ? { forwarding: s.forwarding } : {}),
    nodes,
    db: handle.db,
    sql,
    clock,
    env: s.env,
    bus,
    logger,
    dataDir: s.dataDir,
    trustProxy: s.trustProxy,
    sessions,
    printers,
    events,
    webhooks,
    notifications,
    files: farm.files,
    filePruner: farm.filePruner,
    jobFiles: farm.jobFiles,
    jobs: farm.jobs,
    slicerUploads: new SlicerUploads({ db: handle.db, files: farm.files, jobs: farm.jobs }),
    scheduler: farm.scheduler,
    temperatures: farm.temperatures,
    storage,
    auth: createAuthRuntime({ db: handle.db, clock, env: s.env, logger, secrets: s.secrets }),
    secrets: s.secrets,
    passwordChecks: new PasswordCheckGate(),
    metrics,
    observeRequest: metrics.observeRequest,
    cameras,
    jobSnapshots,
    webcamSync,
  };
  return { deps, farm };
}

/** This node's registration, heartbeat and watch over the others, wired to what a lost node means for the farm. */
function nodeRuntime(s: DepsSettings, node: NodeIdentity, cluster: ClusterBus, printers: PrintersService, farm: Farm, events: EventsRuntime): NodeRuntime {
  const { db } = s.handle;
  return new NodeRuntime({
    db,
    clock: s.clock,
    logger: s.logger,
    node,
    version: VERSION,
    cluster,
    ...s.nodes,
    onNodeLost: async (lostId) => {
      await handleNodeLost(
        {
          db,
          logger: s.logger,
          selfId: node.id,
          failJob: (job, error) => farm.runner.failCutOff(job, error),
          takeOver: async (printerId, job) => {
            await printers.openAllSessions();
            if (job) void farm.runner.followTakenOver([job]);
          },
        },
        lostId,
      );
      // Said once, by the node that marked it lost: people are told (notifications) and programs too (webhooks).
      const lost = (await listNodeRecords({ db, selfId: node.id, printers })).find((n) => n.id === lostId);
      if (lost) await events.recordNow('node.lost', lost);
      // Jobs that waited on the lost node's network printers may start here now.
      await cluster.publish('jobs');
    },
    onSelfBack: async () => {
      await setPinnedWaitingReason(db, node.id, null);
      await printers.openAllSessions();
      farm.scheduler.forgetReasons();
      farm.scheduler.wake();
    },
    onNodesChanged: async () => {
      await printers.openAllSessions();
      await farm.runner.stopJobsEndedElsewhere();
      farm.scheduler.wake();
    },
  });
}

/** The pool of link workers; session tuning crosses to the threads as data, so a function in it is a wiring mistake. */
function linkWorkerPool(size: number, bus: EventBus, logger: Logger, tuning: SessionTuning = {}): LinkWorkerPool {
  const { createTransport, clock, coolOnPause, ...plain } = tuning;
  if (createTransport || clock || coolOnPause) throw new Error('session tuning with functions (transport, clock) runs only with --workers 0');
  return new LinkWorkerPool({ size, bus, logger, sessionOptions: plain });
}
