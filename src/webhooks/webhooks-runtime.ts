// Webhooks as a subscriber of the event log, wired once at composition: delivery rows written with each recorded event,
// and the worker that sends them, woken whenever new events commit.
import type { ClusterBus } from '../cluster/cluster-bus.js';
import type { Clock } from '../clock.js';
import type { EventsRuntime } from '../events/events-runtime.js';
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import { newId } from '../ids.js';
import type { DurableWriter } from '../storage/durable-writer.js';
import { DeliveryWorker, type DeliveryWorkerOptions } from './delivery-worker.js';
import { fanOutToWebhooks } from './webhook-outbox.js';

export interface WebhooksRuntime {
  readonly worker: DeliveryWorker;
  /** Deliveries left pending by the last run (or interrupted by its shutdown) go out from here. */
  start(): void;
  /** In-flight attempts get `graceMs`, then are retried after the next start. */
  stop(graceMs?: number): Promise<void>;
}

export function createWebhooksRuntime(
  /** `durable`: delivery outcomes are written through it, held (never lost, never sent again) while the disk is full. */
  base: { db: Db; clock: Clock; logger: Logger; events: Pick<EventsRuntime, 'onRecord' | 'feed'>; cluster?: ClusterBus; nodeId?: string; durable?: DurableWriter },
  options: DeliveryWorkerOptions = {},
): WebhooksRuntime {
  const { cluster } = base;
  // A delivery handed back by a node stopping mid-attempt is due at once: the other nodes hear of it on 'deliveries'.
  const released = cluster ? (): void => void cluster.publish('deliveries').catch(() => undefined) : undefined;
  const worker = new DeliveryWorker(
    {
      db: base.db,
      clock: base.clock,
      logger: base.logger,
      nodeId: base.nodeId ?? newId('nod'),
      ...(released ? { released } : {}),
      ...(base.durable ? { durable: base.durable } : {}),
    },
    options,
  );
  cluster?.subscribe('deliveries', () => worker.wake());
  // A node declared lost (the marking node signals 'nodes'): the deliveries it held are handed back and sent at once.
  cluster?.subscribe('nodes', () => worker.nodesChanged());
  base.events.onRecord(fanOutToWebhooks);
  base.events.feed.subscribe(() => worker.wake());
  return {
    worker,
    start: () => worker.start(),
    stop: (graceMs) => worker.stop(graceMs),
  };
}
