// Migration 2: the files table (G-code files stored once by content hash, with what their slicer wrote about them).
import type { Migration } from './migration.js';

export const migration002Files: Migration = {
  version: 2,
  name: 'files',
  sql: `
    CREATE TABLE files (
      id TEXT PRIMARY KEY,
      sha256 TEXT NOT NULL UNIQUE,
      size INTEGER NOT NULL CHECK (size > 0),
      original_name TEXT NOT NULL,
      line_count INTEGER NOT NULL,
      sent_lines_total INTEGER NOT NULL,
      sent_bytes_total INTEGER NOT NULL,
      slicer TEXT,
      slicer_version TEXT,
      estimated_duration REAL,
      filament_used_g REAL,
      filament_used_mm REAL,
      filament_weight_source TEXT CHECK (filament_weight_source IN ('slicer', 'computed')),
      filament_type TEXT,
      extruders TEXT NOT NULL DEFAULT '[]',
      nozzle_diameter REAL,
      layer_height REAL,
      layer_count INTEGER,
      thumbnail_type TEXT CHECK (thumbnail_type IN ('image/png', 'image/jpeg')),
      thumbnail_width INTEGER,
      thumbnail_height INTEGER,
      thumbnail_size INTEGER,
      created_at TEXT NOT NULL
    ) STRICT;
    CREATE INDEX files_created ON files (created_at);
  `,
  pg: `
    CREATE TABLE files (
      id TEXT PRIMARY KEY,
      sha256 TEXT NOT NULL UNIQUE,
      size BIGINT NOT NULL CHECK (size > 0),
      original_name TEXT NOT NULL,
      line_count BIGINT NOT NULL,
      sent_lines_total BIGINT NOT NULL,
      sent_bytes_total BIGINT NOT NULL,
      slicer TEXT,
      slicer_version TEXT,
      estimated_duration DOUBLE PRECISION,
      filament_used_g DOUBLE PRECISION,
      filament_used_mm DOUBLE PRECISION,
      filament_weight_source TEXT CHECK (filament_weight_source IN ('slicer', 'computed')),
      filament_type TEXT,
      extruders TEXT NOT NULL DEFAULT '[]',
      nozzle_diameter DOUBLE PRECISION,
      layer_height DOUBLE PRECISION,
      layer_count BIGINT,
      thumbnail_type TEXT CHECK (thumbnail_type IN ('image/png', 'image/jpeg')),
      thumbnail_width BIGINT,
      thumbnail_height BIGINT,
      thumbnail_size BIGINT,
      created_at TEXT NOT NULL
    );
    CREATE INDEX files_created ON files (created_at);
  `,
};
