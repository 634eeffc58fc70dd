// Pure: which stored files a pruning pass removes and why, from the organization's policy, each file's use and the time.

export type PruneReason = 'retention' | 'store_size';

export interface PruneCandidate {
  id: string;
  /** Bytes the file takes in the store (content and thumbnail). */
  bytes: number;
  /** Clock ms of its last use: its upload, a repeated upload of the same content, the end of the last job that printed it. */
  lastUsedMs: number;
  /** Queued, printing or paused jobs that name it: while there is one the file is never removed. */
  activeJobs: number;
}

export interface PrunePolicy {
  /** Days after the last use; null: no retention limit. */
  retentionDays: number | null;
  /** Bytes the store may hold; null: no cap. */
  maxStoreBytes: number | null;
  /**
   * A file used this recently is kept whatever the policy says: an upload is stored a moment before the job that
   * names it is written, and must not be pruned in between.
   */
  graceMs: number;
}

export interface PruneChoice {
  id: string;
  reason: PruneReason;
}

export interface PrunePlan {
  /** Retention removals first, then store-size ones, each oldest use first. */
  remove: PruneChoice[];
  /** What the store holds once they are gone. */
  bytesAfter: number;
  /** Bytes still over the cap because everything left is in use or too recent (0 when under it or without a cap). */
  overCapBytes: number;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

const byOldestUse = (a: PruneCandidate, b: PruneCandidate): number => a.lastUsedMs - b.lastUsedMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function planPruning(files: readonly PruneCandidate[], policy: PrunePolicy, nowMs: number): PrunePlan {
  const removable = files.filter((f) => f.activeJobs === 0 && nowMs - f.lastUsedMs >= policy.graceMs).sort(byOldestUse);
  const remove: PruneChoice[] = [];
  const chosen = new Set<string>();
  let bytes = files.reduce((sum, f) => sum + f.bytes, 0);
  const take = (f: PruneCandidate, reason: PruneReason): void => {
    remove.push({ id: f.id, reason });
    chosen.add(f.id);
    bytes -= f.bytes;
  };
  if (policy.retentionDays !== null) {
    const limitMs = policy.retentionDays * DAY_MS;
    for (const f of removable) if (nowMs - f.lastUsedMs > limitMs) take(f, 'retention');
  }
  if (policy.maxStoreBytes !== null) {
    for (const f of removable) {
      if (bytes <= policy.maxStoreBytes) break;
      if (!chosen.has(f.id)) take(f, 'store_size');
    }
  }
  const overCapBytes = policy.maxStoreBytes === null ? 0 : Math.max(0, bytes - policy.maxStoreBytes);
  return { remove, bytesAfter: bytes, overCapBytes };
}
