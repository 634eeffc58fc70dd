// Rows touched when an invitation is accepted: the invited user found by token hash, its activation and its password.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { UserRow } from './users.repository.js';

type Q = Kysely<Database>;

export async function findUserByInviteTokenHash(db: Q, tokenHash: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('invite_token_hash', '=', tokenHash).executeTakeFirst();
}

/**
 * Activates the user and stores its password in one transaction. The update matches the token hash, so of two
 * requests racing with one token exactly one wins; returns false for the loser.
 */
export async function activateWithPassword(
  db: Q,
  input: { userId: string; tokenHash: string; passwordHash: string; now: string },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('users')
      .set({ status: 'active', invite_token_hash: null, updated_at: input.now })
      .where('id', '=', input.userId)
      .where('invite_token_hash', '=', input.tokenHash)
      .where('status', '=', 'invited')
      .executeTakeFirst();
    if (updated.numUpdatedRows !== 1n) return false;
    await trx
      .insertInto('user_passwords')
      .values({ user_id: input.userId, hash: input.passwordHash, set_at: input.now })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ hash: input.passwordHash, set_at: input.now }))
      .execute();
    return true;
  });
}

export async function findPasswordHash(db: Q, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('user_passwords').select('hash').where('user_id', '=', userId).executeTakeFirst();
  return row?.hash;
}
