// Which key this database's secrets are sealed under, and which node initialized it: the first node to start writes a
// fingerprint of PRINTFARM_SECRET_KEY; every other node compares its own and refuses to start on a different key.
import type { Db } from '../storage/db.js';

export const SECRET_MISMATCH_HINT =
  'start every node sharing this database with the same PRINTFARM_SECRET_KEY (copy it from the node that first started on it); ' +
  'a different key cannot open the printer credentials stored there';

/** This node's key is not the one the database was initialized with. */
export class SecretKeyMismatchError extends Error {
  constructor(createdBy: string | null) {
    super(`this node's secret key differs from the one the database was initialized with${createdBy ? ` (by node ${createdBy})` : ''}: ${SECRET_MISMATCH_HINT}`);
    this.name = 'SecretKeyMismatchError';
  }
}

export interface IdentityClaim {
  /** This node won the insert: it is the one that initializes the database (organization, first admin key). */
  first: boolean;
  /** The node that wrote the identity row (this one when first). */
  createdBy: string | null;
}

/**
 * Writes the identity row when absent (INSERT … ON CONFLICT DO NOTHING: of several nodes starting at once exactly one
 * inserts it, on both engines), then compares the stored fingerprint with this node's. An existing single-box database
 * gets its row on its first start after the upgrade, from the key it has always used.
 */
export async function claimDatabaseIdentity(db: Db, input: { secretKeyCheck: string; nodeId: string; nowIso: string }): Promise<IdentityClaim> {
  const inserted = await db
    .insertInto('database_identity')
    .values({ id: 1, secret_key_check: input.secretKeyCheck, created_by_node: input.nodeId, created_at: input.nowIso })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  const first = Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
  const row = await db.selectFrom('database_identity').select(['secret_key_check', 'created_by_node']).where('id', '=', 1).executeTakeFirstOrThrow();
  if (row.secret_key_check !== input.secretKeyCheck) throw new SecretKeyMismatchError(row.created_by_node);
  return { first, createdBy: row.created_by_node };
}
