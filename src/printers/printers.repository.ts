// Rows of the printers table.
import type { Kysely, Updateable } from 'kysely';
import type { Database, PrinterTable } from '../storage/schema.js';
import type { PrinterRow } from './printer-record.js';

type Q = Kysely<Database>;

export async function insertPrinter(db: Q, row: PrinterRow): Promise<void> {
  await db.insertInto('printers').values(row).execute();
}

export async function findPrinterById(db: Q, id: string): Promise<PrinterRow | undefined> {
  return db.selectFrom('printers').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function allPrinters(db: Q): Promise<PrinterRow[]> {
  return db.selectFrom('printers').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function updatePrinter(db: Q, id: string, patch: Updateable<PrinterTable>): Promise<void> {
  await db.updateTable('printers').set(patch).where('id', '=', id).execute();
}

export async function deletePrinter(db: Q, id: string): Promise<boolean> {
  const res = await db.deleteFrom('printers').where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** The base select for lists: the list-query helper adds filters, order and paging. */
export const selectPrinters = (db: Q) => db.selectFrom('printers').selectAll();
