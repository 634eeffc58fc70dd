// Rows of the api_keys table: function-style queries taking a kysely handle (the database or a transaction).
import type { Kysely, Selectable } from 'kysely';
import type { ApiKeyTable, Database } from '../storage/schema.js';

export type ApiKeyRow = Selectable<ApiKeyTable>;
type Q = Kysely<Database>;

export async function insertApiKey(db: Q, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function findApiKeyById(db: Q, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findApiKeyByHash(db: Q, hash: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
}

/** Keys of one environment with this display prefix (Digest names a key by it). */
export async function findApiKeysByPrefix(db: Q, env: string, prefix: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('env', '=', env).where('prefix', '=', prefix).execute();
}

/** The base select of a key listing (one environment): the list-query helper adds filters, order and paging. */
export const selectApiKeys = (db: Q, env: string) => db.selectFrom('api_keys').selectAll().where('env', '=', env);

export async function updateApiKey(
  db: Q,
  id: string,
  patch: Partial<Pick<ApiKeyRow, 'revoked_at' | 'expires_at' | 'rolled_to' | 'last_used_at'>>,
): Promise<void> {
  await db.updateTable('api_keys').set(patch).where('id', '=', id).execute();
}

/** Moves last_used_at forward only: a late flush never overwrites a newer value. */
export async function writeLastUsed(db: Q, id: string, iso: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: iso })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', iso)]))
    .execute();
}
