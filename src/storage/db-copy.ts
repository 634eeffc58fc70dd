// Copies every row of one printfarm database into another (either engine to either engine) in one target transaction,
// ids, timestamps and roll-ups as they are, then verifies each table by row count and checksum.
import type { Kysely } from 'kysely';
import type { DbHandle } from './db.js';
import { COPY_TABLES, FARM_TABLES, type CopyTable } from './copy-tables.js';
import { engineSql } from './engines/engine-sql.js';
import { compareSums, tableSums, type TableCheck, type TableSum } from './table-checksums.js';
import { tableBatches, type Row } from './table-rows.js';

export class TargetNotEmptyError extends Error {
  constructor(readonly tables: ReadonlyArray<{ table: string; rows: number }>) {
    super(
      `the target database already holds farm data (${tables.map((t) => `${t.table}: ${t.rows}`).join(', ')}); ` +
        'copy into an empty database, or pass --force to replace everything in it',
    );
    this.name = 'TargetNotEmptyError';
  }
}

export interface CopyOptions {
  /** Replace whatever the target holds (its rows are deleted in the same transaction as the copy). */
  force?: boolean;
  /**
   * Tables whose rows stay behind (the target's are still removed) and are left out of the checks: a backup out of
   * PostgreSQL leaves file_chunks to --with-files, so the archive's database does not carry every file's content.
   */
  skipRows?: readonly string[];
  /** Called after each table with its row count. */
  onTable?(table: string, rows: number): void;
}

export interface CopyResult {
  checks: TableCheck[];
  ok: boolean;
}

/** Most columns any table has (jobs): keeps a batch's parameters below SQLite's limit of 32766. */
const MAX_PARAMS = 30_000;
const DEFAULT_BATCH = 500;

async function farmRowCounts(db: Kysely<any>): Promise<Array<{ table: string; rows: number }>> {
  const counts: Array<{ table: string; rows: number }> = [];
  for (const t of FARM_TABLES) {
    const r = await db.selectFrom(t.name).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    if (Number(r.n) > 0) counts.push({ table: t.name, rows: Number(r.n) });
  }
  return counts;
}

async function copyTable(source: Kysely<any>, target: Kysely<any>, table: CopyTable): Promise<number> {
  let copied = 0;
  const later: Row[] = [];
  const selfRefs = table.selfRefs ?? [];
  for await (const batch of tableBatches(source, table, table.batchRows ?? DEFAULT_BATCH)) {
    // Self-references are written once all rows exist: a row may point at one that sorts after it.
    const rows = batch.map((row) => {
      if (selfRefs.some((c) => row[c] !== null)) later.push(row);
      return selfRefs.length === 0 ? row : { ...row, ...Object.fromEntries(selfRefs.map((c) => [c, null])) };
    });
    const perInsert = Math.max(1, Math.floor(MAX_PARAMS / Object.keys(rows[0]!).length));
    for (let i = 0; i < rows.length; i += perInsert) await target.insertInto(table.name).values(rows.slice(i, i + perInsert)).execute();
    copied += batch.length;
  }
  for (const row of later) {
    let update = target.updateTable(table.name).set(Object.fromEntries(selfRefs.map((c) => [c, row[c]])));
    for (const k of table.key) update = update.where(k, '=', row[k]);
    await update.execute();
  }
  return copied;
}

/**
 * Reads the source in one snapshot (REPEATABLE READ on PostgreSQL, a read transaction on SQLite) and writes the target
 * in one transaction: a failure leaves the target as it was. The target's triggers are off meanwhile, so roll-ups are
 * the source's rows exactly and nothing is derived twice; identity high-water marks (events.seq) move with the rows.
 */
export async function copyDatabase(from: DbHandle, to: DbHandle, options: CopyOptions = {}): Promise<CopyResult> {
  const sourceSql = engineSql(from.engine);
  const targetSql = engineSql(to.engine);
  const skipped = new Set(options.skipRows ?? []);
  const tables = COPY_TABLES.filter((t) => !skipped.has(t.name));
  const snapshot = from.engine === 'postgres' ? from.db.transaction().setIsolationLevel('repeatable read') : from.db.transaction();
  const sourceSums: TableSum[] = await snapshot.execute(async (src) => {
    const source = src as unknown as Kysely<any>;
    await to.db.transaction().execute(async (trx) => {
      const target = trx as unknown as Kysely<any>;
      const present = await farmRowCounts(target);
      if (present.length > 0 && !options.force) throw new TargetNotEmptyError(present);
      const resumeTriggers = await targetSql.suspendTriggers(trx);
      // schema_version too: the migration's own rows give way to the source's (same versions, their original dates).
      for (const t of [...COPY_TABLES].reverse()) await target.deleteFrom(t.name).execute();
      for (const t of tables) {
        const rows = await copyTable(source, target, t);
        if (t.identity) {
          const highWater = await sourceSql.identityHighWater(src, t.name, t.identity);
          if (highWater !== null) await targetSql.raiseIdentity(trx, t.name, t.identity, highWater);
        }
        options.onTable?.(t.name, rows);
      }
      await resumeTriggers();
    });
    return tableSums(source, tables);
  });
  const checks = compareSums(sourceSums, await tableSums(to.db as unknown as Kysely<any>, tables));
  return { checks, ok: checks.every((c) => c.ok) };
}
