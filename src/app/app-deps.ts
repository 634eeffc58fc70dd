// The one deps object of a running program, built by app/build-deps.ts: everything the HTTP layer and each feature's
// routes need (the compiler checks it against each feature's declared route deps in routes-index.ts).
import type { CamerasService } from '../cameras/cameras.service.js';
import type { JobSnapshots } from '../cameras/job-snapshots.service.js';
import type { WebcamSync } from '../cameras/webcam-sync.js';
import type { PasswordCheckGate } from '../auth/password-check-gate.js';
import type { SecretSealer } from '../auth/api-key-digest.js';
import type { SlicerUploads } from '../slicer/slicer-uploads.service.js';
import type { Clock } from '../clock.js';
import type { RunEnvironment } from '../config.js';
import type { EventBus } from '../events/event-bus.js';
import type { EventsRuntime } from '../events/events-runtime.js';
import type { FilePruner } from '../files/file-pruner.service.js';
import type { FilesService } from '../files/files.service.js';
import type { JobFiles } from '../jobs/job-files.js';
import type { JobsService } from '../jobs/jobs.service.js';
import type { Logger } from '../logger.js';
import type { FarmMetrics } from '../metrics/metrics.service.js';
import type { PrintersService } from '../printers/printers.service.js';
import type { SessionRegistry } from '../printers/session-registry.js';
import type { TemperatureHistory } from '../printers/temperature-history.js';
import type { SchedulerLoop } from '../scheduler/scheduler-loop.js';
import type { WebhooksRuntime } from '../webhooks/webhooks-runtime.js';
import type { NotificationsRuntime } from '../notifications/notifications-runtime.js';
import type { Db } from '../storage/db.js';
import type { EngineSql } from '../storage/engines/engine-sql.js';
import type { HttpDeps } from '../http/http-deps.js';
import type { NodeIdentity } from '../nodes/node-identity.js';
import type { AccessControl } from '../http/middleware/access-control.js';
import type { ForwardingOptions } from '../forwarding/forwarding.middleware.js';
import type { ClusterBus } from '../cluster/cluster-bus.js';
import type { NodeRuntime } from '../nodes/node-runtime.js';
import type { HomeAssistantControl } from '../homeassistant/homeassistant-control.js';

export interface AppDeps extends HttpDeps {
  /** The farm in Home Assistant over MQTT (--mqtt, or the broker in the settings): started after the farm, stopped before it. */
  homeassistant: HomeAssistantControl;
  /** This appliance among the nodes sharing the database (src/nodes/node-identity.ts). */
  node: NodeIdentity;
  /** Timeouts of requests forwarded to the node owning a printer (tests shorten them). */
  forwarding?: ForwardingOptions;
  /** Signals between the nodes sharing the database ('jobs', 'events', 'deliveries', 'nodes', 'printers'; a local bus on a single box; the caller that built it closes it). */
  cluster: ClusterBus;
  /** This node's registration, heartbeat and liveness watch: started before the farm, stopped after it. */
  nodes: NodeRuntime;
  db: Db;
  /** The statements that differ between SQLite and PostgreSQL (storage/engines/engine-sql.ts). */
  sql: EngineSql;
  clock: Clock;
  /** The environment this server runs in: it mints and accepts only keys of it. */
  env: RunEnvironment;
  /** The node's secret key: seals the Digest secret of keys that may upload from a slicer. */
  secrets: SecretSealer;
  bus: EventBus;
  /** The event outbox and live stream (src/events/events-runtime.ts). */
  events: EventsRuntime;
  /** The webhook outbox subscriber and delivery worker (src/webhooks/webhooks-runtime.ts). */
  webhooks: WebhooksRuntime;
  /** Messages to people: the notification outbox subscriber and its worker (src/notifications/notifications-runtime.ts). */
  notifications: NotificationsRuntime;
  logger: Logger;
  /** The data directory: stored G-code files live under <dataDir>/files. */
  dataDir: string;
  /** PRINTFARM_TRUST_PROXY=1: behind a reverse proxy, the client address is the one the proxy puts in X-Forwarded-For. */
  trustProxy?: boolean;
  /** The live printer sessions, one per stored printer. */
  sessions: SessionRegistry;
  printers: PrintersService;
  files: FilesService;
  /** The file pruning pass (files/file-pruner.service.ts): started and stopped with the farm. */
  filePruner: FilePruner;
  jobFiles: JobFiles;
  /** Uploads from slicers through the emulated host APIs (src/slicer). */
  slicerUploads: SlicerUploads;
  jobs: JobsService;
  scheduler: SchedulerLoop;
  /** The last hour of each connected printer's temperatures, in memory (GET /v1/printers/:id/temperatures). */
  temperatures: TemperatureHistory;
  /** Keys, sessions, scopes and limits for the auth middleware; built once with the deps (auth/auth-runtime.ts). */
  auth: AccessControl;
  /** Bounds the password checks of sign-ins running at once (auth/password-check-gate.ts). */
  passwordChecks: PasswordCheckGate;
  /** The Prometheus registry of this app (GET /metrics); its observeRequest is the HTTP layer's timing hook. */
  metrics: FarmMetrics;
  /** Printers' cameras: records, one upstream feed per camera, pictures (src/cameras). */
  cameras: CamerasService;
  /** Pictures of every job at start, progress steps and end (src/cameras/job-snapshots.service.ts). */
  jobSnapshots: JobSnapshots;
  /** Reads Moonraker's and OctoPrint's webcam lists into the printers' cameras (src/cameras/webcam-sync.ts). */
  webcamSync: WebcamSync;
}
