// The few statements that differ between the two engines, behind one interface picked from the handle's engine; feature
// code asks this module instead of testing the engine itself.
import { PostgresAdapter, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../schema.js';
import type { DbEngine } from '../db.js';
import { sqliteSql } from './sqlite-sql.js';
import { postgresSql } from './postgres-sql.js';

export interface EngineSql {
  readonly engine: DbEngine;
  /**
   * Call in a transaction before it inserts events: afterwards the events of concurrent transactions commit in seq
   * order, so a reader of `seq > last` never skips a row that commits later with a smaller seq.
   */
  lockEventOrder(trx: Kysely<Database>): Promise<void>;
  /** `value` rounded to `digits` decimals, as a double (PostgreSQL rounds only NUMERIC to a number of digits). */
  roundTo(value: RawBuilder<unknown>, digits: number): RawBuilder<number>;
  /**
   * The JSON array text of one object per row of the select `rows`, which the expressions in `pairs` and `orderBy`
   * reach as `alias`: each object `{ key: expression }`, rows in `orderBy` order; '[]' when there is no row.
   */
  jsonArrayOfObjects(
    pairs: ReadonlyArray<readonly [string, RawBuilder<unknown>]>,
    rows: RawBuilder<unknown>,
    alias: string,
    orderBy: RawBuilder<unknown>,
  ): RawBuilder<string>;
  /** Milliseconds since the epoch of an ISO text with its zone, as Date.parse gives them (an integer). */
  epochMs(iso: Expression<unknown>): RawBuilder<number>;
  /** The larger of two non-NULL values (SQLite's scalar max, PostgreSQL's GREATEST). */
  greatest(a: Expression<unknown>, b: Expression<unknown>): RawBuilder<number>;
  /** The JSON array text `array` (of strings) holds `value`, ASCII letters in either case (tags: 'PLA' finds 'pla'). */
  jsonArrayHas(array: Expression<unknown>, value: string): RawBuilder<SqlBool>;
  /**
   * `column` equals `value` ignoring case: the column is COLLATE NOCASE on SQLite and has a unique index on lower()
   * on PostgreSQL, and each form uses it.
   */
  equalsIgnoringCase(column: Expression<unknown>, value: string): RawBuilder<SqlBool>;
  /**
   * Turns off the database's own triggers inside transaction `trx` (printfarm db copy writes rows exactly as they were,
   * roll-ups included, so nothing may derive rows from them meanwhile); the returned function turns them on again in
   * the same transaction. A rolled-back transaction leaves the triggers as they were.
   */
  suspendTriggers(trx: Kysely<Database>): Promise<() => Promise<void>>;
  /** The highest value an identity column ever handed out (rows since deleted included), null when never used. */
  identityHighWater(db: Kysely<Database>, table: string, column: string): Promise<number | null>;
  /** Makes the identity hand out values above `value` next (it never goes back below what it already handed out). */
  raiseIdentity(trx: Kysely<Database>, table: string, column: string, value: number): Promise<void>;
}

export function engineSql(engine: DbEngine): EngineSql {
  return engine === 'postgres' ? postgresSql : sqliteSql;
}

/** The engine of a kysely instance or transaction, for repository code that has only `db` in hand. */
export function engineSqlOf(db: Kysely<Database>): EngineSql {
  return engineSql(db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite');
}
