// A filter on a TEXT column holding a JSON array of strings ("tags"), written the same for both engines.
import { sql, type SqlBool } from 'kysely';

/**
 * `column` contains `value` as an element: a LIKE on the JSON text for the value's JSON spelling (quotes included, so
 * "ab" never matches "abc"), with LIKE's wildcards escaped. The same SQL on SQLite and PostgreSQL (SQLite's LIKE
 * ignores ASCII case, PostgreSQL's does not).
 */
export function jsonArrayContains(column: string, value: string) {
  const needle = JSON.stringify(value).replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql<SqlBool>`${sql.ref(column)} LIKE ${`%${needle}%`} ESCAPE '\\'`;
}
