// Coalesces last_used_at: remembered in memory on every request, written at most once a minute per key and on flush().
import type { Db } from '../storage/db.js';
import type { Logger } from '../logger.js';
import { isoTime } from '../clock.js';
import { writeLastUsed } from './api-keys.repository.js';

export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export class LastUsedTracker {
  private readonly latest = new Map<string, number>();
  private readonly writtenAt = new Map<string, number>();
  private readonly pending = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {}

  /** Records a use; writes through when this key was not written in the last minute. */
  async touch(keyId: string, nowMs: number): Promise<void> {
    this.latest.set(keyId, Math.max(nowMs, this.latest.get(keyId) ?? 0));
    const last = this.writtenAt.get(keyId);
    if (last !== undefined && nowMs - last < LAST_USED_WRITE_INTERVAL_MS) {
      this.pending.add(keyId);
      return;
    }
    this.writtenAt.set(keyId, nowMs);
    this.pending.delete(keyId);
    await this.write(keyId, nowMs);
  }

  /** The newest use seen by this process (ISO), which may be ahead of the database. */
  latestIso(keyId: string): string | null {
    const ms = this.latest.get(keyId);
    return ms === undefined ? null : isoTime(ms);
  }

  /** Writes every remembered use that has not reached the database yet; the serve command calls it on shutdown. */
  async flush(): Promise<void> {
    const ids = [...this.pending];
    this.pending.clear();
    for (const id of ids) {
      const ms = this.latest.get(id);
      if (ms !== undefined) await this.write(id, ms);
    }
  }

  private async write(keyId: string, ms: number): Promise<void> {
    try {
      await writeLastUsed(this.db, keyId, isoTime(ms));
    } catch (err) {
      // Bookkeeping must never fail the request it rides on.
      this.logger.warn('could not record last_used_at', { key_id: keyId, error: err as Error });
    }
  }
}
