// The file pruning pass: reads the policy and the files' use, lets planPruning() choose, then removes each chosen file
// (row marked, file.pruned recorded in the same transaction, content and thumbnail unlinked). Runs on start and hourly.
import { isoTime, type Clock } from '../clock.js';
import type { Executor } from '../events/event-outbox.js';
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import { GIB } from './file-limits.js';
import type { ContentStore } from './content-store.js';
import { markFilePruned, prunePolicyOf, pruneRows, type PruneRow } from './files.repository.js';
import type { PrunedFile } from './files.schemas.js';
import { planPruning, type PruneCandidate, type PruneReason } from './prune-selection.js';

export const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** An upload is stored a moment before its job is written: a file used this recently is never pruned. */
export const PRUNE_GRACE_MS = 10 * 60 * 1000;

export interface FilePrunerDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  store: ContentStore;
  /** Records file.pruned inside the transaction that marks the file removed (the event outbox). */
  publish(trx: Executor, file: PrunedFile): Promise<void>;
  /** What else goes with the file, in the same transaction: the pictures of the jobs that printed it (cameras). */
  onPruned?(trx: Executor, fileId: string): Promise<void>;
  everyMs?: number;
  graceMs?: number;
}

export interface PruneReport {
  files: number;
  /** Content and thumbnail bytes freed. */
  bytes: number;
  retention: number;
  store_size: number;
  /** Bytes still over file_store_max_gb because the rest is in use (0 when under it or without a cap). */
  over_cap_bytes: number;
}

export interface FilePruner {
  /** One pass now (a pass already running is joined, not doubled). */
  runOnce(): Promise<PruneReport>;
  /** A pass now, then one every `everyMs`. */
  start(): void;
  /** No more passes; resolves once a running one is done. */
  stop(): Promise<void>;
}

const rowBytes = (r: PruneRow): number => r.size + (r.thumbnail_size ?? 0);

/** The last use: the upload (or a later one of the same content), or the end of the last job that printed it. */
function lastUsedMs(r: PruneRow): number {
  const used = Date.parse(r.last_used_at ?? r.created_at);
  return r.last_job_at === null ? used : Math.max(used, Date.parse(r.last_job_at));
}

export function createFilePruner(d: FilePrunerDeps): FilePruner {
  let running: Promise<PruneReport> | null = null;
  let timer: NodeJS.Timeout | null = null;

  /** Marks and unlinks one file under the store's lock; false when it was used again or taken by a job meanwhile. */
  async function removeOne(row: PruneRow, reason: PruneReason): Promise<boolean> {
    return d.store.exclusive(async () => {
      const marked = await d.db.transaction().execute(async (trx) => {
        if (!(await markFilePruned(trx, row.id, row.last_used_at, isoTime(d.clock.now())))) return false;
        await d.store.removeWithin?.(trx, row.sha256);
        await d.publish(trx, { id: row.id, original_name: row.original_name, size: row.size, reason });
        await d.onPruned?.(trx, row.id);
        return true;
      });
      if (marked) await d.store.remove(row.sha256, row.thumbnail_type);
      return marked;
    });
  }

  async function pass(): Promise<PruneReport> {
    const policy = await prunePolicyOf(d.db);
    const rows = await pruneRows(d.db);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const candidates: PruneCandidate[] = rows.map((r) => ({ id: r.id, bytes: rowBytes(r), lastUsedMs: lastUsedMs(r), activeJobs: r.active_jobs }));
    const plan = planPruning(
      candidates,
      {
        retentionDays: policy.file_retention_days,
        maxStoreBytes: policy.file_store_max_gb === null ? null : Math.floor(policy.file_store_max_gb * GIB),
        graceMs: d.graceMs ?? PRUNE_GRACE_MS,
      },
      d.clock.now(),
    );
    const report: PruneReport = { files: 0, bytes: 0, retention: 0, store_size: 0, over_cap_bytes: plan.overCapBytes };
    for (const choice of plan.remove) {
      const row = byId.get(choice.id)!;
      try {
        if (!(await removeOne(row, choice.reason))) continue;
      } catch (err) {
        d.logger.error('could not prune a stored file', { file: row.id, error: err as Error });
        continue;
      }
      report.files++;
      report.bytes += rowBytes(row);
      report[choice.reason]++;
    }
    // Content another node pruned leaves this node's local copy behind until here.
    const swept = await d.store.sweep?.().catch((err: unknown) => {
      d.logger.error('could not remove local copies of pruned files', { error: err as Error });
      return 0;
    });
    if (swept) d.logger.info('local copies of pruned files removed', { files: swept });
    if (report.files > 0) d.logger.info('file store pruned', { ...report });
    if (report.over_cap_bytes > 0) {
      d.logger.warn('the file store is over file_store_max_gb: the files left are used by queued, printing or paused jobs, or were used in the last minutes', {
        over_cap_bytes: report.over_cap_bytes,
      });
    }
    return report;
  }

  function runOnce(): Promise<PruneReport> {
    running ??= pass().finally(() => {
      running = null;
    });
    return running;
  }

  const background = (): void => {
    runOnce().catch((err: unknown) => d.logger.error('file pruning failed', { error: err as Error }));
  };

  return {
    runOnce,
    start() {
      if (timer) return;
      background();
      timer = setInterval(background, d.everyMs ?? PRUNE_EVERY_MS).unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running?.catch(() => undefined);
    },
  };
}
