// Rows of the users table.
import { engineSqlOf } from '../storage/engines/engine-sql.js';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, UserTable } from '../storage/schema.js';

export type UserRow = Selectable<UserTable>;
type Q = Kysely<Database>;

export async function insertUser(db: Q, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findUserById(db: Q, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Email comparison is case-insensitive (SQLite: the column is COLLATE NOCASE; PostgreSQL: lower() on both sides). */
export async function findUserByEmail(db: Q, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where(engineSqlOf(db).equalsIgnoringCase(sql.ref('email'), email)).executeTakeFirst();
}

export async function findOwner(db: Q): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('role', '=', 'owner').orderBy('created_at').limit(1).executeTakeFirst();
}

/** The base select for lists: the list-query helper adds filters, order and paging. */
export const selectUsers = (db: Q) => db.selectFrom('users').selectAll();
