// The notification_channels table: channels with their rule, sealed secrets and pause state; and the one-row settings.
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database, NotificationChannelTable } from '../storage/schema.js';

export type ChannelRow = Selectable<NotificationChannelTable>;
type Q = Kysely<Database>;

export const insertChannel = async (db: Q, row: Insertable<NotificationChannelTable>): Promise<void> => {
  await db.insertInto('notification_channels').values(row).execute();
};
export const findChannel = (db: Q, id: string): Promise<ChannelRow | undefined> =>
  db.selectFrom('notification_channels').selectAll().where('id', '=', id).executeTakeFirst();
export const allChannels = (db: Q): Promise<ChannelRow[]> => db.selectFrom('notification_channels').selectAll().orderBy('created_at').orderBy('id').execute();
export const updateChannel = async (db: Q, id: string, patch: Updateable<NotificationChannelTable>): Promise<void> => {
  await db.updateTable('notification_channels').set(patch).where('id', '=', id).execute();
};
export const deleteChannel = async (db: Q, id: string): Promise<boolean> =>
  Number((await db.deleteFrom('notification_channels').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0;
/** Channels that receive events (paused ones too: their messages wait for the resume). */
export const enabledChannels = (db: Q): Promise<ChannelRow[]> => db.selectFrom('notification_channels').selectAll().where('enabled', '=', 1).execute();
/** Channels the worker sends on now: enabled and not paused. */
export const sendingChannelIds = async (db: Q): Promise<string[]> =>
  (await db.selectFrom('notification_channels').select('id').where('enabled', '=', 1).where('paused_reason', 'is', null).orderBy('id').execute()).map((r) => r.id);

const SETTINGS_ID = 'farm';
export async function dashboardUrlOf(db: Q): Promise<string | null> {
  const row = await db.selectFrom('notification_settings').select('dashboard_url').where('id', '=', SETTINGS_ID).executeTakeFirst();
  return row?.dashboard_url ?? null;
}
export async function setDashboardUrl(db: Q, url: string | null, nowIso: string): Promise<void> {
  await db
    .insertInto('notification_settings')
    .values({ id: SETTINGS_ID, dashboard_url: url, updated_at: nowIso })
    .onConflict((oc) => oc.column('id').doUpdateSet({ dashboard_url: url, updated_at: nowIso }))
    .execute();
}
