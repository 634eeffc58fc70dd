// Migration: each job's filament totals kept beside it (triggers on its usage rows), and covering indexes for the analytics period scans.
import type { Migration } from './migration.js';

/** The job's usage totals recomputed from its usage rows (NULL: no rows; cost NULL also when no row has a cost). */
const refresh = (jobIdExpr: string): string => `
    UPDATE jobs SET
      usage_grams = (SELECT SUM(u.grams) FROM job_material_usage u WHERE u.job_id = jobs.id),
      usage_cost = (SELECT SUM(u.cost) FROM job_material_usage u WHERE u.job_id = jobs.id)
    WHERE jobs.id IN (${jobIdExpr});`;

export const migration009AnalyticsTotals: Migration = {
  version: 9,
  name: 'analytics-totals',
  sql: `
    -- SUM(grams) and SUM(cost) of the job's job_material_usage rows, so analytics sums two columns instead of looking
    -- up usage rows job by job. Not material_used_g / cost: those are rounded, and cost includes machine time and energy.
    -- Whoever writes usage rows (the meter, imports, tests) keeps them right through the triggers below.
    ALTER TABLE jobs ADD COLUMN usage_grams REAL;
    ALTER TABLE jobs ADD COLUMN usage_cost REAL;
    ${refresh('SELECT job_id FROM job_material_usage')}
    CREATE TRIGGER job_usage_totals_insert AFTER INSERT ON job_material_usage BEGIN ${refresh('NEW.job_id')} END;
    CREATE TRIGGER job_usage_totals_update AFTER UPDATE OF job_id, grams, cost ON job_material_usage BEGIN ${refresh('OLD.job_id, NEW.job_id')} END;
    CREATE TRIGGER job_usage_totals_delete AFTER DELETE ON job_material_usage BEGIN ${refresh('OLD.job_id')} END;
    -- Usage rows written before their job row still count once the job arrives.
    CREATE TRIGGER job_usage_totals_job AFTER INSERT ON jobs
      WHEN EXISTS (SELECT 1 FROM job_material_usage u WHERE u.job_id = NEW.id) BEGIN ${refresh('NEW.id')} END;

    -- Covering indexes: a period scan reads index pages only, no row lookups. They replace jobs_started and
    -- jobs_completed, whose single columns still lead two of them (lists sort and page on those columns).
    DROP INDEX jobs_started;
    DROP INDEX jobs_completed;
    -- Jobs started in a period: time series, queue waits, filament lines.
    CREATE INDEX jobs_started_cover ON jobs (started_at, completed_at, printer_id, status, elapsed_time, created_at);
    -- Jobs finished in a period, by final state: counts and sums per state without sorting rows by state.
    CREATE INDEX jobs_finished ON jobs (status, completed_at, printer_id, elapsed_time, usage_cost, cost, error_code);
    -- Jobs running across a period's start (completed after it, started before it): an index range, rows looked up for the few that match.
    CREATE INDEX jobs_completed_started ON jobs (completed_at, started_at);
    -- Per printer (the printers drive the join, so each printer's watts are read once, not once per job): the sums
    -- and the energy of the jobs inside a period, and whether a printer started a job in it.
    CREATE INDEX jobs_printer_started ON jobs
      (printer_id, started_at, completed_at, elapsed_time, usage_grams, material_used_g, usage_cost, cost);
  `,
  pg: `
    -- The tables and indexes only: the triggers that keep usage_grams/usage_cost right come from the analytics port
    -- (PostgreSQL trigger functions, branch i20-sql).
    ALTER TABLE jobs ADD COLUMN usage_grams DOUBLE PRECISION;
    ALTER TABLE jobs ADD COLUMN usage_cost DOUBLE PRECISION;
    DROP INDEX jobs_started;
    DROP INDEX jobs_completed;
    CREATE INDEX jobs_started_cover ON jobs (started_at, completed_at, printer_id, status, elapsed_time, created_at);
    CREATE INDEX jobs_finished ON jobs (status, completed_at, printer_id, elapsed_time, usage_cost, cost, error_code);
    CREATE INDEX jobs_completed_started ON jobs (completed_at, started_at);
    CREATE INDEX jobs_printer_started ON jobs
      (printer_id, started_at, completed_at, elapsed_time, usage_grams, material_used_g, usage_cost, cost);
  `,
};
