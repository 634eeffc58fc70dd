// The shape of one schema migration: plain SQL, so migrations never import application code and work inside the binary.
export interface Migration {
  /** Consecutive from 1; the schema_version table records the highest applied. */
  version: number;
  name: string;
  sql: string;
}
