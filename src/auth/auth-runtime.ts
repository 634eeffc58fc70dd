// The in-memory state of authentication for one app instance (last-used coalescing, rate windows), found by its deps.
import type { AppDeps } from '../http/app-deps.js';
import { FixedWindowCounter } from './fixed-window.js';
import { LastUsedTracker } from './last-used.js';

export const KEY_WINDOW_MS = 60 * 60 * 1000;
/** Failed authentications one client address may make per window before it is refused outright. */
export const FAILED_AUTH_LIMIT = 20;
export const FAILED_AUTH_WINDOW_MS = 15 * 60 * 1000;

export interface AuthRuntime {
  lastUsed: LastUsedTracker;
  /** Requests per API key per clock hour. */
  keyWindows: FixedWindowCounter;
  /** Failed authentications per client address. */
  failedAuth: FixedWindowCounter;
}

// Keyed by the deps object so the app, the services and the serve command's shutdown share one state without a global.
const runtimes = new WeakMap<AppDeps, AuthRuntime>();

export function authRuntimeFor(deps: AppDeps): AuthRuntime {
  let rt = runtimes.get(deps);
  if (!rt) {
    rt = {
      lastUsed: new LastUsedTracker(deps.db, deps.logger),
      keyWindows: new FixedWindowCounter(KEY_WINDOW_MS),
      failedAuth: new FixedWindowCounter(FAILED_AUTH_WINDOW_MS),
    };
    runtimes.set(deps, rt);
  }
  return rt;
}

/** Call on shutdown before closing the database: writes the coalesced last_used_at values. */
export async function flushAuthState(deps: AppDeps): Promise<void> {
  await runtimes.get(deps)?.lastUsed.flush();
}
