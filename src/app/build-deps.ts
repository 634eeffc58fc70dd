// Builds the one deps object of a running app (bus, sessions, printers, event log, the farm's services, access
// control) from an open database: the server and the test app call this, so the wiring exists once.
import { createAuthRuntime } from '../auth/auth-runtime.js';
import { PasswordCheckGate } from '../auth/password-check-gate.js';
import type { Clock } from '../clock.js';
import type { RunEnvironment } from '../config.js';
import { EventBus } from '../events/event-bus.js';
import { createEventsRuntime, type EventsOptions } from '../events/events-runtime.js';
import { createFarm, type Farm } from './farm.js';
import type { AppDeps } from './app-deps.js';
import type { Logger } from '../logger.js';
import { PrintersService, type PrintersServiceDeps } from '../printers/printers.service.js';
import type { SecretBox } from '../printers/secret-box.js';
import type { DeliveryWorkerOptions } from '../webhooks/delivery-worker.js';
import { createWebhooksRuntime } from '../webhooks/webhooks-runtime.js';
import { SessionRegistry } from '../printers/session-registry.js';
import { PreparedGcodeCache } from '../printers/prepared-gcode-cache.js';
import { ExtrusionIndexCache } from '../printers/extrusion-index-cache.js';
import type { DbHandle } from '../storage/db.js';
import type { HostResolver } from '../files/url-guard.js';

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
  /** Resolves file_url host names; the system resolver when absent. */
  resolveHost?: HostResolver;
}

/** The deps and the farm whose lifecycle (start, stop, settled) the caller drives. */
export function buildAppDeps(s: DepsSettings): { deps: AppDeps; farm: Farm } {
  const { handle, clock, logger } = s;
  const bus = new EventBus();
  const sessions = new SessionRegistry();
  const extrusionIndexes = new ExtrusionIndexCache();
  const preparedFiles = new PreparedGcodeCache();
  const printers = new PrintersService({ db: handle.db, bus, clock, logger, sessions, secrets: s.secrets, extrusionIndexes, preparedFiles, ...s.printers });
  const events = createEventsRuntime({ db: handle.db, sqlite: handle.sqlite, clock, logger }, s.events);
  // Webhooks subscribe to the event log here: events/ publishes and knows nothing of them.
  const webhooks = createWebhooksRuntime({ db: handle.db, clock, logger, events }, s.webhooks);
  const farm = createFarm({ events, db: handle.db, clock, logger, bus, dataDir: s.dataDir, sessions, printers, resolveHost: s.resolveHost });
  const deps: AppDeps = {
    db: handle.db,
    sqlite: handle.sqlite,
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
    files: farm.files,
    jobFiles: farm.jobFiles,
    jobs: farm.jobs,
    scheduler: farm.scheduler,
    temperatures: farm.temperatures,
    auth: createAuthRuntime({ db: handle.db, clock, env: s.env, logger }),
    passwordChecks: new PasswordCheckGate(),
  };
  return { deps, farm };
}
