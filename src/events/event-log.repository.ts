// The events table: append inside the caller's transaction, read back in commit order, find a resume point, prune.
import type { Kysely, Selectable } from 'kysely';
import type { Database, EventTable } from '../storage/schema.js';

export type EventRow = Selectable<EventTable>;
type Q = Kysely<Database>;

export async function insertEvent(db: Q, row: Omit<EventRow, 'seq'>): Promise<number> {
  const out = await db.insertInto('events').values(row).returning('seq').executeTakeFirstOrThrow();
  return out.seq;
}

export async function eventsAfter(db: Q, seq: number, limit: number): Promise<EventRow[]> {
  return db.selectFrom('events').selectAll().where('seq', '>', seq).orderBy('seq').limit(limit).execute();
}

export async function latestEventSeq(db: Q): Promise<number> {
  const row = await db.selectFrom('events').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
  return Number(row?.seq ?? 0);
}

export async function eventSeqById(db: Q, id: string): Promise<number | undefined> {
  return (await db.selectFrom('events').select('seq').where('id', '=', id).executeTakeFirst())?.seq;
}

/** The oldest retained seq minus one: where a stream resumes when its Last-Event-ID was pruned. */
export async function oldestEventSeq(db: Q): Promise<number> {
  const row = await db.selectFrom('events').select((eb) => eb.fn.min('seq').as('seq')).executeTakeFirst();
  return Number(row?.seq ?? 0);
}

/** Removes events older than `beforeMs`, except those a delivery still waits to send. Returns how many went. */
export async function pruneEvents(db: Q, beforeMs: number): Promise<number> {
  const res = await db
    .deleteFrom('events')
    .where('created_ms', '<', beforeMs)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries')
            .select('webhook_deliveries.id')
            .whereRef('webhook_deliveries.event_seq', '=', 'events.seq')
            .where('webhook_deliveries.status', '=', 'pending'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
