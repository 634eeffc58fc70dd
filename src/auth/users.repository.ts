// Rows of the users table.
import type { Kysely, Selectable } from 'kysely';
import type { Database, UserTable } from '../storage/schema.js';

export type UserRow = Selectable<UserTable>;
type Q = Kysely<Database>;

export async function insertUser(db: Q, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findUserById(db: Q, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Email comparison is case-insensitive (the column is COLLATE NOCASE). */
export async function findUserByEmail(db: Q, email: string): Promise<UserRow | undefined> {
  // Case-insensitive on both engines: SQLite's column is COLLATE NOCASE, PostgreSQL's unique index is on lower(email).
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', eb.fn('lower', [eb.val(email)])))
    .executeTakeFirst();
}

export async function findOwner(db: Q): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('role', '=', 'owner').orderBy('created_at').limit(1).executeTakeFirst();
}

/** The base select for lists: the list-query helper adds filters, order and paging. */
export const selectUsers = (db: Q) => db.selectFrom('users').selectAll();
