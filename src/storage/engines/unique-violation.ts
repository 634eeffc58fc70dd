// Recognizes a UNIQUE-constraint failure from either engine's driver, so a service can answer a lost race with its own error.

/**
 * The error is a unique violation on `table` (and, when given, on an index over `column`). better-sqlite3 says
 * "UNIQUE constraint failed: table.column" with code SQLITE_CONSTRAINT_UNIQUE (or _PRIMARYKEY); pg gives SQLSTATE 23505
 * with the table and a detail "Key (column)=(...)" (or "Key (lower(column))=" for an index on an expression).
 */
export function isUniqueViolation(err: unknown, table: string, column?: string): boolean {
  const e = err as { code?: unknown; message?: unknown; table?: unknown; detail?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const failed = String(e.message).replace(/^UNIQUE constraint failed: /, '').split(', ');
    return failed.some((c) => c.startsWith(`${table}.`) && (column === undefined || c === `${table}.${column}`));
  }
  if (e.code === '23505') {
    if (e.table !== table) return false;
    if (column === undefined) return true;
    const keys = /^Key \((.*?)\)=\(/.exec(String(e.detail))?.[1] ?? '';
    return keys.split(', ').some((k) => k === column || k === `lower(${column})`);
  }
  return false;
}
