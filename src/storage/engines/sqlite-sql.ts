// SQLite's side of engine-sql.ts: one connection, one writer at a time, so most of it is nothing to do.
import { sql } from 'kysely';
import type { EngineSql } from './engine-sql.js';

export const sqliteSql: EngineSql = {
  engine: 'sqlite',
  // One writer at a time already: a transaction that takes a seq commits before the next one can take another.
  lockEventOrder: async () => undefined,
  roundTo: (value, digits) => sql<number>`round(${value}, ${sql.lit(digits)})`,
  jsonArrayOfObjects(pairs, rows, alias, orderBy) {
    const object = sql.join(pairs.map(([key, value]) => sql`${sql.lit(key)}, ${value}`));
    const as = sql.id(alias);
    // json_group_array keeps the order its rows arrive in: the subquery sorts them.
    return sql<string>`(select json_group_array(json_object(${object})) from (select * from (${rows}) as ${as} order by ${orderBy}) as ${as})`;
  },
};
