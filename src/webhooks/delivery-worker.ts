// Sends due deliveries from the database: bounded in flight, a per-webhook limit (farm-wide on PostgreSQL), retries on schedule, resumes after restart.
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { isoTime, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import type { DurableWriter } from '../storage/durable-writer.js';
import { TEST_EVENT_TYPE } from '../events/event-names.js';
import { claimDueDeliveriesOf, failPendingOf, nextDueMs, pendingDelivery, releaseDelivery, releaseLeasesOfGoneNodes, updateDelivery, type DueDelivery } from './deliveries.repository.js';
import { engineSqlOf } from '../storage/engines/engine-sql.js';
import { PassLoop, settleOrAbort } from '../storage/pass-loop.js';
import { decideAfterAttempt, type AttemptResult } from './delivery-outcome.js';
import { hostAllowed } from '../net/host-allowlist.js';
import { signatureHeader } from './signature.js';
import { AttemptAborted, postWebhook } from './webhook-poster.js';
import { activeSecrets, allowedHostsOf } from './webhook-secrets.js';
import { enabledWebhooks, findWebhook, updateWebhook } from './webhooks.repository.js';

export interface DeliveryWorkerOptions {
  /** Attempts in flight over all webhooks. */
  maxInFlight?: number;
  /**
   * Attempts in flight per webhook: 1 keeps a receiver's deliveries in event order while it keeps up. With several
   * nodes on PostgreSQL it bounds the whole farm's attempts (every node must be given the same).
   */
  perWebhook?: number;
  timeoutMs?: number;
  /** Longest sleep between passes even when nothing seems due (a clock moved by hand, rows written by another process). */
  safetyPollMs?: number;
  /** In [0, 1): back-off jitter. */
  random?: () => number;
  /**
   * Multiplies every retry delay (default 1: the real 30 s … 8 h schedule). Only the benchmark sets it, to run the
   * whole schedule in seconds; the server never does.
   */
  retryDelayScale?: number;
  /**
   * How long a claimed delivery stays this node's before any node may send it again (a node killed mid-send); default
   * the attempt timeout plus 30 s, and never shorter than the timeout, so a slow attempt is not sent twice.
   */
  leaseMs?: number;
  /**
   * Several nodes: how often (monotonic ms, default 5 s) a pass also hands back the leases of nodes declared lost,
   * besides at once when the nodes change (see releaseLeasesOfGoneNodes).
   */
  goneLeasesCheckMs?: number;
}

/** What an attempt led to: delivered, retry (it failed and goes again later), failed (given up). */
export type AttemptOutcome = 'delivered' | 'retry' | 'failed';
export const ATTEMPT_OUTCOMES: readonly AttemptOutcome[] = ['delivered', 'retry', 'failed'];

interface InFlight {
  webhookId: string;
  controller: AbortController;
  done: Promise<void>;
}

export class DeliveryWorker {
  private readonly maxInFlight: number;
  private readonly perWebhook: number;
  private readonly timeoutMs: number;
  private readonly safetyPollMs: number;
  private readonly random: () => number;
  private readonly retryDelayScale: number;
  private readonly leaseMs: number;
  private readonly goneLeasesCheckMs: number;
  /** Monotonic time of the last hand-back of lost nodes' leases; null: never (the first pass also takes back this node's own). */
  private goneLeasesCheckedAt: number | null = null;
  private readonly inFlight = new Map<string, InFlight>();
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  private readonly loop = new PassLoop(() => this.pass());
  /** Where the next pass starts in the webhook list, so a full worker shares its slots round-robin. */
  private turn = 0;
  /** Recorded attempts since this worker was made, by outcome (the metrics' counters; they start at 0 with the process). */
  readonly outcomes: Record<AttemptOutcome, number> = { delivered: 0, retry: 0, failed: 0 };

  constructor(
    /**
     * `nodeId`: the node its leases are taken under. `released`: tells the other nodes a delivery this node claimed is
     * due again (see stop()). `durable`: where outcomes are written (absent: straight to the database), so an outcome
     * that meets a full disk is held, not lost.
     */
    private readonly deps: { db: Db; clock: Clock; logger: Logger; nodeId: string; released?: () => void; durable?: Pick<DurableWriter, 'write'> },
    options: DeliveryWorkerOptions = {},
  ) {
    this.maxInFlight = options.maxInFlight ?? 64;
    this.perWebhook = options.perWebhook ?? 1;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.safetyPollMs = options.safetyPollMs ?? 1000;
    this.random = options.random ?? Math.random;
    this.retryDelayScale = options.retryDelayScale ?? 1;
    this.leaseMs = Math.max(options.leaseMs ?? this.timeoutMs + 30_000, this.timeoutMs + 1000);
    this.goneLeasesCheckMs = options.goneLeasesCheckMs ?? 5000;
  }

  /** Everything pending in the database is picked up from here: a restart resumes where the last run stopped. */
  start(): void {
    this.loop.start();
  }

  /** Look for due deliveries now (new events, a clock moved by hand, a manual retry). Coalesced. */
  wake(): void {
    this.loop.wake();
  }

  /** The nodes changed (one was declared lost): hand back its leases on the next pass, which starts now. */
  nodesChanged(): void {
    this.goneLeasesCheckedAt = this.goneLeasesCheckedAt === null ? null : -Infinity;
    this.wake();
  }

  /** Attempts in flight now (tests and the benchmark wait for zero). */
  get busy(): number {
    return this.inFlight.size;
  }

  /**
   * Stops taking work, gives attempts in flight up to `graceMs` to finish and record their outcome, then aborts the
   * rest. An aborted attempt leaves its delivery pending and due as before, so the next start (or another node) sends it again.
   */
  async stop(graceMs = 2000): Promise<void> {
    this.goneLeasesCheckedAt = null;
    await this.loop.halt();
    await settleOrAbort(this.inFlight.values(), graceMs);
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** Sends one delivery now, outside the limits (POST /v1/webhooks/:id/test), and returns the result. */
  async deliverNow(deliveryId: string, webhookId: string): Promise<AttemptResult> {
    const row = await pendingDelivery(this.deps.db, webhookId, deliveryId);
    if (!row) throw new Error(`delivery ${deliveryId} is not pending`);
    let result: AttemptResult | undefined;
    await this.launch(row, (r) => {
      result = r;
    });
    return result ?? { statusCode: null, durationMs: 0, error: 'aborted by shutdown', excerpt: null };
  }

  private async pass(): Promise<void> {
    try {
      do {
        if (!this.loop.isRunning) return;
        const now = this.deps.clock.now();
        await this.releaseGoneLeases(now);
        // Webhook by webhook (few), each asking the index for its own next due rows: a long backlog of one receiver
        // never fills a shared batch and starves the others.
        const hooks = await enabledWebhooks(this.deps.db);
        const start = hooks.length > 0 ? this.turn++ % hooks.length : 0;
        for (let i = 0; i < hooks.length; i++) {
          if (this.inFlight.size >= this.maxInFlight) break;
          const webhookId = (hooks[(start + i) % hooks.length] as { id: string }).id;
          const mine = [...this.inFlight].filter(([, f]) => f.webhookId === webhookId).map(([id]) => id);
          const free = Math.min(this.perWebhook - mine.length, this.maxInFlight - this.inFlight.size);
          if (free <= 0) continue;
          const claim = { nowMs: now, exclude: mine, limit: free, perWebhook: this.perWebhook, leaseUntilMs: now + this.leaseMs, nodeId: this.deps.nodeId };
          for (const row of await claimDueDeliveriesOf(this.deps.db, webhookId, claim)) void this.launch(row);
        }
      } while (this.loop.more());
      await this.scheduleNext();
    } catch (err) {
      if (this.loop.isRunning) {
        this.deps.logger.error('webhooks: delivery pass failed', { error: err as Error });
        this.loop.later(this.safetyPollMs);
      }
    }
  }

  /**
   * Several nodes (PostgreSQL): a lost node's deliveries go out from another within seconds of it being declared lost,
   * not when their leases end; the first pass after a start also takes back this node's own from a run that died.
   */
  private async releaseGoneLeases(nowMs: number): Promise<void> {
    if (engineSqlOf(this.deps.db).engine !== 'postgres') return;
    const t = performance.now();
    const first = this.goneLeasesCheckedAt === null;
    if (!first && t - this.goneLeasesCheckedAt! < this.goneLeasesCheckMs) return;
    const released = await releaseLeasesOfGoneNodes(this.deps.db, nowMs, first ? this.deps.nodeId : undefined);
    this.goneLeasesCheckedAt = t;
    if (released > 0) this.deps.logger.info('webhooks: deliveries leased by a node no longer running are due again', { deliveries: released });
  }

  private async scheduleNext(): Promise<void> {
    if (!this.loop.isRunning) return;
    const due = await nextDueMs(this.deps.db);
    const wait = due === null ? this.safetyPollMs : Math.min(this.safetyPollMs, Math.max(0, due - this.deps.clock.now()));
    // Due now: held back by the limits (a finishing attempt wakes the worker, the poll is a fallback), or it became due
    // during this pass with nothing in flight to wake us, so look again shortly.
    const delay = wait > 0 ? wait : this.inFlight.size === 0 ? 10 : this.safetyPollMs;
    this.loop.later(delay);
  }

  private launch(row: DueDelivery, onResult?: (r: AttemptResult) => void): Promise<void> {
    const controller = new AbortController();
    const done = this.attempt(row, controller.signal)
      .then((r) => {
        if (r) onResult?.(r);
      })
      .catch((err: unknown) => {
        this.deps.logger.error('webhooks: recording a delivery attempt failed', { delivery: row.id, error: err as Error });
      })
      .finally(() => {
        this.inFlight.delete(row.id);
        this.wake();
      });
    this.inFlight.set(row.id, { webhookId: row.webhook_id, controller, done });
    return done;
  }

  /** One attempt and its bookkeeping; undefined when it was aborted or the webhook is gone. */
  private async attempt(row: DueDelivery, signal: AbortSignal): Promise<AttemptResult | undefined> {
    const { db, clock } = this.deps;
    const webhook = await findWebhook(db, row.webhook_id);
    if (!webhook) return undefined;
    const body = JSON.stringify({ ...(JSON.parse(row.body) as object), sequence: row.seq });
    let result: AttemptResult;
    if (!hostAllowed(await allowedHostsOf(db), webhook.url)) {
      result = { statusCode: null, durationMs: 0, error: 'receiver host not in the organization webhook_allowed_hosts', excerpt: null };
    } else {
      const t = Math.floor(clock.now() / 1000);
      const headers = {
        'User-Agent': 'printfarm-webhooks/1',
        'X-Event-Id': row.event_id,
        'X-Event-Type': row.event_type,
        'X-Webhook-Id': row.webhook_id,
        'X-Webhook-Sequence': String(row.seq),
        'X-Signature': signatureHeader(activeSecrets(webhook, clock.now()), t, body),
      };
      try {
        result = await postWebhook(webhook.url, body, headers, { timeoutMs: this.timeoutMs, signal, agents: this.agents });
      } catch (err) {
        if (err instanceof AttemptAborted) {
          // Not sent: due again now for any node rather than held until this node's lease ends.
          await releaseDelivery(db, row);
          this.deps.released?.();
          return undefined;
        }
        throw err;
      }
    }
    // A full disk holds the outcome until there is room; the delivery stays in flight meanwhile, so no pass sends it
    // again. A shutdown does not wait for room: the held write is the durable writer's to try once more (or give up).
    const recorded = this.writeOutcome(row, result, webhook.failing_since !== null);
    if (!(await untilAborted(recorded, signal))) {
      recorded.catch((err: unknown) => this.deps.logger.error('webhooks: recording a delivery attempt failed', { delivery: row.id, error: err as Error }));
      return undefined;
    }
    return result;
  }

  private writeOutcome(row: DueDelivery, result: AttemptResult, wasFailing: boolean): Promise<void> {
    const work = (): Promise<void> => this.record(row, result, wasFailing);
    return this.deps.durable ? this.deps.durable.write(`webhook delivery ${row.id}`, work) : work();
  }

  private async record(row: DueDelivery, result: AttemptResult, wasFailing: boolean): Promise<void> {
    const { db, clock } = this.deps;
    const nowMs = clock.now();
    const now = isoTime(nowMs);
    const attempts = row.attempts + 1;
    const decision = decideAfterAttempt(result, attempts, nowMs, this.random(), row.event_type !== TEST_EVENT_TYPE, this.retryDelayScale);
    await db.transaction().execute(async (trx) => {
      await updateDelivery(trx, row.id, {
        status: decision.status,
        attempts,
        next_attempt_ms: decision.status === 'pending' ? decision.nextAttemptMs : null,
        // The outcome ends the lease: not in flight any more, for the farm's per-webhook count.
        leased_by: null,
        last_status_code: result.statusCode,
        last_duration_ms: result.durationMs,
        last_error: result.error,
        response_excerpt: result.excerpt,
        updated_at: now,
        ...(decision.status === 'delivered' ? { delivered_at: now } : {}),
      });
      if (decision.status === 'delivered') {
        if (wasFailing) await updateWebhook(trx, row.webhook_id, { failing_since: null });
      } else if (decision.status === 'failed' && decision.disableWebhook) {
        const reason = 'the receiver answered 410 Gone';
        await updateWebhook(trx, row.webhook_id, { enabled: 0, disabled_reason: reason, updated_at: now });
        await failPendingOf(trx, row.webhook_id, `${reason}; the webhook was disabled`, now);
      } else if (decision.status === 'failed' && row.event_type !== TEST_EVENT_TYPE && !wasFailing) {
        await updateWebhook(trx, row.webhook_id, { failing_since: now });
      }
    });
    this.outcomes[decision.status === 'pending' ? 'retry' : decision.status] += 1;
  }
}

/** Waits for `work`: true once it is done (rethrowing its error), false if `signal` aborts first. */
async function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work.then(() => true as const), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}
