// Wires one running server by hand (data dir, database, first admin, app, node:http) and stops it gracefully; used by `serve` and tests.
import { openClusterBus } from './cluster/open-cluster-bus.js';
import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { continueWhenRead } from './http/expect-continue.js';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { createApp } from './app/app.js';
import { buildAppDeps } from './app/build-deps.js';
import { ensureInitialAdmin, INITIAL_ADMIN_KEY_FILE } from './auth/bootstrap.js';
import { systemClock, type Clock } from './clock.js';
import type { ServerConfig } from './config.js';
import type { AppDeps } from './app/app-deps.js';
import type { EventsOptions } from './events/events-runtime.js';
import type { DeliveryWorkerOptions } from './webhooks/delivery-worker.js';
import type { NotificationsOptions } from './notifications/notifications-runtime.js';
import type { HomeAssistantSettings } from './homeassistant/homeassistant-runtime.js';
import { createLogger, type Logger } from './logger.js';
import { DataDirInUseError, lockDataDir, type DataDirLock } from './storage/data-dir-lock.js';
import { loadNodeSecretBox, SECRET_KEY_ENV } from './printers/secret-box.js';
import { claimDatabaseIdentity, SecretKeyMismatchError, type IdentityClaim } from './cluster/database-identity.js';
import { NetworkDiscovery } from './printers/network-discovery.js';
import { createMdnsBrowser, type MdnsBrowserOptions } from './transport/mdns-browser.js';
import { announceOverMdns, type MdnsAnnouncer } from './transport/mdns-announcer.js';
import { selfAnnouncements } from './app/self-announcement.js';
import { VERSION } from './version.js';
import { DATABASE_FILE, type DbHandle } from './storage/db.js';
import { DataDirDatabaseError, openDataDirDatabase } from './app/open-data-dir.js';
import { createNightlyBackup } from './app/nightly-backup-wiring.js';
import { createStorageWatch } from './storage/storage-watch.js';
import { MigrationFailedError, SchemaTooNewError } from './storage/migrate.js';
import { openPostgres, redactPostgresUrl } from './storage/open-postgres.js';
import { defaultNodeAddress, defaultNodeName, loadNodeId, type NodeIdentity } from './nodes/node-identity.js';

/**
 * How long a shutdown waits for requests in flight before it cuts the remaining connections. Kept well under the
 * 5 s a stop may take in total (serve's STOP_DEADLINE_MS), so the bookkeeping and the database close still fit.
 */
export const DEFAULT_SHUTDOWN_GRACE_MS = 3_000;

/**
 * What startServer needs of the configuration; the log level is the logger's business. trustProxy and mdns default
 * to off (`serve` sets both from its flags): a server started by a test never sends multicast unless asked. workers
 * defaults to 0 (sessions on the main thread); `serve` passes --workers.
 */
export type ServerSettings = Pick<ServerConfig, 'host' | 'port' | 'dataDir' | 'env'> &
  Partial<Pick<ServerConfig, 'trustProxy' | 'mdns' | 'workers' | 'databaseUrl' | 'filesDir' | 'nodeName' | 'nodeAddress' | 'mqtt' | 'mqttCa'>>;

export interface StartServerOptions {
  logger?: Logger;
  clock?: Clock;
  shutdownGraceMs?: number;
  /** Live stream tuning (browser tests shorten the heartbeat); the defaults otherwise. */
  events?: EventsOptions;
  /** Webhook delivery tuning; the defaults otherwise. */
  webhooks?: DeliveryWorkerOptions;
  /** Notification grouping and send tuning; the defaults otherwise. */
  notifications?: NotificationsOptions;
  /** Home Assistant publishing tuning (tests shorten the reconnect back-off); the defaults otherwise. */
  homeassistant?: Pick<HomeAssistantSettings, 'backoff' | 'tickMs'>;
  /** The mDNS socket for discovery and the announcement (tests: the loopback interface, a private port, no probing). */
  mdnsSocket?: MdnsBrowserOptions & { probe?: boolean };
}

export interface RunningServer {
  /** An address this machine can reach the server on (a wildcard bind is reported as loopback). */
  url: string;
  /** The address as bound, e.g. http://0.0.0.0:8080, for the start line. */
  boundUrl: string;
  config: ServerSettings;
  deps: AppDeps;
  databaseFile: string;
  /** The admin key created by this start (first start on an empty database), or null. */
  initialAdminKey: string | null;
  initialAdminKeyFile: string;
  /** Requests currently being answered. */
  inFlight(): number;
  /** Stops accepting, lets requests in flight finish (bounded), closes the database. Safe to call twice. */
  close(): Promise<void>;
}

/** A start that cannot go on for a reason the operator can fix; its message is one line. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

function listenError(err: NodeJS.ErrnoException, host: string, port: number): StartupError {
  const where = `${host}:${port}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return new StartupError(`cannot listen on ${where}: the port is already in use (another printfarm running?); choose another with --port`);
    case 'EACCES':
      return new StartupError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose another with --port`);
    case 'EADDRNOTAVAIL':
      return new StartupError(`cannot listen on ${where}: this machine has no such address; check --host`);
    default:
      return new StartupError(`cannot listen on ${where}: ${err.message}`);
  }
}

function openDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (err) {
    throw new StartupError(`cannot create the data directory ${dataDir}: ${(err as Error).message}`);
  }
}

function lockDir(dataDir: string): DataDirLock {
  try {
    return lockDataDir(dataDir);
  } catch (err) {
    if (err instanceof DataDirInUseError) throw new StartupError(err.message);
    throw new StartupError(`cannot lock the data directory ${dataDir}: ${(err as Error).message}`);
  }
}

async function openDb(dataDir: string, databaseUrl: string | null, clock: Clock, logger: Logger, uncleanStop: boolean): Promise<DbHandle> {
  if (databaseUrl !== null) return openSharedDb(databaseUrl, clock, logger);
  try {
    return await openDataDirDatabase({ dataDir, nowMs: clock.now(), logger, uncleanStop });
  } catch (err) {
    const file = path.join(dataDir, DATABASE_FILE);
    if (err instanceof SchemaTooNewError) throw new StartupError(`refusing to open ${file}: ${err.message}`);
    if (err instanceof DataDirDatabaseError) throw new StartupError(`refusing to start: ${err.message}`);
    throw new StartupError(`cannot open the database ${file}: ${(err as Error).message}`);
  }
}

/** PostgreSQL: no file to check or copy (quick_check, backups before migrating are SQLite's); pg_dump backs it up. */
async function openSharedDb(url: string, clock: Clock, logger: Logger): Promise<DbHandle> {
  const where = redactPostgresUrl(url);
  try {
    const handle = await openPostgres(url, new Date(clock.now()).toISOString());
    if (handle.migrated.length > 0) logger.info('migrated the PostgreSQL database', { database: where, versions: handle.migrated });
    return handle;
  } catch (err) {
    if (err instanceof SchemaTooNewError) throw new StartupError(`refusing to open ${where}: ${err.message}`);
    if (err instanceof MigrationFailedError) throw new StartupError(`refusing to start: ${err.message}; back up with pg_dump before upgrading`);
    throw new StartupError(`cannot open the PostgreSQL database ${where}: ${(err as Error).message}`);
  }
}

/** The --mqtt-ca file read at start: a missing or unreadable file stops the start with its name. */
function mqttCa(file: string | undefined): { ca?: Buffer } {
  if (file === undefined) return {};
  try {
    return { ca: readFileSync(file) };
  } catch (err) {
    throw new StartupError(`cannot read the --mqtt-ca file ${file}: ${(err as Error).message}`);
  }
}

const reachableHost = (host: string): string => (host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host);
const urlHost = (host: string): string => (host.includes(':') ? `[${host}]` : host);

export async function startServer(config: ServerSettings, options: StartServerOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger();
  const clock = options.clock ?? systemClock;
  const graceMs = options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;

  // Before anything is opened: a CA file that cannot be read stops the start with nothing to undo.
  const mqttTls = mqttCa(config.mqttCa);
  openDataDir(config.dataDir);
  // Before the database is opened: a second server must not even migrate the file the first one is using.
  const lock = lockDir(config.dataDir);
  const databaseFile = path.join(config.dataDir, DATABASE_FILE);
  let handle: DbHandle;
  try {
    handle = await openDb(config.dataDir, config.databaseUrl ?? null, clock, logger, lock.uncleanStop);
  } catch (err) {
    lock.release({ keepUncleanMark: lock.uncleanStop });
    throw err;
  }
  const cluster = await openClusterBus(handle, config.databaseUrl ?? null, logger);
  let built: ReturnType<typeof buildAppDeps>;
  // The node's id is kept in the data directory, so a restarted node is the same node. The address defaults to the
  // bound port, known once listening (--port 0): filled in before the node registers.
  const node: NodeIdentity = { id: '', name: config.nodeName ?? defaultNodeName(), address: config.nodeAddress ?? null };
  let secretKeyCheck: string;
  try {
    node.id = loadNodeId(config.dataDir);
    const secrets = loadNodeSecretBox(config.dataDir);
    secretKeyCheck = secrets.identityCheck();
    built = buildAppDeps({
      node,
      handle,
      cluster,
      clock,
      logger,
      env: config.env,
      dataDir: config.dataDir,
      trustProxy: config.trustProxy ?? false,
      secrets,
      workers: config.workers ?? 0,
      ...(config.filesDir ? { filesDir: config.filesDir } : {}),
      ...(config.mdns ? { printers: { mdns: new NetworkDiscovery({ browser: createMdnsBrowser(options.mdnsSocket), clock }) } } : {}),
      ...(options.events ? { events: options.events } : {}),
      ...(options.webhooks ? { webhooks: options.webhooks } : {}),
      ...(options.notifications ? { notifications: options.notifications } : {}),
      ...(config.mqtt ? { homeassistant: { target: config.mqtt, ...mqttTls, ...options.homeassistant } } : {}),
    });
  } catch (err) {
    await cluster.close();
    await handle.close();
    lock.release();
    const fromEnv = (process.env[SECRET_KEY_ENV] ?? '') !== '';
    throw new StartupError(fromEnv ? `refusing to start: ${(err as Error).message}` : `cannot read the node id or the secret key in ${config.dataDir}: ${(err as Error).message}`);
  }
  const { deps, farm } = built;
  let identity: IdentityClaim;
  try {
    // Before anything is written or bound: a node with another key must not seal a single secret into the shared database.
    identity = await claimDatabaseIdentity(deps.db, { secretKeyCheck, nodeId: node.id, nowIso: new Date(clock.now()).toISOString() });
  } catch (err) {
    await handle.close();
    lock.release();
    if (err instanceof SecretKeyMismatchError) throw new StartupError(`refusing to start: ${err.message}`);
    throw err;
  }
  const { events, printers } = deps;

  const server = http.createServer(createApp(deps).callback());
  continueWhenRead(server);
  // Requests being answered, so a shutdown can tell their connections to close once the response is out.
  const active = new Set<http.ServerResponse>();
  let closing = false;
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    active.add(res);
    if (closing) res.shouldKeepAlive = false;
    res.once('close', () => {
      active.delete(res);
      if (closing) server.closeIdleConnections();
    });
  });

  let initialAdminKey: string | null;
  try {
    // Bind before the first admin is made, so a start that cannot listen leaves an empty database and no key file.
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((err: NodeJS.ErrnoException) => {
      throw listenError(err, config.host, config.port);
    });
    // Until this resolves no key exists, so a request in the meantime can only get 401.
    initialAdminKey = await ensureInitialAdmin(deps, config.dataDir, { initializes: identity.first || identity.createdBy === node.id });
    // Deliveries left pending by the last run (or interrupted by its shutdown) go out from here.
    await events.start();
    deps.webhooks.start();
    deps.notifications.start();
  } catch (err) {
    if (server.listening) await new Promise((resolve) => server.close(resolve));
    await cluster.close();
    await handle.close();
    lock.release();
    throw err;
  }

  node.address ??= defaultNodeAddress((server.address() as AddressInfo).port);
  // Registered before the farm starts: printers no node owns yet become this node's, and only its own are opened.
  await deps.nodes.start();
  // Jobs cut off by the last stop fail (host_restart) before any printer can report; queued ones stay queued.
  await farm.start();
  // Connects in the background: a broker that is down delays neither the start nor anything after it.
  await deps.homeassistant.start();
  // Checks at once (a night missed while stopped is caught up), then every minute.
  // On PostgreSQL every node checks, and the one that claims the night in the database takes it (once per farm).
  const nightly = createNightlyBackup({ handle, dataDir: config.dataDir, clock, logger, nodeId: node.id, ...(config.filesDir ? { filesDir: config.filesDir } : {}) });
  nightly.start();
  // This node's disk: storage.low when it runs short of room (each node watches its own data directory).
  const storageWatch = createStorageWatch({
    state: () => deps.storage.state(),
    space: () => deps.storage.space(),
    record: (object) => deps.events.recordNow('storage.low', object),
    nodeId: node.id,
    logger,
  });
  storageWatch.start();
  // Printers known before the stop reconnect by themselves; the start does not wait for them.
  printers.openAllSessions().catch((err: Error) => logger.error('could not open the printer sessions', { error: err }));

  const address = server.address() as AddressInfo;
  const boundUrl = `http://${urlHost(address.address)}:${address.port}`;
  const url = `http://${urlHost(reachableHost(address.address))}:${address.port}`;
  // The same switch as discovery (--no-mdns): a machine where multicast is unwanted sends none at all.
  let announcer: MdnsAnnouncer | null = null;
  if (config.mdns) {
    // It logs for itself what it finds later: a socket that fails, a name taken on the network.
    announcer = announceOverMdns(selfAnnouncements(address.port, hostname(), VERSION), { ...options.mdnsSocket, logger });
  }

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      // Live streams end first (they would hold the server open); in-flight deliveries get a moment, then resume after restart.
      const eventsStopped = Promise.all([deps.webhooks.stop(), deps.notifications.stop()]).then(() => events.stop());
      // Camera viewers' streams end and the cameras' upstream connections close.
      deps.cameras.close();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive sockets without a request go now; busy ones close after their response (no keep-alive any more).
      for (const res of active) if (!res.headersSent) res.shouldKeepAlive = false;
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        stopped.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), graceMs);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) {
        logger.warn('shutdown: requests still running after the grace period, closing their connections', {
          requests: active.size,
          grace_ms: graceMs,
        });
        server.closeAllConnections();
        await stopped;
      }
      await eventsStopped;
      await nightly.stop();
      storageWatch.stop();
      await announcer?.stop();
      await deps.homeassistant.stop();
      await farm.stop();
      await printers.close();
      await farm.settled();
      deps.jobSnapshots.stop();
      await deps.jobSnapshots.settled();
      deps.webcamSync.stop();
      await deps.webcamSync.settled();
      await deps.nodes.stop();
      try {
        await deps.auth.flush();
      } catch (err) {
        logger.error('shutdown: could not write the last API key uses', { error: err as Error });
      }
      await cluster.close();
      await handle.close();
      lock.release();
    })();
    return closed;
  };

  return {
    url,
    boundUrl,
    config,
    deps,
    databaseFile,
    initialAdminKey,
    initialAdminKeyFile: path.join(config.dataDir, INITIAL_ADMIN_KEY_FILE),
    inFlight: () => active.size,
    close,
  };
}
