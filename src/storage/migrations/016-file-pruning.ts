// Migration: stored files are pruned by policy: the organization's retention and store cap, and per file when it was
// last used and when its content was removed (the row stays, so the jobs that printed it keep their metadata).
import type { Migration } from './migration.js';

export const migration016FilePruning: Migration = {
  version: 16,
  name: 'file-pruning',
  sql: `
    -- Days after its last use a file no active job needs is removed; NULL keeps files forever.
    ALTER TABLE organization ADD COLUMN file_retention_days INTEGER DEFAULT 30 CHECK (file_retention_days IS NULL OR file_retention_days >= 1);
    -- The most the stored files may take (GiB); over it the least recently used files no active job needs go first. NULL: no cap.
    ALTER TABLE organization ADD COLUMN file_store_max_gb REAL CHECK (file_store_max_gb IS NULL OR file_store_max_gb > 0);
    -- The last upload of this content (a repeated upload is a use); NULL: created_at.
    ALTER TABLE files ADD COLUMN last_used_at TEXT;
    -- Set when pruning removed the content and thumbnail; an upload of the same content clears it.
    ALTER TABLE files ADD COLUMN deleted_at TEXT;
    -- The pruning pass looks up the jobs of each file.
    CREATE INDEX jobs_file ON jobs (file_id, status);
  `,
  pg: `
    -- Days after its last use a file no active job needs is removed; NULL keeps files forever.
    ALTER TABLE organization ADD COLUMN file_retention_days BIGINT DEFAULT 30 CHECK (file_retention_days IS NULL OR file_retention_days >= 1);
    -- The most the stored files may take (GiB); over it the least recently used files no active job needs go first. NULL: no cap.
    ALTER TABLE organization ADD COLUMN file_store_max_gb DOUBLE PRECISION CHECK (file_store_max_gb IS NULL OR file_store_max_gb > 0);
    -- The last upload of this content (a repeated upload is a use); NULL: created_at.
    ALTER TABLE files ADD COLUMN last_used_at TEXT;
    -- Set when pruning removed the content and thumbnail; an upload of the same content clears it.
    ALTER TABLE files ADD COLUMN deleted_at TEXT;
    -- The pruning pass looks up the jobs of each file.
    CREATE INDEX jobs_file ON jobs (file_id, status);
  `,
};
