// Migration: G-code content and thumbnails may live in the database itself (chunks), so every node sharing it reads them.
import type { Migration } from './migration.js';

export const migration018FileChunks: Migration = {
  version: 18,
  name: 'file-chunks',
  sql: `
    -- Keyed by the content hash like the directory stores (files.sha256 is unique): an upload writes its chunks before
    -- its files row exists. ~1 MB a chunk keeps every read and write bounded.
    CREATE TABLE file_chunks (
      sha256 TEXT NOT NULL,
      part TEXT NOT NULL CHECK (part IN ('content', 'thumbnail')),
      idx INTEGER NOT NULL CHECK (idx >= 0),
      data BLOB NOT NULL,
      PRIMARY KEY (sha256, part, idx)
    ) STRICT;
  `,
  pg: `
    CREATE TABLE file_chunks (
      sha256 TEXT NOT NULL,
      part TEXT NOT NULL CHECK (part IN ('content', 'thumbnail')),
      idx BIGINT NOT NULL CHECK (idx >= 0),
      data BYTEA NOT NULL,
      PRIMARY KEY (sha256, part, idx)
    );
  `,
};
