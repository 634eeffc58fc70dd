// Reads what a message needs from the database (its events, printer names, the farm's time zone and dashboard link)
// and builds the person message; the wording itself is pure (person-message.ts).
import { findOrganization } from '../auth/organization.repository.js';
import type { PublicEvent } from '../events/public-event.js';
import type { Db } from '../storage/db.js';
import { dashboardUrlOf } from './channels.repository.js';
import { eventsBySeq, type NotificationDeliveryRow } from './notification-deliveries.repository.js';
import { buildMessage, testMessage, type MessageContext, type NotifyEvent, type PersonMessage } from './person-message.js';

export async function messageContext(db: Db): Promise<MessageContext> {
  const [org, dashboardUrl, printers] = await Promise.all([findOrganization(db), dashboardUrlOf(db), db.selectFrom('printers').select(['id', 'name']).execute()]);
  const names = new Map(printers.map((p) => [p.id, p.name]));
  return { timeZone: org?.timezone ?? 'UTC', dashboardUrl: dashboardUrl?.replace(/\/+$/, '') ?? null, printerName: (id) => names.get(id) };
}

/** The message of a delivery row; null when its events were all pruned from the log meanwhile. */
export async function composeMessage(db: Db, row: NotificationDeliveryRow, nowMs: number): Promise<PersonMessage | null> {
  const ctx = await messageContext(db);
  if (row.mode === 'test') return testMessage(ctx, nowMs);
  const rows = await eventsBySeq(db, JSON.parse(row.event_seqs) as number[]);
  if (rows.length === 0) return null;
  const events: NotifyEvent[] = rows.map((r) => ({
    type: r.type,
    createdMs: Number(r.created_ms),
    object: ((JSON.parse(r.body) as PublicEvent).data?.object ?? {}) as Record<string, unknown>,
  }));
  return buildMessage(events, ctx, row.mode === 'digest');
}

/** The addresses of the channel's users (per-user email rules); users without an address are skipped. */
export async function userEmails(db: Db, userIds: readonly string[]): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await db.selectFrom('users').select('email').where('id', 'in', userIds).where('status', '=', 'active').execute();
  return rows.map((r) => r.email).filter((e) => e.includes('@'));
}
