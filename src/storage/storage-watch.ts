// Watches this node's disk (StorageStatus) and records storage.low when it goes from ok to low or full, once per
// episode (it must become ok again to be said again), so people hear of it before uploads and writes start failing.
import type { Logger } from '../logger.js';
import type { StorageState } from './storage-status.js';

/** The storage.low event's object: this node's disk as /healthz sees it, with the numbers a person needs. */
export interface StorageLowObject {
  object: 'storage';
  node_id: string;
  state: Exclude<StorageState, 'ok'>;
  free_mb: number;
  reserve_mb: number;
}

export interface StorageWatchDeps {
  state(): Promise<StorageState>;
  space(): Promise<{ freeBytes: number; reserveBytes: number }>;
  record(object: StorageLowObject): Promise<unknown>;
  nodeId: string;
  logger: Logger;
  /** How often the disk is looked at (default one minute). */
  everyMs?: number;
}

/** Pure: whether a change of state is news (ok to low or full). */
export const storageTurnedLow = (before: StorageState, now: StorageState): boolean => before === 'ok' && now !== 'ok';

export function createStorageWatch(d: StorageWatchDeps): { check(): Promise<void>; start(): void; stop(): void } {
  // Starting as ok: a disk already low when the node starts is said at the first look.
  let last: StorageState = 'ok';
  let timer: NodeJS.Timeout | undefined;
  const check = async (): Promise<void> => {
    const now = await d.state();
    const news = storageTurnedLow(last, now);
    last = now;
    if (!news || now === 'ok') return;
    const space = await d.space();
    const mb = (n: number): number => Math.max(0, Math.floor(n / (1024 * 1024)));
    await d.record({ object: 'storage', node_id: d.nodeId, state: now, free_mb: mb(space.freeBytes), reserve_mb: mb(space.reserveBytes) });
  };
  const tick = (): void => {
    check().catch((err: Error) => d.logger.warn('storage watch: could not check or record the disk state', { error: err }));
  };
  return {
    check,
    start() {
      tick();
      timer = setInterval(tick, d.everyMs ?? 60_000);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
