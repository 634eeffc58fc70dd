// Webhook rules: validated create/update (hosts, secret rotation), delete, the test delivery, delivery history and manual retry.
import { isoTime, type Clock } from '../clock.js';
import { AppError, badRequest, notFound } from '../errors.js';
import { eventSeqById } from '../events/event-log.repository.js';
import type { RecordedEvent } from '../events/event-outbox.js';
import type { EventsRuntime } from '../events/events-runtime.js';
import { TEST_EVENT_TYPE } from '../events/event-names.js';
import { newId } from '../ids.js';
import { runListQuery, type ListPage, type ListQuery } from '../storage/list-page.js';
import type { Db } from '../storage/db.js';
import { findDelivery, selectDeliveries, updateDelivery } from './deliveries.repository.js';
import { toDeliveryRecord, type DeliveryRecord } from './delivery-record.js';
import { queueDelivery } from './webhook-outbox.js';
import type { WebhooksRuntime } from './webhooks-runtime.js';
import { hostAllowed } from '../net/host-allowlist.js';
import { activeSecrets, allowedHostsOf, generateSecret, SECRET_OVERLAP_MS } from './webhook-secrets.js';
import type { WebhookCreate, WebhookUpdate } from './webhooks.schemas.js';
import { countWebhooks, deleteWebhook, findWebhook, insertWebhook, selectWebhooks, updateWebhook, type WebhookRow } from './webhooks.repository.js';

export interface WebhookDeps {
  db: Db;
  clock: Clock;
  events: Pick<EventsRuntime, 'record'>;
  webhooks: Pick<WebhooksRuntime, 'worker'>;
}

export type WebhookRecord = {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  has_secret: true;
  secret_rotation_ends_at: string | null;
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
};

export function toWebhookRecord(row: WebhookRow, nowMs: number): WebhookRecord {
  const rotating = activeSecrets(row, nowMs).length > 1;
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    enabled: row.enabled === 1,
    has_secret: true,
    secret_rotation_ends_at: rotating ? isoTime(row.previous_secret_until_ms as number) : null,
    failing_since: row.failing_since,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The rules a JSON Schema cannot state: a parseable URL without credentials, on a host the organization allows. */
async function checkUrl(db: Db, url: string): Promise<string> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest(`url: "${url}" is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw badRequest('url: must be http or https');
  if (parsed.username || parsed.password) throw badRequest('url: must not carry a user name or password; authenticate with the signature');
  if (!hostAllowed(await allowedHostsOf(db), parsed.href)) {
    throw badRequest(`url: host "${parsed.hostname}" is not in the organization's webhook_allowed_hosts`);
  }
  return parsed.href;
}

/** A page of webhooks as the API shows them. */
export async function listWebhooks(db: Db, query: ListQuery, nowMs: number) {
  return runListQuery(selectWebhooks(db), query, (row) => toWebhookRecord(row, nowMs));
}

export async function getWebhook(db: Db, id: string): Promise<WebhookRow> {
  const row = await findWebhook(db, id);
  if (!row) throw notFound(`webhook ${id}`);
  return row;
}

/** Every event fans out to every matching webhook inside the transaction that records it, so their number is bounded. */
export const MAX_WEBHOOKS = 100;

export async function createWebhook(deps: WebhookDeps, input: WebhookCreate): Promise<{ row: WebhookRow; generatedSecret: string | null }> {
  const url = await checkUrl(deps.db, input.url);
  if ((await countWebhooks(deps.db)) >= MAX_WEBHOOKS) {
    throw new AppError(403, 'quota_exceeded', `this install allows at most ${MAX_WEBHOOKS} webhooks`, 'delete one you no longer need');
  }
  const generatedSecret = input.secret === undefined ? generateSecret() : null;
  const now = isoTime(deps.clock.now());
  const row: WebhookRow = {
    id: newId('wh'),
    url,
    events: JSON.stringify(input.events),
    secret: input.secret ?? (generatedSecret as string),
    previous_secret: null,
    previous_secret_until_ms: null,
    enabled: input.enabled === false ? 0 : 1,
    last_seq: 0,
    failing_since: null,
    disabled_reason: null,
    created_at: now,
    updated_at: now,
  };
  await insertWebhook(deps.db, row);
  return { row, generatedSecret };
}

export async function patchWebhook(deps: WebhookDeps, id: string, patch: WebhookUpdate): Promise<WebhookRow> {
  const current = await getWebhook(deps.db, id);
  const nowMs = deps.clock.now();
  const rotate = patch.secret !== undefined && patch.secret !== current.secret;
  await updateWebhook(deps.db, id, {
    ...(patch.url !== undefined ? { url: await checkUrl(deps.db, patch.url) } : {}),
    ...(patch.events !== undefined ? { events: JSON.stringify(patch.events) } : {}),
    ...(rotate ? { secret: patch.secret, previous_secret: current.secret, previous_secret_until_ms: nowMs + SECRET_OVERLAP_MS } : {}),
    ...(patch.enabled !== undefined ? { enabled: patch.enabled ? 1 : 0, ...(patch.enabled ? { disabled_reason: null } : {}) } : {}),
    updated_at: isoTime(nowMs),
  });
  // Re-enabled: its waiting deliveries are due again.
  if (patch.enabled) deps.webhooks.worker.wake();
  return getWebhook(deps.db, id);
}

export async function removeWebhook(db: Db, id: string): Promise<void> {
  if (!(await deleteWebhook(db, id))) throw notFound(`webhook ${id}`);
}

export interface TestOutcome {
  delivered: boolean;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
  event_id: string;
  delivery_id: string;
}

/**
 * Records a webhook.test event addressed to this webhook only (enabled or not), sends it at once and reports the
 * outcome. Its delivery is logged like any other but never retried automatically.
 */
export async function testWebhook(deps: WebhookDeps, id: string): Promise<TestOutcome> {
  const row = await getWebhook(deps.db, id);
  const object = toWebhookRecord(row, deps.clock.now());
  // The fallback due time only matters if the process dies before the attempt below: the next start sends it then.
  const { event, deliveryId } = await deps.db.transaction().execute(async (trx) => {
    const event = await deps.events.record(trx, TEST_EVENT_TYPE, object);
    const seq = (await eventSeqById(trx, event.id))!;
    const createdMs = Date.parse(event.created_at);
    const recorded: RecordedEvent = { seq, type: TEST_EVENT_TYPE, createdMs, createdAt: event.created_at };
    return { event, deliveryId: await queueDelivery(trx, id, recorded, createdMs + 60_000) };
  });
  const result = await deps.webhooks.worker.deliverNow(deliveryId, id);
  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  return {
    delivered: ok,
    status_code: result.statusCode,
    duration_ms: result.durationMs,
    error: result.error,
    response_excerpt: result.excerpt,
    event_id: event.id,
    delivery_id: deliveryId,
  };
}

export async function listDeliveries(db: Db, webhookId: string, query: ListQuery): Promise<ListPage<Partial<DeliveryRecord>>> {
  await getWebhook(db, webhookId);
  return runListQuery(selectDeliveries(db, webhookId), query, toDeliveryRecord);
}

export async function getDeliveryRecord(db: Db, webhookId: string, id: string): Promise<DeliveryRecord> {
  const row = await selectDeliveries(db, webhookId).where('webhook_deliveries.id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`delivery ${id} of webhook ${webhookId}`);
  return toDeliveryRecord(row);
}

/** Sends a delivery again now, whatever its state (a failed one gets one more attempt; a delivered one is redelivered). */
export async function retryDelivery(deps: WebhookDeps, webhookId: string, id: string): Promise<DeliveryRecord> {
  await getWebhook(deps.db, webhookId);
  if (!(await findDelivery(deps.db, webhookId, id))) throw notFound(`delivery ${id} of webhook ${webhookId}`);
  await updateDelivery(deps.db, id, { status: 'pending', next_attempt_ms: deps.clock.now(), updated_at: isoTime(deps.clock.now()) });
  deps.webhooks.worker.wake();
  return getDeliveryRecord(deps.db, webhookId, id);
}
