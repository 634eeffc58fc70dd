// What the cross-cutting HTTP layer (auth, rate limits, idempotency, health) needs from the program: the composition
// root hands a deps object that has at least these, so http/ imports no feature.
import type BetterSqlite3 from 'better-sqlite3';
import type { Clock } from '../clock.js';
import type { StorageStatus } from '../storage/storage-status.js';
import type { AccessControl } from './middleware/access-control.js';
import type { RequestObserver } from './middleware/request-timing.middleware.js';

export interface HttpDeps {
  /** The raw connection: idempotency keys and the health check use it directly. */
  sqlite: BetterSqlite3.Database;
  clock: Clock;
  /** Keys, sessions, scopes and limits for the auth middleware (built by auth/auth-runtime.ts). */
  auth: AccessControl;
  /** Free space and whether writes fail for lack of it: /healthz reports it, the error middleware feeds it. */
  storage: StorageStatus;
  /** Told the method, matched route, status and duration of every request (the metrics feature's histogram); absent: nobody. */
  observeRequest?: RequestObserver;
}
