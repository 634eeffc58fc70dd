// Coalesces sessions' last_seen_at: a use is written at most once a minute per session; uses held back in between are remembered for the idle check and flush().
import { isoTime } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import { writeLastSeen } from './sessions.repository.js';

export const LAST_SEEN_WRITE_INTERVAL_MS = 60_000;

export class SessionActivity {
  /** When this process last wrote each session's last_seen_at; entries older than the interval are swept. */
  private readonly writtenAt = new Map<string, number>();
  /** The newest use of a session since that write, not in the database yet. */
  private readonly heldBack = new Map<string, number>();
  private lastSweepMs = 0;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {}

  /** Records a use; writes through when this session was not written in the last minute. */
  async touch(sessionId: string, nowMs: number): Promise<void> {
    const written = this.writtenAt.get(sessionId);
    if (written !== undefined && nowMs >= written && nowMs - written < LAST_SEEN_WRITE_INTERVAL_MS) {
      this.heldBack.set(sessionId, Math.max(nowMs, this.heldBack.get(sessionId) ?? 0));
      return;
    }
    this.writtenAt.set(sessionId, nowMs);
    this.heldBack.delete(sessionId);
    await this.write(sessionId, nowMs);
    await this.sweep(nowMs);
  }

  /** A use newer than the stored last_seen_at, if this process holds one back: the idle check counts from it. */
  heldBackMs(sessionId: string): number | undefined {
    return this.heldBack.get(sessionId);
  }

  /** Writes every held-back use; the serve command calls it (through AccessControl.flush) on shutdown. */
  async flush(): Promise<void> {
    const pending = [...this.heldBack];
    this.heldBack.clear();
    for (const [id, ms] of pending) await this.write(id, ms);
  }

  /**
   * Once a minute: forgets sessions not written within the interval (their next use writes anyway), writing what was
   * held back for them first. So memory holds only the sessions used in the last minute, however many sign in over time.
   */
  private async sweep(nowMs: number): Promise<void> {
    if (nowMs - this.lastSweepMs < LAST_SEEN_WRITE_INTERVAL_MS) return;
    this.lastSweepMs = nowMs;
    for (const [id, at] of [...this.writtenAt]) {
      if (nowMs - at < LAST_SEEN_WRITE_INTERVAL_MS) continue;
      const held = this.heldBack.get(id);
      this.writtenAt.delete(id);
      this.heldBack.delete(id);
      if (held !== undefined) await this.write(id, held);
    }
  }

  private async write(sessionId: string, ms: number): Promise<void> {
    try {
      await writeLastSeen(this.db, sessionId, isoTime(ms));
    } catch (err) {
      // Bookkeeping must never fail the request it rides on.
      this.logger.warn('could not record a session use', { session_id: sessionId, error: err as Error });
    }
  }
}
