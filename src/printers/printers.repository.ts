// Rows of the printers table.
import { sql, type Kysely, type Updateable } from 'kysely';
import { engineSqlOf } from '../storage/engines/engine-sql.js';
import type { Database, PrinterTable } from '../storage/schema.js';
import type { PrinterRow } from './printer-record.js';

type Q = Kysely<Database>;

/** The spools loaded on the printer's tools (the materials table), as a JSON array ordered by tool, for the record. */
const loadedSpools = (db: Q) => {
  const s = engineSqlOf(db);
  const pairs = (['id', 'tool', 'type', 'color'] as const).map((c) => [c, sql.ref(`m.${c}`)] as const);
  return s
    .jsonArrayOfObjects(
      [...pairs, ['remaining_weight', s.roundTo(sql.ref('m.remaining_weight'), 2)]],
      sql`select * from materials where materials.printer_id = printers.id`,
      'm',
      sql.ref('m.tool'),
    )
    .as('loaded_spools');
};

export async function insertPrinter(db: Q, row: PrinterRow): Promise<void> {
  await db.insertInto('printers').values(row).execute();
}

export async function findPrinterById(db: Q, id: string): Promise<PrinterRow | undefined> {
  return db.selectFrom('printers').selectAll().select(loadedSpools(db)).where('id', '=', id).executeTakeFirst();
}

export async function allPrinters(db: Q): Promise<PrinterRow[]> {
  return db.selectFrom('printers').selectAll().select(loadedSpools(db)).orderBy('created_at').orderBy('id').execute();
}

export async function updatePrinter(db: Q, id: string, patch: Updateable<PrinterTable>): Promise<void> {
  await db.updateTable('printers').set(patch).where('id', '=', id).execute();
}

export async function deletePrinter(db: Q, id: string): Promise<boolean> {
  // Its spools stay in the inventory, unloaded.
  await db.updateTable('materials').set({ printer_id: null }).where('printer_id', '=', id).execute();
  const res = await db.deleteFrom('printers').where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** The base select for lists: the list-query helper adds filters, order and paging. */
export const selectPrinters = (db: Q) => db.selectFrom('printers').selectAll().select(loadedSpools(db));

/** The status of the job printing or paused on the printer (the rows' word, for a printer whose session is elsewhere). */
export async function activeJobStatus(db: Q, printerId: string): Promise<'printing' | 'paused' | undefined> {
  const row = await db.selectFrom('jobs').select('status').where('printer_id', '=', printerId).where('status', 'in', ['printing', 'paused']).executeTakeFirst();
  return row?.status as 'printing' | 'paused' | undefined;
}
