// PostgreSQL's side of engine-sql.ts: what a pool of connections and several nodes writing at once need.
import { sql, type SqlBool } from 'kysely';
import type { EngineSql } from './engine-sql.js';

/** Any fixed 64-bit number: the transaction lock around inserting events (different from the migration lock). */
export const EVENT_ORDER_LOCK_KEY = 7_270_020_002;

export const postgresSql: EngineSql = {
  engine: 'postgres',
  // An identity hands out seq at INSERT, not at COMMIT: transaction A takes 10, B takes 11 and commits first, a reader
  // sees 11 and moves past 10, which then commits unseen. Holding this lock from before the INSERT until the commit
  // (a transaction-level lock, released by COMMIT or ROLLBACK) makes event-writing transactions commit one by one in seq
  // order. Only transactions that record events take it; their other work runs concurrently.
  async lockEventOrder(trx) {
    await sql`SELECT pg_advisory_xact_lock(${EVENT_ORDER_LOCK_KEY})`.execute(trx);
  },
  roundTo: (value, digits) => sql<number>`round((${value})::numeric, ${sql.lit(digits)})::double precision`,
  jsonArrayOfObjects(pairs, rows, alias, orderBy) {
    const object = sql.join(pairs.map(([key, value]) => sql`${sql.lit(key)}::text, ${value}`));
    return sql<string>`(select coalesce(json_agg(json_build_object(${object}) order by ${orderBy})::text, '[]') from (${rows}) as ${sql.id(alias)})`;
  },
  // EXTRACT gives NUMERIC seconds with the microseconds: times 1000 and rounded, Date.parse's integer.
  epochMs: (iso) => sql<number>`CAST(ROUND(EXTRACT(EPOCH FROM CAST(${iso} AS timestamptz)) * 1000) AS BIGINT)`,
  greatest: (a, b) => sql<number>`GREATEST(${a}, ${b})`,
  // lower() under the C collation folds ASCII letters only (a database's own locale would fold 'É' too), as SQLite's NOCASE.
  jsonArrayHas: (array, value) =>
    sql<SqlBool>`EXISTS (SELECT 1 FROM json_array_elements_text(CAST(${array} AS json)) AS e(value) WHERE lower(e.value COLLATE "C") = lower(CAST(${value} AS TEXT) COLLATE "C"))`,
  equalsIgnoringCase: (column, value) => sql<SqlBool>`lower(${column}) = lower(${value})`,
  async suspendTriggers(trx) {
    // USER triggers only: the foreign-key checks (internal triggers) stay on. ALTER TABLE is transactional here.
    const { rows } = await sql<{ name: string }>`
      SELECT DISTINCT c.relname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace ORDER BY 1`.execute(trx);
    for (const t of rows) await sql`ALTER TABLE ${sql.table(t.name)} DISABLE TRIGGER USER`.execute(trx);
    return async () => {
      for (const t of rows) await sql`ALTER TABLE ${sql.table(t.name)} ENABLE TRIGGER USER`.execute(trx);
    };
  },
  async identityHighWater(db, table, column) {
    // NULL until the sequence first handed out a value.
    const { rows } = await sql<{ v: number | null }>`
      SELECT pg_sequence_last_value(pg_get_serial_sequence(${table}, ${column})::regclass) AS v`.execute(db);
    return rows[0]?.v ?? null;
  },
  async raiseIdentity(trx, table, column, value) {
    await sql`
      SELECT setval(pg_get_serial_sequence(${table}, ${column}), GREATEST(${value}::bigint,
        COALESCE(pg_sequence_last_value(pg_get_serial_sequence(${table}, ${column})::regclass), 1)))`.execute(trx);
  },
};
