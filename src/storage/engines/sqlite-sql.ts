// SQLite's side of engine-sql.ts: one connection, one writer at a time, so most of it is nothing to do.
import { sql, type SqlBool } from 'kysely';
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
  epochMs: (iso) => sql<number>`CAST(ROUND((julianday(${iso}) - 2440587.5) * 86400000) AS INTEGER)`,
  greatest: (a, b) => sql<number>`MAX(${a}, ${b})`,
  // NOCASE folds ASCII letters only, as the PostgreSQL form does.
  jsonArrayHas: (array, value) => sql<SqlBool>`EXISTS (SELECT 1 FROM json_each(${array}) WHERE json_each.value = ${value} COLLATE NOCASE)`,
  equalsIgnoringCase: (column, value) => sql<SqlBool>`${column} = ${value}`,
  async suspendTriggers(trx) {
    // SQLite cannot switch a trigger off, but its DDL is transactional: drop them and create them again from their
    // own text before the commit.
    const { rows } = await sql<{ name: string; sql: string }>`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name`.execute(trx);
    for (const t of rows) await sql`DROP TRIGGER ${sql.id(t.name)}`.execute(trx);
    return async () => {
      for (const t of rows) await sql.raw(t.sql).execute(trx);
    };
  },
  async identityHighWater(db, table) {
    // AUTOINCREMENT keeps its high-water mark in sqlite_sequence (the column is the table's INTEGER PRIMARY KEY).
    const { rows } = await sql<{ seq: number }>`SELECT seq FROM sqlite_sequence WHERE name = ${table}`.execute(db);
    return rows[0]?.seq ?? null;
  },
  async raiseIdentity(trx, table, _column, value) {
    await sql`UPDATE sqlite_sequence SET seq = MAX(seq, ${value}) WHERE name = ${table}`.execute(trx);
    await sql`INSERT INTO sqlite_sequence (name, seq) SELECT ${table}, ${value} WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ${table})`.execute(trx);
  },
};
