// Migration: the jobs table and the organization's power budget (queue, state, live counters), with the indexes the scheduler and the lists need.
import type { Migration } from './migration.js';

export const migration006Jobs: Migration = {
  version: 6,
  name: 'jobs',
  sql: `
    CREATE TABLE jobs (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('queued', 'printing', 'paused', 'completed', 'failed', 'cancelled')),
      priority TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
      priority_rank INTEGER NOT NULL,
      printer_id TEXT,
      pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
      group_name TEXT,
      file_id TEXT NOT NULL,
      file_url TEXT,
      file_name TEXT,
      estimated_duration REAL,
      material_type TEXT,
      material_color TEXT,
      material_estimated_usage REAL,
      nozzle_diameter REAL,
      tags TEXT NOT NULL DEFAULT '[]',
      batch_id TEXT,
      progress REAL NOT NULL DEFAULT 0,
      elapsed_time REAL NOT NULL DEFAULT 0,
      waiting_reason TEXT,
      error_code TEXT,
      error_message TEXT,
      created_by_key_id TEXT,
      created_at TEXT NOT NULL,
      started_at TEXT,
      completed_at TEXT,
      updated_at TEXT NOT NULL
    ) STRICT;
    CREATE INDEX jobs_queue ON jobs (status, priority_rank, created_at);
    CREATE INDEX jobs_printer ON jobs (printer_id, status);
    CREATE INDEX jobs_batch ON jobs (batch_id);
    CREATE INDEX jobs_created ON jobs (created_at);
    -- One running job per printer, whatever runs the scheduler: a second claim fails on this index.
    CREATE UNIQUE INDEX jobs_one_active_per_printer ON jobs (printer_id) WHERE status IN ('printing', 'paused');
    -- Extension: the most the farm may draw for heat-ups at once (W); null means no budget.
    ALTER TABLE organization ADD COLUMN power_budget_watts REAL CHECK (power_budget_watts IS NULL OR power_budget_watts > 0);
  `,
  pg: `
    CREATE TABLE jobs (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('queued', 'printing', 'paused', 'completed', 'failed', 'cancelled')),
      priority TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
      priority_rank BIGINT NOT NULL,
      printer_id TEXT,
      pinned BIGINT NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
      group_name TEXT,
      file_id TEXT NOT NULL,
      file_url TEXT,
      file_name TEXT,
      estimated_duration DOUBLE PRECISION,
      material_type TEXT,
      material_color TEXT,
      material_estimated_usage DOUBLE PRECISION,
      nozzle_diameter DOUBLE PRECISION,
      tags TEXT NOT NULL DEFAULT '[]',
      batch_id TEXT,
      progress DOUBLE PRECISION NOT NULL DEFAULT 0,
      elapsed_time DOUBLE PRECISION NOT NULL DEFAULT 0,
      waiting_reason TEXT,
      error_code TEXT,
      error_message TEXT,
      created_by_key_id TEXT,
      created_at TEXT NOT NULL,
      started_at TEXT,
      completed_at TEXT,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX jobs_queue ON jobs (status, priority_rank, created_at);
    CREATE INDEX jobs_printer ON jobs (printer_id, status);
    CREATE INDEX jobs_batch ON jobs (batch_id);
    CREATE INDEX jobs_created ON jobs (created_at);
    -- One running job per printer, whatever runs the scheduler: a second claim fails on this index.
    CREATE UNIQUE INDEX jobs_one_active_per_printer ON jobs (printer_id) WHERE status IN ('printing', 'paused');
    -- Extension: the most the farm may draw for heat-ups at once (W); null means no budget.
    ALTER TABLE organization ADD COLUMN power_budget_watts DOUBLE PRECISION CHECK (power_budget_watts IS NULL OR power_budget_watts > 0);
  `,
};
