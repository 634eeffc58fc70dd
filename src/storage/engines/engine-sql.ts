// The few statements that differ between the two engines, behind one interface picked from the handle's engine; feature
// code asks this module instead of testing the engine itself.
import { PostgresAdapter, type Kysely, type RawBuilder } from 'kysely';
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
}

export function engineSql(engine: DbEngine): EngineSql {
  return engine === 'postgres' ? postgresSql : sqliteSql;
}

/** The engine of a kysely instance or transaction, for repository code that has only `db` in hand. */
export function engineSqlOf(db: Kysely<Database>): EngineSql {
  return engineSql(db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite');
}
