// Row count and checksum of each table, computed the same way on both engines: SHA-256 of each row's canonical JSON
// (columns by name, numbers as JS numbers, bytes as base64), summed modulo 2^256 so the order rows arrive in (which
// follows each engine's collation) does not matter while any changed, missing or extra row does.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { CopyTable } from './copy-tables.js';
import { tableBatches, type Row } from './table-rows.js';

export interface TableSum {
  table: string;
  rows: number;
  checksum: string;
}

const MOD = 1n << 256n;

function canonicalValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return { bytes: Buffer.from(v).toString('base64') };
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return Object.is(v, -0) ? 0 : v;
  return v;
}

/** The canonical text of one row: [column, value] pairs sorted by column name. */
export function canonicalRow(row: Row): string {
  return JSON.stringify(Object.keys(row).sort().map((k) => [k, canonicalValue(row[k])]));
}

export async function tableSum(db: Kysely<any>, table: CopyTable, batchRows = 1000): Promise<TableSum> {
  let sum = 0n;
  let rows = 0;
  for await (const batch of tableBatches(db, table, batchRows)) {
    for (const row of batch) {
      sum = (sum + BigInt(`0x${createHash('sha256').update(canonicalRow(row)).digest('hex')}`)) % MOD;
      rows++;
    }
  }
  return { table: table.name, rows, checksum: sum.toString(16).padStart(64, '0') };
}

export async function tableSums(db: Kysely<any>, tables: readonly CopyTable[]): Promise<TableSum[]> {
  const sums: TableSum[] = [];
  for (const t of tables) sums.push(await tableSum(db, t, t.batchRows ?? 1000));
  return sums;
}

export interface TableCheck {
  table: string;
  sourceRows: number;
  targetRows: number;
  sourceChecksum: string;
  targetChecksum: string;
  ok: boolean;
}

export function compareSums(source: readonly TableSum[], target: readonly TableSum[]): TableCheck[] {
  return source.map((s) => {
    const t = target.find((x) => x.table === s.table) ?? { rows: -1, checksum: '' };
    return {
      table: s.table,
      sourceRows: s.rows,
      targetRows: t.rows,
      sourceChecksum: s.checksum,
      targetChecksum: t.checksum,
      ok: s.rows === t.rows && s.checksum === t.checksum,
    };
  });
}
