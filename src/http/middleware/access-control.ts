// What the auth middleware needs from the feature that owns keys, sessions and limits: passed in on HttpDeps, so http imports no feature.
import type { AuthContext } from './auth-context.js';

export interface AccessControl {
  /** The caller behind a presented key string; throws the 401 AppError saying why it is refused. */
  verifyKey(presented: string): Promise<AuthContext>;
  /**
   * The caller behind a session cookie's token, checked against the organization's lifetime and idle timeout as they
   * are now, and against its user (still active) or key (not revoked or expired). Throws a 401 AppError with code
   * `invalid_session` saying why, and deletes a session that has ended.
   */
  verifySession(token: string): Promise<AuthContext>;
  /**
   * The caller behind HTTP Digest credentials: `username` is a key's display prefix, `matches` says whether the
   * client's response fits that key's stored HA1. Throws the 401 AppError when no such key matches.
   */
  verifyDigest(username: string, matches: (ha1: string) => boolean): Promise<AuthContext>;
  /** Whether a caller accepted earlier may still act now (key not revoked or expired, session not ended): long-lived streams ask. */
  stillValid(caller: AuthContext): Promise<boolean>;
  /** Whether the caller's scopes cover `scope` (wildcards included). */
  allows(caller: AuthContext, scope: string): boolean;
  /**
   * Requests per hour this caller may make, read on every request so a plan change applies at once. `enforce: false`:
   * count and report, never refuse (the owner's way back from a limit set too low).
   */
  hourlyLimit(caller: AuthContext, request: { method: string; path: string }): Promise<{ limit: number; enforce: boolean }>;
  /** Whose hourly window a request counts in: the key's (a key session shares it), else the user's, else the caller's. */
  rateLimitBucket(caller: AuthContext): string;
  /** Records a use of a key (coalesced writes). */
  recordUse(keyId: string, nowMs: number): Promise<void>;
  /** Records a use of a session: moves its idle deadline (coalesced writes, at most one a minute per session). */
  recordSessionUse(sessionId: string, nowMs: number): Promise<void>;
  /** The newest use this process saw (ISO), which may be ahead of the stored value. */
  lastUsedAt(keyId: string): string | null;
  /** Writes pending bookkeeping; called on shutdown before the database closes. */
  flush(): Promise<void>;
}
