// Rows of the sessions table: function-style queries taking a kysely handle (the database or a transaction).
import type { Kysely, Selectable } from 'kysely';
import type { Database, SessionTable } from '../storage/schema.js';

export type SessionRow = Selectable<SessionTable>;
type Q = Kysely<Database>;

export async function insertSession(db: Q, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export async function findSessionByTokenHash(db: Q, tokenHash: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function findSessionById(db: Q, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function deleteSession(db: Q, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** Moves last_seen_at forward only: a late write never takes it back. */
export async function writeLastSeen(db: Q, id: string, iso: string): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: iso }).where('id', '=', id).where('last_seen_at', '<', iso).execute();
}

/** Deletes every session past its lifetime or idle deadline (ISO strings of one format compare in time order); returns how many. */
export async function deleteEndedSessions(db: Q, cutoffs: { createdBefore: string; lastSeenBefore: string }): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('created_at', '<=', cutoffs.createdBefore), eb('last_seen_at', '<=', cutoffs.lastSeenBefore)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Keeps the `keep` newest sessions of one user or one key and deletes the rest. */
export async function trimSessions(db: Q, owner: { column: 'user_id' | 'api_key_id'; id: string }, keep: number): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where(owner.column, '=', owner.id)
    .where('id', 'not in', (eb) =>
      eb.selectFrom('sessions').select('id').where(owner.column, '=', owner.id).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(keep),
    )
    .execute();
}
