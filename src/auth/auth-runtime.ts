// The auth feature's side of access control: verifies keys and session cookies, matches scopes, gives each caller its hourly limit, tracks last use.
import type { Clock } from '../clock.js';
import type { RunEnvironment } from '../config.js';
import type { AccessControl } from '../http/middleware/access-control.js';
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import type { SecretSealer } from './api-key-digest.js';
import { apiKeyStillValid, verifyApiKey, verifyDigestKey } from './api-keys.service.js';
import { LastUsedTracker } from './last-used.js';
import { findOrganization } from './organization.repository.js';
import { ADMIN_HOURLY_FLOOR, keyHourlyLimit } from './organization.service.js';
import { ADMIN_SCOPE, covers } from './scopes.js';
import { SessionActivity } from './session-activity.js';
import { sessionStillValid, verifySessionToken } from './sessions.service.js';

export interface AuthRuntimeDeps {
  db: Db;
  clock: Clock;
  env: RunEnvironment;
  logger: Logger;
  /** Opens the Digest secrets of slicer keys; without it Digest is refused. */
  secrets?: SecretSealer;
}

/** Built once where the app's deps are built (server.ts, the test app) and passed in as `deps.auth`. */
export function createAuthRuntime(deps: AuthRuntimeDeps): AccessControl {
  const lastUsed = new LastUsedTracker(deps.db, deps.logger);
  const activity = new SessionActivity(deps.db, deps.logger);
  return {
    verifyKey: (presented) => verifyApiKey(deps, presented),
    verifyDigest: (username, matches) => verifyDigestKey(deps, username, matches),
    verifySession: (token) => verifySessionToken(deps, token, (id) => activity.heldBackMs(id)),
    async stillValid(caller) {
      if (caller.sessionId !== null) return sessionStillValid(deps, caller.sessionId, activity.heldBackMs(caller.sessionId));
      return caller.keyId !== null && apiKeyStillValid(deps.db, caller.keyId, deps.clock.now());
    },
    allows: (caller, scope) => covers(caller.scopes, scope),
    async hourlyLimit(caller, request) {
      const limit = keyHourlyLimit(await findOrganization(deps.db), caller.scopes.includes(ADMIN_SCOPE), request);
      // A person in the dashboard (a session) gets the admin floor: a page load and the refetches live events cause
      // would exhaust a free plan's 100 an hour, which is meant for scripts. Sessions count per user or per key.
      return caller.sessionId !== null ? { ...limit, limit: Math.max(limit.limit, ADMIN_HOURLY_FLOOR) } : limit;
    },
    rateLimitBucket: (caller) => caller.keyId ?? (caller.userId !== null ? `user:${caller.userId}` : caller.callerId),
    recordUse: (keyId, nowMs) => lastUsed.touch(keyId, nowMs),
    recordSessionUse: (sessionId, nowMs) => activity.touch(sessionId, nowMs),
    lastUsedAt: (keyId) => lastUsed.latestIso(keyId),
    async flush() {
      await lastUsed.flush();
      await activity.flush();
    },
  };
}
