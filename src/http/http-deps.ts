// What the cross-cutting HTTP layer (auth, rate limits, idempotency, health) needs from the program: the composition
// root hands a deps object that has at least these, so http/ imports no feature.
import type { Clock } from '../clock.js';
import type { Db } from '../storage/db.js';
import type { StorageStatus } from '../storage/storage-status.js';
import type { AccessControl } from './middleware/access-control.js';
import type { RequestObserver } from './middleware/request-timing.middleware.js';

export interface HttpDeps {
  /** The database (either engine): idempotency keys and the health check use it. */
  db: Db;
  clock: Clock;
  /** Keys, sessions, scopes and limits for the auth middleware (built by auth/auth-runtime.ts). */
  auth: AccessControl;
  /** Free space and whether writes fail for lack of it: /healthz reports it, the error middleware feeds it. */
  storage: StorageStatus;
  /**
   * This node among the nodes sharing the database: an in-progress idempotency key it holds is taken over by another
   * node only once it is lost. Absent: a fresh id per app (one box).
   */
  node?: { id: string };
  /** Told the method, matched route, status and duration of every request (the metrics feature's histogram); absent: nobody. */
  observeRequest?: RequestObserver;
}
