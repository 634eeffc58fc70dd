// Builds the real app on a real SQLite database (in memory by default) for HTTP tests, with a manual clock.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.js';
import { createAuthRuntime } from '../../src/auth/auth-runtime.js';
import { mintKeyOffline } from '../../src/auth/bootstrap.js';
import { ManualClock } from '../../src/clock.js';
import type { RunEnvironment } from '../../src/config.js';
import { EventBus } from '../../src/events/event-bus.js';
import type { AppDeps } from '../../src/http/app-deps.js';
import type { RouteDef } from '../../src/http/route.js';
import { allRoutes } from '../../src/http/routes-index.js';
import { silentLogger } from '../../src/logger.js';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';

export interface TestApp {
  deps: AppDeps;
  handle: DbHandle;
  clock: ManualClock;
  baseUrl: string;
  /** fetch against the running test server: path like "/v1/auth/test". */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function startTestApp(
  options: { file?: string; env?: RunEnvironment; clock?: ManualClock; extraRoutes?: RouteDef<any, any>[] } = {},
): Promise<TestApp> {
  const clock = options.clock ?? new ManualClock();
  const handle = openDatabase(options.file ?? ':memory:', new Date(clock.now()).toISOString());
  const deps: AppDeps = {
    db: handle.db,
    sqlite: handle.sqlite,
    clock,
    env: options.env ?? 'live',
    bus: new EventBus(),
    logger: silentLogger,
    auth: createAuthRuntime({ db: handle.db, clock, env: options.env ?? 'live', logger: silentLogger }),
  };
  const app = createApp(deps, [...allRoutes(), ...(options.extraRoutes ?? [])]);
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    deps,
    handle,
    clock,
    baseUrl,
    request: (path, init) => fetch(baseUrl + path, init),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await handle.close();
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
