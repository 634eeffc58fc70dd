// Migration: sliced 3MF files (.gcode.3mf, printed by Bambu printers): a third file format, the printer model the slice
// was made for, and its plates (G-code path, time, grams, filament per AMS slot). SQLite cannot change a column's
// CHECK in place, so its files table is rebuilt with the same columns and indexes; PostgreSQL swaps the constraint.
import type { Migration } from './migration.js';

export const migration023Sliced3mf: Migration = {
  version: 23,
  name: 'sliced-3mf',
  sql: `
    CREATE TABLE files_new (
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
      created_at TEXT NOT NULL,
      format TEXT NOT NULL DEFAULT 'gcode' CHECK (format IN ('gcode', 'bgcode', '3mf')),
      last_used_at TEXT,
      deleted_at TEXT,
      -- Bambu's model code of the printer a 3MF was sliced for (e.g. C12: P1S); null for other formats.
      printer_model_id TEXT,
      -- JSON array of a 3MF's plates: { index, gcode, gcode_md5, printer_model_id, nozzle_diameter,
      -- estimated_duration, filament_used_g, filaments: [{ slot, type, color, used_g, used_m }] }; [] otherwise.
      plates TEXT NOT NULL DEFAULT '[]'
    ) STRICT;
    INSERT INTO files_new (id, sha256, size, original_name, line_count, sent_lines_total, sent_bytes_total, slicer,
      slicer_version, estimated_duration, filament_used_g, filament_used_mm, filament_weight_source, filament_type,
      extruders, nozzle_diameter, layer_height, layer_count, thumbnail_type, thumbnail_width, thumbnail_height,
      thumbnail_size, created_at, format, last_used_at, deleted_at)
    SELECT id, sha256, size, original_name, line_count, sent_lines_total, sent_bytes_total, slicer,
      slicer_version, estimated_duration, filament_used_g, filament_used_mm, filament_weight_source, filament_type,
      extruders, nozzle_diameter, layer_height, layer_count, thumbnail_type, thumbnail_width, thumbnail_height,
      thumbnail_size, created_at, format, last_used_at, deleted_at FROM files;
    DROP TABLE files;
    ALTER TABLE files_new RENAME TO files;
    CREATE INDEX files_created ON files (created_at);
  `,
  pg: `
    ALTER TABLE files DROP CONSTRAINT IF EXISTS files_format_check;
    ALTER TABLE files ADD CONSTRAINT files_format_check CHECK (format IN ('gcode', 'bgcode', '3mf'));
    -- Bambu's model code of the printer a 3MF was sliced for (e.g. C12: P1S); null for other formats.
    ALTER TABLE files ADD COLUMN printer_model_id TEXT;
    -- JSON array of a 3MF's plates (see the SQLite text); [] otherwise.
    ALTER TABLE files ADD COLUMN plates TEXT NOT NULL DEFAULT '[]';
  `,
};
