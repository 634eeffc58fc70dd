// The webhooks table: CRUD rows, the enabled subscribers an event fans out to, and the per-webhook sequence counter.
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database, WebhookTable } from '../storage/schema.js';

export type WebhookRow = Selectable<WebhookTable>;
type Q = Kysely<Database>;

export async function insertWebhook(db: Q, row: Insertable<WebhookTable>): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export async function findWebhook(db: Q, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateWebhook(db: Q, id: string, patch: Updateable<WebhookTable>): Promise<void> {
  await db.updateTable('webhooks').set(patch).where('id', '=', id).execute();
}

export async function deleteWebhook(db: Q, id: string): Promise<boolean> {
  const res = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function countWebhooks(db: Q): Promise<number> {
  const row = await db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export const selectWebhooks = (db: Q) => db.selectFrom('webhooks').selectAll();

export async function enabledWebhooks(db: Q): Promise<Pick<WebhookRow, 'id' | 'events'>[]> {
  return db.selectFrom('webhooks').select(['id', 'events']).where('enabled', '=', 1).execute();
}

/** Takes the next per-webhook sequence number; inside the recording transaction, so numbers have no holes. */
export async function takeWebhookSeq(db: Q, id: string): Promise<number> {
  const row = await db
    .updateTable('webhooks')
    .set((eb) => ({ last_seq: eb('last_seq', '+', 1) }))
    .where('id', '=', id)
    .returning('last_seq')
    .executeTakeFirstOrThrow();
  return row.last_seq;
}
