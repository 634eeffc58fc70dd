// The shape of one schema migration: plain SQL per engine, so migrations never import application code and work inside the binary.
export interface Migration {
  /** Consecutive from 1; the schema_version table records the highest applied. */
  version: number;
  name: string;
  /** The SQLite statements. */
  sql: string;
  /** The same change for PostgreSQL (issue 20); the two engines end at the same tables and columns. */
  pg: string;
}
