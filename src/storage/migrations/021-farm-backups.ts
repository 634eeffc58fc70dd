// Migration: nightly backups may carry the stored files, and a farm of several nodes takes each night's backup once
// (the node that claims the night's row takes it).
import type { Migration } from './migration.js';

const claims = (integer: string, strict: string): string => `
    -- One row per local day a nightly backup was taken (or is being taken) on a farm sharing the database: the node
    -- whose insert wins takes it; a failed attempt removes its row so the next check (of any node) tries again.
    CREATE TABLE nightly_backup_runs (
      day TEXT PRIMARY KEY,
      node_id TEXT NOT NULL,
      started_at TEXT NOT NULL,
      finished_at TEXT,
      file TEXT,
      bytes ${integer}
    )${strict};
`;

export const migration021FarmBackups: Migration = {
  version: 21,
  name: 'farm-backups',
  sql: `
    ALTER TABLE organization ADD COLUMN backup_with_files INTEGER NOT NULL DEFAULT 0 CHECK (backup_with_files IN (0, 1));
    ${claims('INTEGER', ' STRICT')}
  `,
  pg: `
    ALTER TABLE organization ADD COLUMN backup_with_files BIGINT NOT NULL DEFAULT 0 CHECK (backup_with_files IN (0, 1));
    ${claims('BIGINT', '')}
  `,
};
