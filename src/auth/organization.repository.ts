// The single organization row of an install.
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database, OrganizationTable } from '../storage/schema.js';

export type OrganizationRow = Selectable<OrganizationTable>;
type Q = Kysely<Database>;

export async function findOrganization(db: Q): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organization').selectAll().orderBy('created_at').limit(1).executeTakeFirst();
}

export async function insertOrganization(db: Q, row: Insertable<OrganizationTable>): Promise<void> {
  await db.insertInto('organization').values(row).execute();
}

export async function updateOrganization(db: Q, id: string, patch: Updateable<OrganizationTable>): Promise<void> {
  await db.updateTable('organization').set(patch).where('id', '=', id).execute();
}
