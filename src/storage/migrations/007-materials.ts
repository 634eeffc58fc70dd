// Migration: spools (materials), the filament each job really used per tool, and a job's cost.
import type { Migration } from './migration.js';

export const migration007Materials: Migration = {
  version: 7,
  name: 'materials',
  sql: `
    CREATE TABLE materials (
      id TEXT PRIMARY KEY,
      type TEXT NOT NULL,
      brand TEXT,
      color TEXT,
      spool_weight REAL NOT NULL CHECK (spool_weight > 0),
      remaining_weight REAL NOT NULL CHECK (remaining_weight >= 0),
      empty_spool_weight REAL CHECK (empty_spool_weight IS NULL OR empty_spool_weight >= 0),
      cost_per_kg REAL CHECK (cost_per_kg IS NULL OR cost_per_kg >= 0),
      diameter REAL NOT NULL DEFAULT 1.75 CHECK (diameter > 0),
      density REAL NOT NULL CHECK (density > 0),
      printer_id TEXT,
      tool INTEGER NOT NULL DEFAULT 0 CHECK (tool >= 0),
      reorder_threshold REAL CHECK (reorder_threshold IS NULL OR reorder_threshold >= 0),
      status TEXT NOT NULL CHECK (status IN ('active', 'empty', 'archived')),
      -- 1 once material.low was sent for the current fill; a refill above the threshold clears it.
      low_notified INTEGER NOT NULL DEFAULT 0 CHECK (low_notified IN (0, 1)),
      lot TEXT,
      notes TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT;
    -- One spool per tool of a printer.
    CREATE UNIQUE INDEX materials_loaded ON materials (printer_id, tool) WHERE printer_id IS NOT NULL;
    CREATE INDEX materials_status ON materials (status, type, color);
    CREATE INDEX materials_created ON materials (created_at);

    -- What a job really used, per tool, measured on the wire (grams), and what that filament cost.
    CREATE TABLE job_material_usage (
      job_id TEXT NOT NULL,
      tool INTEGER NOT NULL,
      material_id TEXT,
      type TEXT,
      color TEXT,
      grams REAL NOT NULL CHECK (grams >= 0),
      cost REAL,
      PRIMARY KEY (job_id, tool)
    ) STRICT;
    CREATE INDEX job_material_usage_material ON job_material_usage (material_id);

    ALTER TABLE jobs ADD COLUMN material_used_g REAL;
    -- The same per tool as the API shows it: a JSON object {"<tool>": grams}.
    ALTER TABLE jobs ADD COLUMN material_used TEXT;
    ALTER TABLE jobs ADD COLUMN cost REAL;
    CREATE INDEX jobs_started ON jobs (started_at);
    CREATE INDEX jobs_completed ON jobs (completed_at);
  `,
  pg: `
    CREATE TABLE materials (
      id TEXT PRIMARY KEY,
      type TEXT NOT NULL,
      brand TEXT,
      color TEXT,
      spool_weight DOUBLE PRECISION NOT NULL CHECK (spool_weight > 0),
      remaining_weight DOUBLE PRECISION NOT NULL CHECK (remaining_weight >= 0),
      empty_spool_weight DOUBLE PRECISION CHECK (empty_spool_weight IS NULL OR empty_spool_weight >= 0),
      cost_per_kg DOUBLE PRECISION CHECK (cost_per_kg IS NULL OR cost_per_kg >= 0),
      diameter DOUBLE PRECISION NOT NULL DEFAULT 1.75 CHECK (diameter > 0),
      density DOUBLE PRECISION NOT NULL CHECK (density > 0),
      printer_id TEXT,
      tool BIGINT NOT NULL DEFAULT 0 CHECK (tool >= 0),
      reorder_threshold DOUBLE PRECISION CHECK (reorder_threshold IS NULL OR reorder_threshold >= 0),
      status TEXT NOT NULL CHECK (status IN ('active', 'empty', 'archived')),
      -- 1 once material.low was sent for the current fill; a refill above the threshold clears it.
      low_notified BIGINT NOT NULL DEFAULT 0 CHECK (low_notified IN (0, 1)),
      lot TEXT,
      notes TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    -- One spool per tool of a printer.
    CREATE UNIQUE INDEX materials_loaded ON materials (printer_id, tool) WHERE printer_id IS NOT NULL;
    CREATE INDEX materials_status ON materials (status, type, color);
    CREATE INDEX materials_created ON materials (created_at);

    -- What a job really used, per tool, measured on the wire (grams), and what that filament cost.
    CREATE TABLE job_material_usage (
      job_id TEXT NOT NULL,
      tool BIGINT NOT NULL,
      material_id TEXT,
      type TEXT,
      color TEXT,
      grams DOUBLE PRECISION NOT NULL CHECK (grams >= 0),
      cost DOUBLE PRECISION,
      PRIMARY KEY (job_id, tool)
    );
    CREATE INDEX job_material_usage_material ON job_material_usage (material_id);

    ALTER TABLE jobs ADD COLUMN material_used_g DOUBLE PRECISION;
    -- The same per tool as the API shows it: a JSON object {"<tool>": grams}.
    ALTER TABLE jobs ADD COLUMN material_used TEXT;
    ALTER TABLE jobs ADD COLUMN cost DOUBLE PRECISION;
    CREATE INDEX jobs_started ON jobs (started_at);
    CREATE INDEX jobs_completed ON jobs (completed_at);
  `,
};
