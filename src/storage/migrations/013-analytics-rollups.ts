// Migration: daily and hourly analytics roll-ups (per printer, per material line, farm-wide), kept by triggers and backfilled.
import type { Migration } from './migration.js';
import { postgresText, sqliteText } from '../engines/sql-text.js';
import {
  ANALYTICS_ROLLUP_TABLES,
  hasNoUsage,
  hasOneUsage,
  JOB_TRIGGER_COLUMNS,
  jobRows,
  LINE_TRIGGER_COLUMNS,
  lineOfUsage,
  linesOfJobs,
  ownLineOf,
  rollupSql,
  USAGE_TOTALS,
  type RollupSql,
} from './013-rollup-sql.js';

export { ANALYTICS_ROLLUP_TABLES };

// What each trigger does, for either engine (r spells it): SQLite runs the statements in a trigger body, PostgreSQL in
// a PL/pgSQL trigger function. Same names, same events, same conditions.
interface TriggerSpec {
  name: string;
  event: string;
  when?: string;
  body: string;
  /**
   * PostgreSQL instead: a statement-level trigger over the statement's transition table. Each write to a roll-up row
   * leaves a new row version that later writes in the same transaction walk past, so thousands of single-row updates
   * of one day row in one transaction (a bulk import) grow quadratic; one set-based update per statement does not.
   */
  pg?: { event: string; body: string };
}

const insertedJobs = (r: RollupSql, src: string, bulk = false): string =>
  (bulk ? r.bulkJobParts(src, '1') : r.jobParts(src, '1')) + r.lineParts(linesOfJobs(src), '1') + r.oddJobs(src);

const triggers = (r: RollupSql): TriggerSpec[] => [
  {
    name: 'analytics_job_insert',
    event: 'AFTER INSERT ON jobs',
    body: insertedJobs(r, jobRows('NEW')),
    pg: { event: 'AFTER INSERT ON jobs REFERENCING NEW TABLE AS new_jobs', body: insertedJobs(r, 'new_jobs', true) },
  },
  {
    name: 'analytics_job_delete',
    event: 'AFTER DELETE ON jobs',
    body: r.jobParts(jobRows('OLD'), '-1') + r.recountMax('OLD', false) + r.lineParts(linesOfJobs(jobRows('OLD')), '-1') + r.forgetOddJob('OLD.id'),
  },
  {
    name: 'analytics_job_update',
    event: `AFTER UPDATE OF ${JOB_TRIGGER_COLUMNS} ON jobs`,
    when: r.jobChanged,
    body: r.jobParts(jobRows('OLD'), '-1') + r.recountMax('OLD', true) + r.jobParts(jobRows('NEW'), '1') + r.forgetOddJob('OLD.id') + r.oddJobs(jobRows('NEW')),
  },
  {
    name: 'analytics_job_usage_totals',
    event: `AFTER UPDATE OF ${USAGE_TOTALS} ON jobs`,
    when: `(${r.changed(USAGE_TOTALS)}) AND NOT (${r.jobChanged})`,
    body: r.usageTotalsMoved,
  },
  {
    name: 'analytics_job_lines',
    event: `AFTER UPDATE OF ${LINE_TRIGGER_COLUMNS} ON jobs`,
    when: r.changed(LINE_TRIGGER_COLUMNS),
    body: r.lineParts(linesOfJobs(jobRows('OLD')), '-1') + r.lineParts(linesOfJobs(jobRows('NEW')), '1'),
  },
  // Energy counts each printer's rating as it is now: a new rating (or none, the printer deleted) re-prices its days,
  // and the farm's days by the difference.
  {
    name: 'analytics_printer_watts',
    event: 'AFTER UPDATE OF power_watts ON printers',
    when: r.changed('power_watts'),
    body: r.rewatt('NEW.id', 'COALESCE(OLD.power_watts, 0)', 'COALESCE(NEW.power_watts, 0)'),
  },
  { name: 'analytics_printer_delete', event: 'AFTER DELETE ON printers', body: r.rewatt('OLD.id', 'COALESCE(OLD.power_watts, 0)', '0') },
  { name: 'analytics_printer_insert', event: 'AFTER INSERT ON printers', body: r.rewatt('NEW.id', '0', 'COALESCE(NEW.power_watts, 0)') },
  // A job's first usage row replaces its own line; its last one gone, the own line counts again.
  {
    name: 'analytics_usage_insert',
    event: 'AFTER INSERT ON job_material_usage',
    body: r.lineParts(lineOfUsage('NEW'), '1') + r.lineParts(ownLineOf('NEW.job_id', hasOneUsage), '-1'),
  },
  {
    name: 'analytics_usage_delete',
    event: 'AFTER DELETE ON job_material_usage',
    body: r.lineParts(lineOfUsage('OLD'), '-1') + r.lineParts(ownLineOf('OLD.job_id', hasNoUsage), '1'),
  },
  {
    name: 'analytics_usage_update',
    event: 'AFTER UPDATE OF job_id, type, color, material_id, grams, cost ON job_material_usage',
    body:
      r.lineParts(lineOfUsage('OLD'), '-1') +
      r.lineParts(ownLineOf('OLD.job_id', `${r.changed('job_id')} AND ${hasNoUsage}`), '1') +
      r.lineParts(ownLineOf('NEW.job_id', `${r.changed('job_id')} AND ${hasOneUsage}`), '-1') +
      r.lineParts(lineOfUsage('NEW'), '1'),
  },
];

/** SQLite: the statements in the trigger's own body. */
export const sqliteTriggers = (specs: TriggerSpec[]): string =>
  specs.map((t) => `CREATE TRIGGER ${t.name} ${t.event}${t.when ? ` WHEN ${t.when}` : ''} BEGIN ${t.body} END;`).join('\n');

/**
 * PostgreSQL: a trigger function of the same name holding the statements, and a row trigger calling it (or a
 * statement trigger, see TriggerSpec.pg). Triggers of one event fire in name order (analytics_* before migration
 * 009's job_usage_totals_*), and statement triggers after the row triggers of their statement.
 */
export const postgresTriggers = (specs: TriggerSpec[]): string =>
  specs
    .map((t) => {
      const level = t.pg ? `${t.pg.event} FOR EACH STATEMENT` : `${t.event} FOR EACH ROW${t.when ? ` WHEN (${t.when})` : ''}`;
      return `${postgresFunction(t, 'CREATE')}
CREATE TRIGGER ${t.name} ${level} EXECUTE FUNCTION ${t.name}();`;
    })
    .join('\n');

const postgresFunction = (t: TriggerSpec, verb: 'CREATE' | 'CREATE OR REPLACE'): string =>
  `${verb} FUNCTION ${t.name}() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN ${t.pg?.body ?? t.body}
  RETURN NULL; END $fn$;`;

/** The names of the PostgreSQL roll-up trigger functions (one per trigger). */
export const postgresRollupFunctionNames = (): string[] => triggers(POSTGRES).map((t) => t.name);

/** Every PostgreSQL roll-up trigger function again from today's SQL (CREATE OR REPLACE: the triggers stay as they are). */
export const replacePostgresRollupFunctions = (): string => triggers(POSTGRES).map((t) => postgresFunction(t, 'CREATE OR REPLACE')).join('\n');

const SQLITE = rollupSql(sqliteText);
const POSTGRES = rollupSql(postgresText);

export const migration013AnalyticsRollups: Migration = {
  version: 13,
  name: 'analytics-rollups',
  sql: `
    CREATE TABLE analytics_day (
      day TEXT NOT NULL,
      printer_id TEXT NOT NULL,
      ended_seconds REAL NOT NULL DEFAULT 0,
      -- Energy: printing seconds × the printer's power rating as it is now (printer triggers follow a new rating).
      ended_watt_seconds REAL NOT NULL DEFAULT 0,
      ended_grams REAL NOT NULL DEFAULT 0,
      ended_cost REAL NOT NULL DEFAULT 0,
      started_n INTEGER NOT NULL DEFAULT 0,
      wait_sum REAL NOT NULL DEFAULT 0,
      wait_max REAL,
      created_n INTEGER NOT NULL DEFAULT 0,
      completed_n INTEGER NOT NULL DEFAULT 0,
      failed_n INTEGER NOT NULL DEFAULT 0,
      cancelled_n INTEGER NOT NULL DEFAULT 0,
      completed_seconds REAL NOT NULL DEFAULT 0,
      completed_watt_seconds REAL NOT NULL DEFAULT 0,
      completed_cost REAL NOT NULL DEFAULT 0,
      completed_min REAL,
      completed_max REAL,
      PRIMARY KEY (printer_id, day)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE analytics_day_failure (
      day TEXT NOT NULL,
      printer_id TEXT NOT NULL,
      code TEXT NOT NULL,
      n INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (printer_id, day, code)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE analytics_day_material (
      day TEXT NOT NULL,
      printer_id TEXT NOT NULL,
      type TEXT NOT NULL,
      color TEXT NOT NULL,
      material_id TEXT NOT NULL,
      -- How many lines are in the sums: a group with none left (its jobs deleted or moved) is no group at all.
      lines INTEGER NOT NULL DEFAULT 0,
      grams REAL NOT NULL DEFAULT 0,
      cost REAL NOT NULL DEFAULT 0,
      PRIMARY KEY (printer_id, day, type, color, material_id)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE analytics_hour (
      hour TEXT NOT NULL,
      printer_id TEXT NOT NULL,
      print_seconds REAL NOT NULL DEFAULT 0,
      completed_n INTEGER NOT NULL DEFAULT 0,
      failed_n INTEGER NOT NULL DEFAULT 0,
      cancelled_n INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (printer_id, hour)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE analytics_hour_material (
      hour TEXT NOT NULL,
      printer_id TEXT NOT NULL,
      type TEXT NOT NULL,
      grams REAL NOT NULL DEFAULT 0,
      cost REAL NOT NULL DEFAULT 0,
      PRIMARY KEY (printer_id, hour, type)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE analytics_long_jobs (job_id TEXT PRIMARY KEY) STRICT, WITHOUT ROWID;
    CREATE TABLE analytics_backward_jobs (job_id TEXT PRIMARY KEY) STRICT, WITHOUT ROWID;

    ${SQLITE.fill.join('\n')}

    ${sqliteTriggers(triggers(SQLITE))}

  `,
  pg: `
    CREATE TABLE analytics_day (
      day TEXT NOT NULL,
      printer_id TEXT NOT NULL,
      ended_seconds DOUBLE PRECISION NOT NULL DEFAULT 0,
      -- Energy: printing seconds × the printer's power rating as it is now (printer triggers follow a new rating).
      ended_watt_seconds DOUBLE PRECISION NOT NULL DEFAULT 0,
      ended_grams DOUBLE PRECISION NOT NULL DEFAULT 0,
      ended_cost DOUBLE PRECISION NOT NULL DEFAULT 0,
      started_n BIGINT NOT NULL DEFAULT 0,
      wait_sum DOUBLE PRECISION NOT NULL DEFAULT 0,
      wait_max DOUBLE PRECISION,
      created_n BIGINT NOT NULL DEFAULT 0,
      completed_n BIGINT NOT NULL DEFAULT 0,
      failed_n BIGINT NOT NULL DEFAULT 0,
      cancelled_n BIGINT NOT NULL DEFAULT 0,
      completed_seconds DOUBLE PRECISION NOT NULL DEFAULT 0,
      completed_watt_seconds DOUBLE PRECISION NOT NULL DEFAULT 0,
      completed_cost DOUBLE PRECISION NOT NULL DEFAULT 0,
      completed_min DOUBLE PRECISION,
      completed_max DOUBLE PRECISION,
      PRIMARY KEY (printer_id, day)
    );
    CREATE TABLE analytics_day_failure (
      day TEXT NOT NULL,
      printer_id TEXT NOT NULL,
      code TEXT NOT NULL,
      n BIGINT NOT NULL DEFAULT 0,
      PRIMARY KEY (printer_id, day, code)
    );
    CREATE TABLE analytics_day_material (
      day TEXT NOT NULL,
      printer_id TEXT NOT NULL,
      type TEXT NOT NULL,
      color TEXT NOT NULL,
      material_id TEXT NOT NULL,
      -- How many lines are in the sums: a group with none left (its jobs deleted or moved) is no group at all.
      lines BIGINT NOT NULL DEFAULT 0,
      grams DOUBLE PRECISION NOT NULL DEFAULT 0,
      cost DOUBLE PRECISION NOT NULL DEFAULT 0,
      PRIMARY KEY (printer_id, day, type, color, material_id)
    );
    CREATE TABLE analytics_hour (
      hour TEXT NOT NULL,
      printer_id TEXT NOT NULL,
      print_seconds DOUBLE PRECISION NOT NULL DEFAULT 0,
      completed_n BIGINT NOT NULL DEFAULT 0,
      failed_n BIGINT NOT NULL DEFAULT 0,
      cancelled_n BIGINT NOT NULL DEFAULT 0,
      PRIMARY KEY (printer_id, hour)
    );
    CREATE TABLE analytics_hour_material (
      hour TEXT NOT NULL,
      printer_id TEXT NOT NULL,
      type TEXT NOT NULL,
      grams DOUBLE PRECISION NOT NULL DEFAULT 0,
      cost DOUBLE PRECISION NOT NULL DEFAULT 0,
      PRIMARY KEY (printer_id, hour, type)
    );
    CREATE TABLE analytics_long_jobs (job_id TEXT PRIMARY KEY);
    CREATE TABLE analytics_backward_jobs (job_id TEXT PRIMARY KEY);

    ${POSTGRES.fill.join('\n')}

    ${postgresTriggers(triggers(POSTGRES))}
  `,
};
