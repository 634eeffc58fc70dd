// Farm-wide families: jobs by status, the queue, spool stock, webhook deliveries, free storage, the running version.
import { statfs } from 'node:fs/promises';
import type { Registry } from 'prom-client';
import { JOB_STATUSES } from '../jobs/job-state.js';
import { VERSION } from '../version.js';
import { ATTEMPT_OUTCOMES } from '../webhooks/delivery-worker.js';
import { collectedCounter, collectedGauge } from './collected-metric.js';
import type { MetricsSources } from './metrics-sources.js';
import { jobCountsByStatus, pendingDeliveryCount, queueState, stockedSpools } from './metrics.repository.js';

/** Seconds the longest-waiting queued job has waited by `nowMs`; 0 for an empty queue. */
export function oldestWaitSeconds(oldestCreatedAt: string | null, nowMs: number): number {
  if (oldestCreatedAt === null) return 0;
  return Math.max(0, (nowMs - Date.parse(oldestCreatedAt)) / 1000);
}

export function registerFarmMetrics(registry: Registry, src: MetricsSources): void {
  const { db } = src;

  collectedGauge(registry, { name: 'printfarm_build_info', help: 'The running version (value 1).', labelNames: ['version'] }, () => [
    { labels: { version: VERSION }, value: 1 },
  ]);

  collectedGauge(registry, { name: 'printfarm_jobs', help: 'Stored jobs by status (every status always present).', labelNames: ['status'] }, async () => {
    const counts = await jobCountsByStatus(db);
    return JOB_STATUSES.map((status) => ({ labels: { status }, value: counts.get(status) ?? 0 }));
  });

  collectedGauge(registry, { name: 'printfarm_queue_length', help: 'Jobs queued and waiting for a printer.' }, async () => [
    { value: (await queueState(db)).length },
  ]);
  collectedGauge(registry, { name: 'printfarm_queue_oldest_wait_seconds', help: 'How long the longest-waiting queued job has waited since it was created; 0 when the queue is empty.' }, async () => [
    { value: oldestWaitSeconds((await queueState(db)).oldestCreatedAt, src.clock.now()) },
  ]);

  collectedGauge(
    registry,
    { name: 'printfarm_spool_remaining_grams', help: 'Filament left on each spool that is not archived.', labelNames: ['material_id', 'type', 'color'] },
    async () =>
      (await stockedSpools(db)).map((m) => ({ labels: { material_id: m.id, type: m.type, color: m.color ?? '' }, value: m.remaining_weight })),
  );

  collectedCounter(
    registry,
    {
      name: 'printfarm_webhook_deliveries_total',
      help: 'Webhook delivery attempts since start by outcome: delivered, retry (failed, will be tried again), failed (given up).',
      labelNames: ['outcome'],
    },
    () => {
      const outcomes = src.webhookOutcomes();
      return ATTEMPT_OUTCOMES.map((outcome) => ({ labels: { outcome }, value: outcomes[outcome] }));
    },
  );
  collectedGauge(registry, { name: 'printfarm_webhook_outbox_pending', help: 'Webhook deliveries waiting to be sent or retried.' }, async () => [
    { value: await pendingDeliveryCount(db) },
  ]);

  // One statfs per scrape feeds both gauges' collect(); each asks on its own, the call is cheap.
  const storage = async () => {
    const s = await statfs(src.dataDir);
    return { free: s.bavail * s.bsize, size: s.blocks * s.bsize };
  };
  collectedGauge(registry, { name: 'printfarm_storage_free_bytes', help: 'Space left for the server on the filesystem of the data directory.' }, async () => [
    { value: (await storage()).free },
  ]);
  collectedGauge(registry, { name: 'printfarm_storage_size_bytes', help: 'Size of the filesystem of the data directory.' }, async () => [
    { value: (await storage()).size },
  ]);
}
