// Migration 2: the printers table (stored settings of each printer; its live state lives in the printer session).
import type { Migration } from './migration.js';

export const migration004Printers: Migration = {
  version: 4,
  name: 'printers',
  sql: `
    CREATE TABLE printers (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      connection_url TEXT NOT NULL,
      api_key_sealed TEXT,
      model TEXT,
      group_name TEXT,
      tags TEXT NOT NULL DEFAULT '[]',
      ready INTEGER NOT NULL DEFAULT 1 CHECK (ready IN (0, 1)),
      firmware TEXT,
      material_type TEXT,
      material_color TEXT,
      nozzle_diameter REAL,
      heatup_watts REAL,
      power_watts REAL,
      clear_bed_gcode TEXT,
      clear_bed_temperature REAL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT;
    -- The service also refuses one device under two spellings; this catches two creates racing with one URL.
    CREATE UNIQUE INDEX printers_connection_url ON printers (connection_url);
    CREATE INDEX printers_group ON printers (group_name);
    CREATE INDEX printers_created ON printers (created_at);
  `,
  pg: `
    CREATE TABLE printers (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      connection_url TEXT NOT NULL,
      api_key_sealed TEXT,
      model TEXT,
      group_name TEXT,
      tags TEXT NOT NULL DEFAULT '[]',
      ready BIGINT NOT NULL DEFAULT 1 CHECK (ready IN (0, 1)),
      firmware TEXT,
      material_type TEXT,
      material_color TEXT,
      nozzle_diameter DOUBLE PRECISION,
      heatup_watts DOUBLE PRECISION,
      power_watts DOUBLE PRECISION,
      clear_bed_gcode TEXT,
      clear_bed_temperature DOUBLE PRECISION,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    -- The service also refuses one device under two spellings; this catches two creates racing with one URL.
    CREATE UNIQUE INDEX printers_connection_url ON printers (connection_url);
    CREATE INDEX printers_group ON printers (group_name);
    CREATE INDEX printers_created ON printers (created_at);
  `,
};
