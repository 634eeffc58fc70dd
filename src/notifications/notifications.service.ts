// Channel management behind /v1/notifications: create and change channels (secrets sealed, never returned), resume a
// paused one, Send test, the delivery log, and the dashboard link messages use.
import { isoTime } from '../clock.js';
import { badRequest, notFound } from '../errors.js';
import { validateOrThrow } from '../http/validation.js';
import { randomBase62 } from '../ids.js';
import type { SecretSealer } from '../auth/api-key-digest.js';
import type { Db } from '../storage/db.js';
import type { Clock } from '../clock.js';
import { openSecrets, sealSecrets, secretsSet } from './channel-secrets.js';
import { REQUIRED_SECRETS, SETTING_DEFAULTS, type ChannelKind } from './channel-kinds.js';
import { allChannels, deleteChannel, findChannel, insertChannel, setDashboardUrl, dashboardUrlOf, updateChannel, type ChannelRow } from './channels.repository.js';
import { channelLog, insertNotificationDelivery } from './notification-deliveries.repository.js';
import { newNotificationId } from './notification-outbox.js';
import type { NotificationWorker } from './notification-worker.js';
import { ChannelCreateBody, type ChannelCreate, type ChannelUpdate } from './notifications.schemas.js';
import { hhmmOf, minutesOf } from './quiet-hours.js';
import type { SendResult } from './send-outcome.js';

export interface NotificationDeps {
  db: Db;
  clock: Clock;
  secrets: SecretSealer;
  notifications: { worker: NotificationWorker };
}

const newChannelId = (): string => `nch_${randomBase62(16)}`;

export function toChannelRecord(row: ChannelRow) {
  const paused = row.paused_reason !== null;
  const failures = Number(row.failures_in_a_row);
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    events: JSON.parse(row.events) as string[],
    settings: JSON.parse(row.settings) as Record<string, unknown>,
    secrets_set: secretsSet(row),
    user_ids: JSON.parse(row.user_ids) as string[],
    quiet_hours: row.quiet_start_min !== null && row.quiet_end_min !== null ? { start: hhmmOf(Number(row.quiet_start_min)), end: hhmmOf(Number(row.quiet_end_min)) } : null,
    enabled: row.enabled === 1,
    status: row.enabled !== 1 ? 'disabled' : paused ? 'paused' : failures > 0 ? 'failing' : 'ok',
    paused_reason: row.paused_reason,
    failures_in_a_row: failures,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function checkSecrets(kind: ChannelKind, secrets: Record<string, string>): void {
  const missing = REQUIRED_SECRETS[kind].filter((n) => !secrets[n]);
  if (missing.length > 0) throw badRequest(`secrets: a ${kind} channel needs ${missing.join(' and ')}`);
}

async function checkUsers(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = new Set((await db.selectFrom('users').select('id').where('id', 'in', ids).execute()).map((r) => r.id));
  const unknown = ids.filter((id) => !found.has(id));
  if (unknown.length > 0) throw badRequest(`user_ids: no user ${unknown.join(', ')}`);
}

const quietColumns = (q: { start: string; end: string } | null | undefined) =>
  q === undefined ? {} : { quiet_start_min: q ? minutesOf(q.start) : null, quiet_end_min: q ? minutesOf(q.end) : null };

export async function createChannel(deps: NotificationDeps, body: ChannelCreate): Promise<ChannelRow> {
  const secrets = (body.secrets ?? {}) as Record<string, string>;
  checkSecrets(body.kind, secrets);
  const userIds = 'user_ids' in body ? (body.user_ids ?? []) : [];
  await checkUsers(deps.db, userIds);
  const id = newChannelId();
  const now = isoTime(deps.clock.now());
  await insertChannel(deps.db, {
    id,
    kind: body.kind,
    name: body.name,
    settings: JSON.stringify({ ...SETTING_DEFAULTS[body.kind], ...body.settings }),
    secret_sealed: sealSecrets(deps.secrets, id, secrets),
    events: JSON.stringify(body.events),
    user_ids: JSON.stringify(userIds),
    quiet_start_min: null,
    quiet_end_min: null,
    ...quietColumns(body.quiet_hours),
    enabled: body.enabled === false ? 0 : 1,
    paused_reason: null,
    created_at: now,
    updated_at: now,
  });
  return (await findChannel(deps.db, id))!;
}

export async function getChannel(db: Db, id: string): Promise<ChannelRow> {
  const row = await findChannel(db, id);
  if (!row) throw notFound('notification channel', id);
  return row;
}

export async function listChannels(db: Db) {
  return { data: (await allChannels(db)).map(toChannelRecord) };
}

export async function patchChannel(deps: NotificationDeps, id: string, body: ChannelUpdate): Promise<ChannelRow> {
  const row = await getChannel(deps.db, id);
  const kind = row.kind;
  const settings = body.settings ? { ...SETTING_DEFAULTS[kind], ...body.settings } : (JSON.parse(row.settings) as Record<string, unknown>);
  const secrets = body.secrets ?? openSecrets(deps.secrets, row);
  // The changed channel must still be a valid one of its kind: checked with the create schema.
  validateOrThrow(ChannelCreateBody, { kind, name: body.name ?? row.name, events: body.events ?? JSON.parse(row.events), settings: body.settings ?? settings, secrets }, 'body');
  checkSecrets(kind, secrets);
  if (body.user_ids !== undefined) {
    if (kind !== 'email') throw badRequest('user_ids: only an email channel writes to users');
    await checkUsers(deps.db, body.user_ids);
  }
  const now = isoTime(deps.clock.now());
  const resume = body.paused === false && row.paused_reason !== null;
  await updateChannel(deps.db, id, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.events !== undefined ? { events: JSON.stringify(body.events) } : {}),
    ...(body.settings !== undefined ? { settings: JSON.stringify(settings) } : {}),
    ...(body.secrets !== undefined ? { secret_sealed: sealSecrets(deps.secrets, id, body.secrets) } : {}),
    ...(body.user_ids !== undefined ? { user_ids: JSON.stringify(body.user_ids) } : {}),
    ...quietColumns(body.quiet_hours),
    ...(body.enabled !== undefined ? { enabled: body.enabled ? 1 : 0 } : {}),
    ...(resume ? { paused_reason: null, failures_in_a_row: 0 } : {}),
    updated_at: now,
  });
  // Resumed or re-enabled: the waiting messages go out now.
  deps.notifications.worker.wake();
  return (await findChannel(deps.db, id))!;
}

export async function removeChannel(db: Db, id: string): Promise<void> {
  if (!(await deleteChannel(db, id))) throw notFound('notification channel', id);
}

/** Send test: a message of its own, sent at once whatever the channel's state, and its outcome. */
export async function sendTest(deps: NotificationDeps, id: string): Promise<Pick<SendResult, 'ok' | 'status' | 'error'>> {
  await getChannel(deps.db, id);
  const nowMs = deps.clock.now();
  const deliveryId = newNotificationId();
  await insertNotificationDelivery(deps.db, {
    id: deliveryId,
    channel_id: id,
    event_seqs: '[]',
    mode: 'test',
    status: 'pending',
    attempts: 0,
    // Far in the future: only this request sends it (the worker's passes leave it alone).
    next_attempt_ms: Number.MAX_SAFE_INTEGER,
    leased_by: null,
    title: null,
    last_status: null,
    last_error: null,
    created_at: isoTime(nowMs),
    updated_at: isoTime(nowMs),
    delivered_at: null,
  });
  const r = await deps.notifications.worker.sendNow(deliveryId);
  return { ok: r.ok, status: r.status, error: r.error };
}

export async function deliveryLog(db: Db, id: string, limit = 100) {
  await getChannel(db, id);
  const rows = await channelLog(db, id, limit);
  return {
    data: rows.map((r) => ({
      id: r.id,
      channel_id: r.channel_id,
      mode: r.mode,
      events: (JSON.parse(r.event_seqs) as number[]).length,
      title: r.title,
      status: r.status,
      attempts: Number(r.attempts),
      next_attempt_at: r.status === 'pending' && r.next_attempt_ms !== null && Number(r.next_attempt_ms) < Number.MAX_SAFE_INTEGER ? isoTime(Number(r.next_attempt_ms)) : null,
      last_status: r.last_status,
      error: r.last_error,
      created_at: r.created_at,
      updated_at: r.updated_at,
      delivered_at: r.delivered_at,
    })),
  };
}

export const getSettings = async (db: Db) => ({ dashboard_url: await dashboardUrlOf(db) });
export async function putSettings(deps: Pick<NotificationDeps, 'db' | 'clock'>, url: string | null) {
  await setDashboardUrl(deps.db, url, isoTime(deps.clock.now()));
  return getSettings(deps.db);
}
