// Builds the real app on a real database (SQLite in memory by default, PostgreSQL in the test:postgres run) for HTTP tests, with a manual clock.
import { openClusterBus } from '../../src/cluster/open-cluster-bus.js';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../src/app/app.js';
import { continueWhenRead } from '../../src/http/expect-continue.js';
import { mintKeyOffline } from '../../src/auth/bootstrap.js';
import { ManualClock } from '../../src/clock.js';
import type { RunEnvironment } from '../../src/config.js';
import type { EventsOptions } from '../../src/events/events-runtime.js';
import type { DeliveryWorkerOptions } from '../../src/webhooks/delivery-worker.js';
import type { NotificationsOptions } from '../../src/notifications/notifications-runtime.js';
import { buildAppDeps, type DepsSettings } from '../../src/app/build-deps.js';
import type { AppDeps } from '../../src/app/app-deps.js';
import { allRoutes, type AppRoute } from '../../src/app/routes-index.js';
import type { HostResolver } from '../../src/files/url-guard.js';
import { silentLogger } from '../../src/logger.js';
import type { PrintersServiceDeps } from '../../src/printers/printers.service.js';
import type { ForwardingOptions } from '../../src/forwarding/forwarding.middleware.js';
import type { RemotePrinterStatesOptions } from '../../src/printers/remote-printer-states.js';
import { loadSecretBox, SecretBox } from '../../src/printers/secret-box.js';
import type { DbHandle } from '../../src/storage/db.js';
import { openPostgres } from '../../src/storage/open-postgres.js';
import { openTestDatabase } from './test-database.js';
import { scopedClusterBus } from './scoped-cluster-bus.js';
import { loadNodeId, type NodeIdentity } from '../../src/nodes/node-identity.js';
import type { ClusterBus } from '../../src/cluster/cluster-bus.js';
import type { NodeTuning } from '../../src/nodes/node-runtime.js';
import { newId } from '../../src/ids.js';
import type { HomeAssistantSettings } from '../../src/homeassistant/homeassistant-runtime.js';

export interface TestApp {
  deps: AppDeps;
  handle: DbHandle;
  clock: ManualClock;
  baseUrl: string;
  /** fetch against the running test server: path like "/v1/auth/test". */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** Sessions of sim:// printers in tests: short boot-noise wait, handshake and reconnect back-off. */
export const FAST_SESSIONS: PrintersServiceDeps['sessionOptions'] = {
  drainQuietMs: 30,
  drainMaxMs: 300,
  handshakeTimeoutMs: 2000,
  reconnect: { initialMs: 50, maxMs: 400 },
};

export async function startTestApp(
  options: {
    file?: string;
    env?: RunEnvironment;
    clock?: ManualClock;
    extraRoutes?: AppRoute[];
    /** Holds the secret key file; without it the key lives in memory only (like the :memory: database). */
    dataDir?: string;
    trustProxy?: boolean;
    events?: EventsOptions;
    webhooks?: DeliveryWorkerOptions;
    notifications?: NotificationsOptions;
    /** Overrides of the printers service's options (discovery roots, command timeout, session tuning, mDNS browsing). */
    printers?: Partial<Pick<PrintersServiceDeps, 'sessionOptions' | 'networkOptions' | 'discovery' | 'commandTimeoutMs' | 'mdns'>>;
    /** Answers file_url host names instead of the system resolver. */
    resolveHost?: HostResolver;
    /** Link worker threads (--workers); the sessions stay on this thread when absent. */
    workers?: number;
    /** Heartbeat and liveness tuning of the node. */
    nodes?: NodeTuning;
    /** Where G-code content lives (the database store on SQLite, a shared directory); the engine's default when absent. */
    fileStorage?: DepsSettings['fileStorage'];
    /** A PostgreSQL database several test apps share (like nodes of one farm); the caller creates and drops it. */
    databaseUrl?: string;
    /** This app as one node of several on one database (its address, when null, is filled in once it listens); a fresh id when absent. */
    node?: NodeIdentity | Omit<NodeIdentity, 'address'>;
    /** Timeouts of actions forwarded to another node. */
    forwarding?: ForwardingOptions;
    /** One bus shared by the apps acting as nodes of one farm; a bus of its own when absent. */
    cluster?: ClusterBus;
    remotePrinters?: RemotePrinterStatesOptions;
    /** How long after a refused job start the printer is offered it again (5 s in the server). */
    startRetryMs?: number;
    /** Publish the farm to Home Assistant through this MQTT broker (as --mqtt does). */
    homeassistant?: HomeAssistantSettings;
    /** Back-off and tick of the Home Assistant bridge for a broker set in the settings. */
    homeassistantTuning?: Pick<HomeAssistantSettings, 'backoff' | 'tickMs'>;
    /** Camera timeouts and limits. */
    cameras?: DepsSettings['cameras'];
    /** Job picture budgets and timeouts. */
    jobSnapshots?: DepsSettings['jobSnapshots'];
  } = {},
): Promise<TestApp> {
  const clock = options.clock ?? new ManualClock();
  // Without a data directory given, a fresh temp one is made and removed on close.
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'printfarm-test-'));
  // On PostgreSQL when the run sets PRINTFARM_TEST_PG_URL (a fresh database, dropped on close), unless a file is given.
  const nowIso = new Date(clock.now()).toISOString();
  const handle = options.databaseUrl
    ? await openPostgres(options.databaseUrl, nowIso, { poolSize: 5 })
    : await openTestDatabase(nowIso, options.file !== undefined ? { file: options.file } : {});
  // Apps sharing one database hear each other's signals, as nodes do; alone, an in-process bus. A bus the caller gives
  // (one LocalClusterBus shared by apps on one SQLite file) is the caller's: this app closes only its own view of it.
  const cluster = options.cluster ? scopedClusterBus(options.cluster) : await openClusterBus(handle, options.databaseUrl ?? null, silentLogger);
  const secrets = options.dataDir ? loadSecretBox(options.dataDir) : SecretBox.ephemeral();
  const { deps, farm } = buildAppDeps({
    handle,
    cluster,
    clock,
    logger: silentLogger,
    env: options.env ?? 'live',
    dataDir,
    trustProxy: options.trustProxy ?? false,
    secrets,
    printers: { sessionOptions: FAST_SESSIONS, ...options.printers },
    ...(options.events ? { events: options.events } : {}),
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    ...(options.notifications ? { notifications: options.notifications } : {}),
    resolveHost: options.resolveHost,
    workers: options.workers ?? 0,
    // The address is known once listening: filled in before the node registers.
    // With a data directory its node id is kept there, as the server does: an app started again on it is the same node.
    node: { id: options.node?.id ?? (options.dataDir ? loadNodeId(options.dataDir) : newId('nod')), name: options.node?.name ?? 'test node', address: (options.node && 'address' in options.node ? options.node.address : null) ?? null },
    ...(options.nodes ? { nodes: options.nodes } : {}),
    ...(options.fileStorage ? { fileStorage: options.fileStorage } : {}),
    ...(options.forwarding ? { forwarding: options.forwarding } : {}),
    ...(options.remotePrinters ? { remotePrinters: options.remotePrinters } : {}),
    ...(options.startRetryMs !== undefined ? { startRetryMs: options.startRetryMs } : {}),
    ...(options.homeassistant ? { homeassistant: options.homeassistant } : {}),
    ...(options.homeassistantTuning ? { homeassistantTuning: options.homeassistantTuning } : {}),
    ...(options.cameras ? { cameras: options.cameras } : {}),
    ...(options.jobSnapshots ? { jobSnapshots: options.jobSnapshots } : {}),
  });
  const { printers } = deps;
  const app = createApp(deps, [...allRoutes(), ...(options.extraRoutes ?? [])]);
  const server = http.createServer(app.callback());
  continueWhenRead(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  // Other nodes forward printer actions here, as to a server's --node-address (known once listening, before the node registers).
  deps.node.address ??= baseUrl;
  await deps.events.start();
  deps.webhooks.start();
  deps.notifications.start();
  await deps.nodes.start();
  await farm.start();
  await deps.homeassistant.start();
  // As at a real start: stored printers (a file database) reconnect by themselves.
  await printers.openAllSessions();
  return {
    deps,
    handle,
    clock,
    baseUrl,
    request: (path, init) => fetch(baseUrl + path, init),
    async close() {
      await deps.webhooks.stop(0);
      await deps.notifications.stop(0);
      await deps.events.stop();
      await deps.homeassistant.stop();
      deps.cameras.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await farm.stop();
      await printers.close();
      await farm.settled();
      deps.jobSnapshots.stop();
      await deps.jobSnapshots.settled();
      deps.webcamSync.stop();
      await deps.webcamSync.settled();
      await deps.nodes.stop();
      // Its listeners go before its database does: nothing heard later can query a closed handle.
      await cluster.close();
      await handle.close();
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Mints a key straight into the test app's database (as `printfarm keys create` does), creating the organization if new. */
export async function mintTestKey(t: TestApp, scopes: string[] = ['admin:*'], name = 'test key'): Promise<string> {
  return (await mintKeyOffline(t.deps, { name, scopes })).key;
}

/** Request headers carrying a key as a Bearer token (plus JSON content type when a body is sent). */
export const bearer = (key: string, json = false): Record<string, string> => ({
  Authorization: `Bearer ${key}`,
  ...(json ? { 'Content-Type': 'application/json' } : {}),
});
