// What the auth middleware needs from the feature that owns keys and limits: passed in on AppDeps, so http imports no feature.
import type { AuthContext } from './auth-context.js';

export interface AccessControl {
  /** The caller behind a presented key string; throws the 401 AppError saying why it is refused. */
  verifyKey(presented: string): Promise<AuthContext>;
  /** Whether the caller's scopes cover `scope` (wildcards included). */
  allows(caller: AuthContext, scope: string): boolean;
  /**
   * Requests per hour this caller may make, read on every request so a plan change applies at once. `enforce: false`:
   * count and report, never refuse (the owner's way back from a limit set too low).
   */
  hourlyLimit(caller: AuthContext, request: { method: string; path: string }): Promise<{ limit: number; enforce: boolean }>;
  /** Records a use of a key (coalesced writes). */
  recordUse(keyId: string, nowMs: number): Promise<void>;
  /** The newest use this process saw (ISO), which may be ahead of the stored value. */
  lastUsedAt(keyId: string): string | null;
  /** Writes pending bookkeeping; called on shutdown before the database closes. */
  flush(): Promise<void>;
}
