// The engine-specific pieces of plain SQL text (migrations, trigger bodies): each engine's spelling of the same value,
// so one generator writes the roll-up SQL for both. Query code uses engine-sql.ts (kysely fragments) instead.
import type { DbEngine } from '../db.js';

export interface SqlText {
  readonly engine: DbEngine;
  /** Milliseconds since the epoch of an ISO text with its zone (exact to the millisecond, as Date.parse), an integer. */
  epochMs(iso: string): string;
  /** The larger / smaller of two non-NULL values (SQLite's scalar max/min, PostgreSQL's GREATEST/LEAST). */
  greatest(a: string, b: string): string;
  least(a: string, b: string): string;
  /** A condition as 1 or 0, to sum or multiply. */
  int(condition: string): string;
  /** `a` and `b` differ, NULL being a value like any other. */
  distinct(a: string, b: string): string;
  same(a: string, b: string): string;
  /** A FROM item `alias` with one integer column `key` holding 0 .. n-1 (n >= 1; may read earlier FROM items). */
  series(n: string, alias: string): string;
  /** 'YYYY-MM-DDTHH' (UTC) of a number of seconds since the epoch. */
  utcHourOfSeconds(seconds: string): string;
  /** The day after a 'YYYY-MM-DD' text, as the same text. */
  nextDay(day: string): string;
  /** A text as a JSON string ('"a"'), NULL as 'null': so NULL and '' stay apart in a key. */
  jsonQuote(text: string): string;
  /**
   * Appended to a subquery (after its WHERE if it has one): keeps the planner from merging it into the outer query, so its computed columns
   * are computed once per row instead of once per reference (PostgreSQL; SQLite keeps its trigger SQL as it was).
   */
  fence: string;
  /** INSERT of `select` into `table (columns)` that skips rows whose key is already there. */
  insertIgnore(table: string, columns: string, select: string): string;
}

export const sqliteText: SqlText = {
  engine: 'sqlite',
  epochMs: (iso) => `CAST(ROUND((julianday(${iso}) - 2440587.5) * 86400000) AS INTEGER)`,
  greatest: (a, b) => `MAX(${a}, ${b})`,
  least: (a, b) => `MIN(${a}, ${b})`,
  int: (c) => `(${c})`,
  distinct: (a, b) => `${a} IS NOT ${b}`,
  same: (a, b) => `${a} IS ${b}`,
  // No generate_series in a stock SQLite and no CTE inside a trigger: a JSON array of n zeros, one row each.
  series: (n, alias) => `json_each('[' || substr(replace(hex(zeroblob(${n})), '00', ',0'), 2) || ']') ${alias}`,
  utcHourOfSeconds: (s) => `strftime('%Y-%m-%dT%H', ${s}, 'unixepoch')`,
  nextDay: (day) => `date(${day}, '+1 day')`,
  jsonQuote: (t) => `json_quote(${t})`,
  fence: '',
  insertIgnore: (table, columns, select) => `INSERT OR IGNORE INTO ${table} (${columns}) ${select}`,
};

export const postgresText: SqlText = {
  engine: 'postgres',
  // EXTRACT gives NUMERIC seconds with the microseconds: times 1000 and rounded, it is Date.parse's integer.
  epochMs: (iso) => `CAST(ROUND(EXTRACT(EPOCH FROM CAST(${iso} AS timestamptz)) * 1000) AS BIGINT)`,
  greatest: (a, b) => `GREATEST(${a}, ${b})`,
  least: (a, b) => `LEAST(${a}, ${b})`,
  int: (c) => `CAST((${c}) AS INTEGER)`,
  distinct: (a, b) => `${a} IS DISTINCT FROM ${b}`,
  same: (a, b) => `${a} IS NOT DISTINCT FROM ${b}`,
  series: (n, alias) => `generate_series(0, (${n}) - 1) AS ${alias}(key)`,
  utcHourOfSeconds: (s) => `to_char(to_timestamp(${s}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24')`,
  nextDay: (day) => `to_char(CAST(${day} AS date) + 1, 'YYYY-MM-DD')`,
  jsonQuote: (t) => `COALESCE(CAST(to_json(CAST(${t} AS TEXT)) AS TEXT), 'null')`,
  // OFFSET 0 changes no row, but a subquery with one is planned on its own.
  fence: ' OFFSET 0',
  insertIgnore: (table, columns, select) => `INSERT INTO ${table} (${columns}) ${select} ON CONFLICT DO NOTHING`,
};

export const sqlText = (engine: DbEngine): SqlText => (engine === 'postgres' ? postgresText : sqliteText);
