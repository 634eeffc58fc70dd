// Reads a whole table in batches ordered by its primary key (keyset paging: each batch starts after the last key seen),
// the same statement on both engines, so a large table never sits in memory at once.
import { sql, type Kysely } from 'kysely';
import type { CopyTable } from './copy-tables.js';

export type Row = Record<string, unknown>;

export async function* tableBatches(db: Kysely<any>, table: CopyTable, batchRows: number): AsyncGenerator<Row[]> {
  const keys = sql.join(table.key.map((k) => sql.ref(k)));
  let after: unknown[] | null = null;
  for (;;) {
    const where: ReturnType<typeof sql> = after === null ? sql`` : sql`WHERE (${keys}) > (${sql.join(after)})`;
    const { rows } = await sql<Row>`SELECT * FROM ${sql.table(table.name)} ${where} ORDER BY ${keys} LIMIT ${batchRows}`.execute(db);
    if (rows.length > 0) yield rows;
    if (rows.length < batchRows) return;
    const last = rows[rows.length - 1]!;
    after = table.key.map((k) => last[k]);
  }
}
