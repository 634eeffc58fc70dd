// Rows of the cameras table.
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { CameraTable, Database } from '../storage/schema.js';

type Q = Kysely<Database>;
export type CameraRow = Selectable<CameraTable>;

export async function insertCamera(db: Q, row: Insertable<CameraTable>): Promise<void> {
  await db.insertInto('cameras').values(row).execute();
}

export async function findCamera(db: Q, id: string): Promise<CameraRow | undefined> {
  return db.selectFrom('cameras').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateCamera(db: Q, id: string, patch: Updateable<CameraTable>): Promise<void> {
  await db.updateTable('cameras').set(patch).where('id', '=', id).execute();
}

export async function deleteCamera(db: Q, id: string): Promise<boolean> {
  const res = await db.deleteFrom('cameras').where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function camerasOfPrinter(db: Q, printerId: string): Promise<CameraRow[]> {
  return db.selectFrom('cameras').selectAll().where('printer_id', '=', printerId).orderBy('created_at').orderBy('id').execute();
}

/** The base select for the list endpoint: the list-query helper adds filters, order and paging. */
export const selectCameras = (db: Q) => db.selectFrom('cameras').selectAll();
