// Recognises a unique-index violation on either engine: SQLite names the columns in its message, PostgreSQL names the
// index (error 23505, field `constraint`). Services turn it into the 409 the racing request deserves.

export interface UniqueIndex {
  /** The index name (as in the migrations): what PostgreSQL reports. */
  index: string;
  /** "table.column" as SQLite's message names it ("UNIQUE constraint failed: printers.connection_url"). */
  sqliteColumns: string;
}

/** Whether `err` is a unique violation, of `on` when given (any unique index otherwise). */
export function isUniqueViolation(err: unknown, on?: UniqueIndex): boolean {
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.code === '23505') return on === undefined || e.constraint === on.index;
  const sqlite = e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || /UNIQUE constraint failed/.test(String(e.message));
  if (!sqlite) return false;
  return on === undefined || String(e.message).includes(`UNIQUE constraint failed: ${on.sqliteColumns}`);
}
