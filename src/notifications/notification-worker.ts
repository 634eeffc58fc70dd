// Sends due notification messages from the database: one at a time per channel (in order), bounded overall, retried on
// back-off or Retry-After, a failing channel paused with its reason; resumes after a restart, leases across nodes.
import http from 'node:http';
import https from 'node:https';
import { isoTime, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { SecretSealer } from '../auth/api-key-digest.js';
import type { Db } from '../storage/db.js';
import type { DurableWriter } from '../storage/durable-writer.js';
import { engineSqlOf } from '../storage/engines/engine-sql.js';
import { PassLoop, settleOrAbort } from '../storage/pass-loop.js';
import { findChannel, sendingChannelIds, updateChannel, type ChannelRow } from './channels.repository.js';
import { composeMessage, userEmails } from './compose-message.js';
import { openSecrets } from './channel-secrets.js';
import {
  claimDueMessages,
  findNotificationDelivery,
  nextMessageDueMs,
  releaseGoneMessageLeases,
  releaseMessage,
  updateNotificationDelivery,
  type NotificationDeliveryRow,
} from './notification-deliveries.repository.js';
import { AttemptAborted, sendMessage } from './send-message.js';
import { decideAfterSend, type SendResult } from './send-outcome.js';

export interface NotificationWorkerOptions {
  /** Messages in flight over all channels. */
  maxInFlight?: number;
  /** Deadline of one send (connect, TLS, answer): a hanging service holds only its own channel this long. */
  timeoutMs?: number;
  safetyPollMs?: number;
  random?: () => number;
  /** Multiplies every retry delay (tests; the server keeps 1). */
  retryDelayScale?: number;
  /** How long a claimed message stays this node's (PostgreSQL); at least the timeout plus a second. */
  leaseMs?: number;
}

export class NotificationWorker {
  private readonly o: Required<NotificationWorkerOptions>;
  private readonly inFlight = new Map<string, { channelId: string; controller: AbortController; done: Promise<void> }>();
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  private readonly loop = new PassLoop(() => this.pass());
  private releasedOwn = false;

  constructor(
    private readonly deps: { db: Db; clock: Clock; logger: Logger; secrets: SecretSealer; nodeId: string; durable?: Pick<DurableWriter, 'write'> },
    options: NotificationWorkerOptions = {},
  ) {
    const timeoutMs = options.timeoutMs ?? 15_000;
    this.o = {
      maxInFlight: options.maxInFlight ?? 16,
      timeoutMs,
      safetyPollMs: options.safetyPollMs ?? 1000,
      random: options.random ?? Math.random,
      retryDelayScale: options.retryDelayScale ?? 1,
      leaseMs: Math.max(options.leaseMs ?? timeoutMs + 30_000, timeoutMs + 1000),
    };
  }

  /** Every message pending in the database goes out from here: a restart resumes where the last run stopped. */
  start(): void {
    this.loop.start();
  }

  /** Look for due messages now (events committed, a channel resumed). Coalesced. */
  wake(): void {
    this.loop.wake();
  }

  /** Sends in flight get `graceMs`; those cut off are handed back untouched (due again, never sent twice by us). */
  async stop(graceMs = 5000): Promise<void> {
    await this.loop.halt();
    await settleOrAbort(this.inFlight.values(), graceMs);
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** Sends one pending message now (Send test) and returns what the service said. */
  async sendNow(deliveryId: string): Promise<SendResult> {
    const row = await findNotificationDelivery(this.deps.db, deliveryId);
    if (!row || row.status !== 'pending') throw new Error(`notification ${deliveryId} is not pending`);
    let result: SendResult | undefined;
    await this.launch(row, (r) => (result = r));
    return result ?? { ok: false, status: null, error: 'aborted by shutdown', retryAfterMs: null, permanent: false };
  }

  private async pass(): Promise<void> {
    try {
      do {
        if (!this.loop.isRunning) return;
        const now = this.deps.clock.now();
        if (engineSqlOf(this.deps.db).engine === 'postgres' && !this.releasedOwn) {
          // This node's leases from a run that died are due again now (lost nodes' are handed back the same way).
          await releaseGoneMessageLeases(this.deps.db, now, this.deps.nodeId);
          this.releasedOwn = true;
        }
        for (const channelId of await sendingChannelIds(this.deps.db)) {
          if (this.inFlight.size >= this.o.maxInFlight) break;
          const mine = [...this.inFlight].filter(([, f]) => f.channelId === channelId).map(([id]) => id);
          // One message at a time per channel: a person reads them in order, and a slow service holds only itself.
          if (mine.length > 0) continue;
          const claim = { nowMs: now, exclude: mine, limit: 1, perChannel: 1, leaseUntilMs: now + this.o.leaseMs, nodeId: this.deps.nodeId };
          for (const row of await claimDueMessages(this.deps.db, channelId, claim)) void this.launch(row);
        }
      } while (this.loop.more());
      await this.scheduleNext();
    } catch (err) {
      if (this.loop.isRunning) {
        this.deps.logger.error('notifications: pass failed', { error: err as Error });
        this.loop.later(this.o.safetyPollMs);
      }
    }
  }

  /** Several nodes: another node declared lost; its leased messages go out from here now. */
  async nodesChanged(): Promise<void> {
    if (engineSqlOf(this.deps.db).engine !== 'postgres') return;
    if ((await releaseGoneMessageLeases(this.deps.db, this.deps.clock.now())) > 0) this.wake();
  }

  private async scheduleNext(): Promise<void> {
    if (!this.loop.isRunning) return;
    const due = await nextMessageDueMs(this.deps.db);
    const wait = due === null ? this.o.safetyPollMs : Math.min(this.o.safetyPollMs, Math.max(0, due - this.deps.clock.now()));
    const delay = wait > 0 ? wait : this.inFlight.size === 0 ? 10 : this.o.safetyPollMs;
    this.loop.later(delay);
  }

  private launch(row: NotificationDeliveryRow, onResult?: (r: SendResult) => void): Promise<void> {
    const controller = new AbortController();
    const done = this.attempt(row, controller.signal)
      .then((r) => {
        if (r) onResult?.(r);
      })
      .catch((err: unknown) => this.deps.logger.error('notifications: an attempt failed to record', { delivery: row.id, error: err as Error }))
      .finally(() => {
        this.inFlight.delete(row.id);
        this.wake();
      });
    this.inFlight.set(row.id, { channelId: row.channel_id, controller, done });
    return done;
  }

  private async attempt(row: NotificationDeliveryRow, signal: AbortSignal): Promise<SendResult | undefined> {
    const { db, clock } = this.deps;
    const channel = await findChannel(db, row.channel_id);
    if (!channel) return undefined;
    const message = await composeMessage(db, row, clock.now());
    let result: SendResult;
    if (message === null) {
      result = { ok: false, status: null, error: 'its events were pruned from the event log before it could be sent', retryAfterMs: null, permanent: false };
    } else {
      try {
        const secrets = openSecrets(this.deps.secrets, channel);
        const extraTo = channel.kind === 'email' ? await userEmails(db, JSON.parse(channel.user_ids) as string[]) : [];
        result = await sendMessage(channel.kind, JSON.parse(channel.settings), secrets, message, { timeoutMs: this.o.timeoutMs, signal, agents: this.agents, nowMs: clock.now(), extraTo });
      } catch (err) {
        if (err instanceof AttemptAborted) {
          await releaseMessage(db, row);
          return undefined;
        }
        result = { ok: false, status: null, error: (err as Error).message, retryAfterMs: null, permanent: false };
      }
    }
    const work = (): Promise<void> => this.record(row, channel, message?.title ?? null, result);
    await (this.deps.durable ? this.deps.durable.write(`notification ${row.id}`, work) : work());
    return result;
  }

  private async record(row: NotificationDeliveryRow, channel: ChannelRow, title: string | null, r: SendResult): Promise<void> {
    const { db, clock } = this.deps;
    const nowMs = clock.now();
    const now = isoTime(nowMs);
    const attempts = row.attempts + 1;
    const d = decideAfterSend(r, attempts, Number(channel.failures_in_a_row), nowMs, this.o.random(), row.mode === 'test', this.o.retryDelayScale);
    await db.transaction().execute(async (trx) => {
      await updateNotificationDelivery(trx, row.id, {
        status: d.delivery.status,
        attempts,
        next_attempt_ms: d.delivery.status === 'pending' ? d.delivery.nextAttemptMs : null,
        leased_by: null,
        title,
        last_status: r.status,
        last_error: r.error,
        updated_at: now,
        ...(d.delivery.status === 'delivered' ? { delivered_at: now } : {}),
      });
      if (row.mode !== 'test' || d.failuresInARow === 0) {
        await updateChannel(trx, channel.id, { failures_in_a_row: d.failuresInARow, ...(d.pause ? { paused_reason: d.pause, updated_at: now } : {}) });
      }
    });
    if (d.pause) this.deps.logger.warn('notifications: channel paused', { channel: channel.id, reason: d.pause });
  }
}
