// Notifications as a subscriber of the event log, wired once at composition: messages written with each recorded event
// (grouped, held in quiet hours), and the worker that sends them, woken when events commit or nodes change.
import type { ClusterBus } from '../cluster/cluster-bus.js';
import type { Clock } from '../clock.js';
import type { EventsRuntime } from '../events/events-runtime.js';
import type { Logger } from '../logger.js';
import type { SecretSealer } from '../auth/api-key-digest.js';
import type { Db } from '../storage/db.js';
import type { DurableWriter } from '../storage/durable-writer.js';
import { notificationFanOut } from './notification-outbox.js';
import { NotificationWorker, type NotificationWorkerOptions } from './notification-worker.js';

export interface NotificationsOptions extends NotificationWorkerOptions {
  /** How long a message gathers events before it goes (flood grouping); default 10 s. */
  groupMs?: number;
}

export interface NotificationsRuntime {
  readonly worker: NotificationWorker;
  start(): void;
  stop(graceMs?: number): Promise<void>;
}

export function createNotificationsRuntime(
  base: { db: Db; clock: Clock; logger: Logger; secrets: SecretSealer; events: Pick<EventsRuntime, 'onRecord' | 'feed'>; cluster?: ClusterBus; nodeId: string; durable?: DurableWriter },
  options: NotificationsOptions = {},
): NotificationsRuntime {
  const worker = new NotificationWorker(
    { db: base.db, clock: base.clock, logger: base.logger, secrets: base.secrets, nodeId: base.nodeId, ...(base.durable ? { durable: base.durable } : {}) },
    options,
  );
  base.events.onRecord(notificationFanOut(options.groupMs ?? 10_000));
  base.events.feed.subscribe(() => worker.wake());
  base.cluster?.subscribe('nodes', () => void worker.nodesChanged().catch(() => undefined));
  return { worker, start: () => worker.start(), stop: (graceMs) => worker.stop(graceMs) };
}
