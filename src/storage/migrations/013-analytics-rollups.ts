// Migration: daily and hourly analytics roll-ups (per printer, per material line, farm-wide), kept by triggers and backfilled.
import type { Migration } from './migration.js';

// Every figure the roll-ups hold is what the direct computation over jobs gives for the same rows (src/analytics): the
// triggers below add a job's part when it appears and take its old part away when it changes or goes, so whoever
// writes jobs or usage rows (the state machine, the meter, imports, tests) keeps them right inside their own
// transaction. Keys are UTC text prefixes of the ISO timestamps ('2026-03-01' a day, '2026-03-01T10' an hour);
// printer_id '' is "no printer", '*' (hour tables only) the whole farm. Nullable texts in keys are json_quote()d so
// NULL ('null') and '' ('""') stay apart.

const FINAL = `('completed', 'failed', 'cancelled')`;
const HOUR_MS = 3_600_000;

/** Milliseconds since the epoch of an ISO text (exact to the millisecond, as Date.parse). */
const ms = (x: string): string => `CAST(ROUND((julianday(${x}) - 2440587.5) * 86400000) AS INTEGER)`;

/** Seconds a job waited in the queue, as the job report computes it. */
const WAIT = `MAX(0, (${ms('j.started_at')} - ${ms('j.created_at')}) / 1000.0)`;

/** 0, 1, ... n-1 as json_each rows (no CTE: triggers may not use one). */
const seq = (n: string): string => `json_each('[' || substr(replace(hex(zeroblob(${n})), '00', ',0'), 2) || ']')`;

const JOB_COLUMNS = [
  'id', 'printer_id', 'status', 'created_at', 'started_at', 'completed_at', 'elapsed_time', 'error_code', 'usage_grams',
  'usage_cost', 'material_used_g', 'cost', 'material_type', 'material_color',
];

/** A job row as a one-row table: the trigger's NEW or OLD, or the whole jobs table (backfill). */
const jobRows = (row: 'NEW' | 'OLD' | null): string =>
  row === null ? 'jobs' : `(SELECT ${JOB_COLUMNS.map((c) => `${row}.${c} AS ${c}`).join(', ')})`;

type Sign = '1' | '-1';

/** Any of the columns differs between OLD and NEW (update triggers). */
const changed = (cols: string): string => cols.split(', ').map((c) => `OLD.${c} IS NOT NEW.${c}`).join(' OR ');

/** `col = col + excluded.col` for each column. */
const addUp = (cols: string[]): string => cols.map((c) => `${c} = ${c} + excluded.${c}`).join(', ');

/** The smaller / larger of a stored and an added value, either possibly NULL. */
const keepMin = (c: string): string => `${c} = COALESCE(MIN(${c}, excluded.${c}), ${c}, excluded.${c})`;
const keepMax = (c: string): string => `${c} = COALESCE(MAX(${c}, excluded.${c}), ${c}, excluded.${c})`;

/** The printer's own key and the farm's ('*'): each row is written twice, so a farm-wide question reads one row a day or hour. */
const BOTH_KEYS = `(SELECT 0 AS farm UNION ALL SELECT 1)`;
const keyOf = (printerCol: string): string => `CASE WHEN k.farm = 1 THEN '*' ELSE COALESCE(${printerCol}, '') END`;

/** The job's printer's power rating now (0: none, unrated or deleted); printer triggers below follow changes to it. */
const WATTS = `COALESCE((SELECT p.power_watts FROM printers p WHERE p.id = j.printer_id), 0)`;

/** Per start day: the ended jobs' printing, grams and filament cost (interior sums), and every started job's queue wait. */
const startedDay = (src: string, s: Sign): string => `
  INSERT INTO analytics_day (day, printer_id, ended_seconds, ended_watt_seconds, ended_grams, ended_cost, started_n, wait_sum, wait_max)
  SELECT substr(j.started_at, 1, 10), ${keyOf('j.printer_id')},
    SUM(CASE WHEN j.completed_at IS NULL THEN 0 ELSE ${s} * j.elapsed_time END),
    SUM(CASE WHEN j.completed_at IS NULL THEN 0 ELSE ${s} * j.elapsed_time * ${WATTS} END),
    SUM(CASE WHEN j.completed_at IS NULL THEN 0 ELSE ${s} * COALESCE(j.usage_grams, j.material_used_g, 0) END),
    SUM(CASE WHEN j.completed_at IS NULL THEN 0 ELSE ${s} * COALESCE(j.usage_cost, j.cost, 0) END),
    SUM(${s}), SUM(${s} * ${WAIT}), MAX(${WAIT})
  FROM ${src} j, ${BOTH_KEYS} k WHERE j.started_at IS NOT NULL GROUP BY 1, 2
  ON CONFLICT (day, printer_id) DO UPDATE SET ${addUp(['ended_seconds', 'ended_watt_seconds', 'ended_grams', 'ended_cost', 'started_n', 'wait_sum'])}
    ${s === '1' ? `, ${keepMax('wait_max')}` : ''};`;

/** Per creation day: jobs created. */
const createdDay = (src: string, s: Sign): string => `
  INSERT INTO analytics_day (day, printer_id, created_n)
  SELECT substr(j.created_at, 1, 10), ${keyOf('j.printer_id')}, SUM(${s}) FROM ${src} j, ${BOTH_KEYS} k WHERE true GROUP BY 1, 2
  ON CONFLICT (day, printer_id) DO UPDATE SET ${addUp(['created_n'])};`;

const isCompleted = `j.status = 'completed'`;

/** Per completion day: final states, and the completed jobs' printing (sum, min, max) and filament cost. */
const finishedDay = (src: string, s: Sign): string => `
  INSERT INTO analytics_day (day, printer_id, completed_n, failed_n, cancelled_n, completed_seconds, completed_watt_seconds, completed_cost, completed_min, completed_max)
  SELECT substr(j.completed_at, 1, 10), ${keyOf('j.printer_id')},
    SUM(${s} * (j.status = 'completed')), SUM(${s} * (j.status = 'failed')), SUM(${s} * (j.status = 'cancelled')),
    SUM(CASE WHEN ${isCompleted} THEN ${s} * j.elapsed_time ELSE 0 END),
    SUM(CASE WHEN ${isCompleted} THEN ${s} * j.elapsed_time * ${WATTS} ELSE 0 END),
    SUM(CASE WHEN ${isCompleted} THEN ${s} * COALESCE(j.usage_cost, j.cost, 0) ELSE 0 END),
    MIN(CASE WHEN ${isCompleted} THEN j.elapsed_time END), MAX(CASE WHEN ${isCompleted} THEN j.elapsed_time END)
  FROM ${src} j, ${BOTH_KEYS} k WHERE j.completed_at IS NOT NULL AND j.status IN ${FINAL} GROUP BY 1, 2
  ON CONFLICT (day, printer_id) DO UPDATE SET ${addUp(['completed_n', 'failed_n', 'cancelled_n', 'completed_seconds', 'completed_watt_seconds', 'completed_cost'])}
    ${s === '1' ? `, ${keepMin('completed_min')}, ${keepMax('completed_max')}` : ''};`;

/** Per completion day: failed jobs by error code. */
const failureDay = (src: string, s: Sign): string => `
  INSERT INTO analytics_day_failure (day, printer_id, code, n)
  SELECT substr(j.completed_at, 1, 10), ${keyOf('j.printer_id')}, COALESCE(j.error_code, 'unknown'), SUM(${s})
  FROM ${src} j, ${BOTH_KEYS} k WHERE j.completed_at IS NOT NULL AND j.status = 'failed' GROUP BY 1, 2, 3
  ON CONFLICT (day, printer_id, code) DO UPDATE SET ${addUp(['n'])};`;

// A minimum or maximum cannot be taken back by subtraction: when a job leaves a day, the day's value is read again
// from the jobs (one day: an index range), and only when the job's part in it changed.
const samePrinter = `(analytics_day.printer_id = '*' OR j.printer_id IS NULLIF(analytics_day.printer_id, ''))`;
const ofJob = (row: string, col: string): string => `day = substr(${row}.${col}, 1, 10) AND printer_id IN (COALESCE(${row}.printer_id, ''), '*')`;
const inDay = (col: string): string => `j.${col} >= analytics_day.day AND j.${col} < date(analytics_day.day, '+1 day')`;

const recountMax = (row: 'OLD', updated: boolean): string => `
  UPDATE analytics_day SET wait_max = (SELECT MAX(${WAIT}) FROM jobs j WHERE ${inDay('started_at')} AND ${samePrinter})
  WHERE ${row}.started_at IS NOT NULL AND ${ofJob(row, 'started_at')}
    ${updated ? `AND (${changed('started_at, created_at, printer_id')})` : ''};
  UPDATE analytics_day SET
    completed_min = (SELECT MIN(j.elapsed_time) FROM jobs j WHERE ${isCompleted} AND ${inDay('completed_at')} AND ${samePrinter}),
    completed_max = (SELECT MAX(j.elapsed_time) FROM jobs j WHERE ${isCompleted} AND ${inDay('completed_at')} AND ${samePrinter})
  WHERE ${row}.status = 'completed' AND ${row}.completed_at IS NOT NULL AND ${ofJob(row, 'completed_at')}
    ${updated ? `AND (${changed('status, completed_at, elapsed_time, printer_id')})` : ''};`;


/**
 * Ended jobs (or their filament lines) cut into the UTC hours they overlap, exactly as jobOverlap cuts a job to a
 * period: x.sm / x.em the start and end in ms, x.wall seconds, n.key the hour's index from the start hour; a job of
 * no length lies wholly in its start hour. A job stamped ending before it started is left out: where a series puts
 * it depends on its buckets' width (analytics_backward_jobs lists those few for the reports to cut themselves).
 */
const hourSlices = (src: string): string => `
  (SELECT y.*, (y.em - y.sm) / 1000.0 AS wall, y.sm / ${HOUR_MS} AS h0,
     CASE WHEN y.em <= y.sm THEN 1 ELSE (y.em - 1) / ${HOUR_MS} - y.sm / ${HOUR_MS} + 1 END AS nh
   FROM (SELECT l.*, ${ms('l.started_at')} AS sm, ${ms('l.completed_at')} AS em FROM ${src} l
         WHERE l.started_at IS NOT NULL AND l.completed_at >= l.started_at) y) x, ${seq('x.nh')} n, ${BOTH_KEYS} k`;
const slotStart = `((x.h0 + n.key) * ${HOUR_MS})`;
const inside = `MAX(0, (MIN(x.em, ${slotStart} + ${HOUR_MS}) - MAX(x.sm, ${slotStart})) / 1000.0)`;
const share = `CASE WHEN x.wall <= 0 THEN 1 ELSE MIN(1.0, ${inside} / x.wall) END`;
const printing = `CASE WHEN x.wall <= 0 THEN MAX(0, x.elapsed_time)
  ELSE (CASE WHEN x.elapsed_time > 0 THEN MIN(x.elapsed_time, x.wall) ELSE x.wall END) * MIN(1.0, ${inside} / x.wall) END`;
const hourOf = `strftime('%Y-%m-%dT%H', (x.h0 + n.key) * 3600, 'unixepoch')`;

/** Per hour: printing seconds of ended jobs, cut to the hour. */
const printingHour = (src: string, s: Sign): string => `
  INSERT INTO analytics_hour (hour, printer_id, print_seconds)
  SELECT ${hourOf}, ${keyOf('x.printer_id')}, SUM(${s} * (${printing})) FROM ${hourSlices(src)} WHERE true GROUP BY 1, 2
  ON CONFLICT (hour, printer_id) DO UPDATE SET ${addUp(['print_seconds'])};`;

/** Per completion hour: final states. */
const finishedHour = (src: string, s: Sign): string => `
  INSERT INTO analytics_hour (hour, printer_id, completed_n, failed_n, cancelled_n)
  SELECT substr(j.completed_at, 1, 13), ${keyOf('j.printer_id')},
    SUM(${s} * (j.status = 'completed')), SUM(${s} * (j.status = 'failed')), SUM(${s} * (j.status = 'cancelled'))
  FROM ${src} j, ${BOTH_KEYS} k WHERE j.completed_at IS NOT NULL AND j.status IN ${FINAL} GROUP BY 1, 2
  ON CONFLICT (hour, printer_id) DO UPDATE SET ${addUp(['completed_n', 'failed_n', 'cancelled_n'])};`;

/** Every part of a job that depends on the job row alone. */
const jobParts = (src: string, s: Sign): string =>
  [startedDay, createdDay, finishedDay, failureDay, printingHour, finishedHour].map((part) => part(src, s)).join('\n');

// Filament lines as the material report reads them: a job's usage rows (type falling back to the job's), or for a
// job without any, one line from its own totals. Columns: printer_id, started_at, completed_at, type, color,
// material_id, grams, cost.
const lineColumns = `j.printer_id, j.started_at, j.completed_at`;
const ownLine = `${lineColumns}, j.material_type AS type, j.material_color AS color, NULL AS material_id, j.material_used_g AS grams, COALESCE(j.cost, 0) AS cost`;
const usageLine = (u: string): string =>
  `${lineColumns}, COALESCE(${u}.type, j.material_type) AS type, ${u}.color AS color, ${u}.material_id AS material_id, ${u}.grams AS grams, COALESCE(${u}.cost, 0) AS cost`;
const hasNoUsage = `NOT EXISTS (SELECT 1 FROM job_material_usage w WHERE w.job_id = j.id)`;

/** All lines of the jobs in `src`. */
const linesOfJobs = (src: string): string => `
  (SELECT ${usageLine('u')} FROM ${src} j JOIN job_material_usage u ON u.job_id = j.id
   UNION ALL SELECT ${ownLine} FROM ${src} j WHERE j.material_used_g IS NOT NULL AND ${hasNoUsage})`;
/** The line of one usage row (NEW or OLD), with its job as it is now. */
const lineOfUsage = (u: 'NEW' | 'OLD'): string => `(SELECT ${usageLine(u)} FROM jobs j WHERE j.id = ${u}.job_id)`;
/** The job's own line, if `when` holds (the job has no usage rows, or just got its first). */
const ownLineOf = (jobId: string, when: string): string =>
  `(SELECT ${ownLine} FROM jobs j WHERE j.id = ${jobId} AND j.material_used_g IS NOT NULL AND ${when})`;

/** Per start day: filament of ended jobs by printer, type, colour and spool. */
const materialDay = (lines: string, s: Sign): string => `
  INSERT INTO analytics_day_material (day, printer_id, type, color, material_id, lines, grams, cost)
  SELECT substr(l.started_at, 1, 10), ${keyOf('l.printer_id')}, json_quote(l.type), json_quote(l.color), json_quote(l.material_id),
    SUM(${s}), SUM(${s} * l.grams), SUM(${s} * l.cost)
  FROM ${lines} l, ${BOTH_KEYS} k WHERE l.started_at IS NOT NULL AND l.completed_at IS NOT NULL GROUP BY 1, 2, 3, 4, 5
  ON CONFLICT (day, printer_id, type, color, material_id) DO UPDATE SET ${addUp(['lines', 'grams', 'cost'])};`;

/** Per hour: filament of ended jobs by printer and type, cut to the hour. */
const materialHour = (lines: string, s: Sign): string => `
  INSERT INTO analytics_hour_material (hour, printer_id, type, grams, cost)
  SELECT ${hourOf}, ${keyOf('x.printer_id')}, json_quote(x.type), SUM(${s} * x.grams * (${share})), SUM(${s} * x.cost * (${share}))
  FROM ${hourSlices(lines)} WHERE true GROUP BY 1, 2, 3
  ON CONFLICT (hour, printer_id, type) DO UPDATE SET ${addUp(['grams', 'cost'])};`;

const lineParts = (lines: string, s: Sign): string => materialDay(lines, s) + materialHour(lines, s);

/**
 * Jobs longer than a day (with margin): the few that can run across an instant while having started a day before it;
 * and jobs stamped completed before they started (a clock set back).
 */
const oddJobs = (src: string): string => `
  INSERT OR IGNORE INTO analytics_long_jobs (job_id) SELECT j.id FROM ${src} j
  WHERE j.started_at IS NOT NULL AND j.completed_at IS NOT NULL AND julianday(j.completed_at) - julianday(j.started_at) > 0.99;
  INSERT OR IGNORE INTO analytics_backward_jobs (job_id) SELECT j.id FROM ${src} j WHERE j.completed_at < j.started_at;`;
const forgetOddJob = (id: string): string => `
  DELETE FROM analytics_long_jobs WHERE job_id = ${id};
  DELETE FROM analytics_backward_jobs WHERE job_id = ${id};`;

/** The energy of a printer's day rows priced at `after` watts instead of `before`, and the farm's rows by the difference. */
const rewatt = (id: string, before: string, after: string): string => `
  UPDATE analytics_day SET
    ended_watt_seconds = ended_watt_seconds + (SELECT r.ended_seconds FROM analytics_day r WHERE r.day = analytics_day.day AND r.printer_id = ${id}) * (${after} - ${before}),
    completed_watt_seconds = completed_watt_seconds + (SELECT r.completed_seconds FROM analytics_day r WHERE r.day = analytics_day.day AND r.printer_id = ${id}) * (${after} - ${before})
  WHERE printer_id = '*' AND day IN (SELECT r.day FROM analytics_day r WHERE r.printer_id = ${id});
  UPDATE analytics_day SET ended_watt_seconds = ended_seconds * ${after}, completed_watt_seconds = completed_seconds * ${after} WHERE printer_id = ${id};`;

/** The roll-up tables, emptied before a rebuild. */
export const ANALYTICS_ROLLUP_TABLES = ['analytics_day', 'analytics_day_failure', 'analytics_day_material', 'analytics_hour', 'analytics_hour_material', 'analytics_long_jobs', 'analytics_backward_jobs'] as const;

/** Fills the (empty) roll-up tables from every job: the backfill of this migration and `printfarm analytics rebuild`. */
export const FILL_ANALYTICS_ROLLUPS = jobParts(jobRows(null), '1') + lineParts(linesOfJobs('jobs'), '1') + oddJobs('jobs');

const JOB_TRIGGER_COLUMNS = 'started_at, completed_at, printer_id, status, elapsed_time, created_at, error_code, material_used_g, cost';
const USAGE_TOTALS = 'usage_grams, usage_cost';
// The printing time of a running job is in no roll-up: its live counter's writes change nothing there.
const JOB_CHANGED = `${changed(JOB_TRIGGER_COLUMNS.replace('elapsed_time, ', ''))}
  OR (OLD.elapsed_time IS NOT NEW.elapsed_time AND (OLD.completed_at IS NOT NULL OR NEW.completed_at IS NOT NULL))`;

/**
 * A job's usage totals changed (the meter's writes, through migration 009's triggers) and nothing else the roll-ups
 * read: only its grams and costs move, by the difference (the full re-count above covers writes that change more).
 */
const usageTotalsMoved = (): string => {
  const grams = (r: string) => `COALESCE(${r}.usage_grams, ${r}.material_used_g, 0)`;
  const cost = (r: string) => `COALESCE(${r}.usage_cost, ${r}.cost, 0)`;
  return `
  UPDATE analytics_day SET ended_grams = ended_grams + ${grams('NEW')} - ${grams('OLD')}, ended_cost = ended_cost + ${cost('NEW')} - ${cost('OLD')}
  WHERE NEW.started_at IS NOT NULL AND NEW.completed_at IS NOT NULL AND ${'day = substr(NEW.started_at, 1, 10) AND printer_id IN (COALESCE(NEW.printer_id, \'\'), \'*\')'};
  UPDATE analytics_day SET completed_cost = completed_cost + ${cost('NEW')} - ${cost('OLD')}
  WHERE NEW.status = 'completed' AND NEW.completed_at IS NOT NULL AND ${'day = substr(NEW.completed_at, 1, 10) AND printer_id IN (COALESCE(NEW.printer_id, \'\'), \'*\')'};`;
};
const LINE_TRIGGER_COLUMNS = 'started_at, completed_at, printer_id, material_type, material_color, material_used_g, cost';

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

    ${FILL_ANALYTICS_ROLLUPS}

    CREATE TRIGGER analytics_job_insert AFTER INSERT ON jobs BEGIN
      ${jobParts(jobRows('NEW'), '1')}
      ${lineParts(linesOfJobs(jobRows('NEW')), '1')}
      ${oddJobs(jobRows('NEW'))}
    END;
    CREATE TRIGGER analytics_job_delete AFTER DELETE ON jobs BEGIN
      ${jobParts(jobRows('OLD'), '-1')}
      ${recountMax('OLD', false)}
      ${lineParts(linesOfJobs(jobRows('OLD')), '-1')}
      ${forgetOddJob('OLD.id')}
    END;
    CREATE TRIGGER analytics_job_update AFTER UPDATE OF ${JOB_TRIGGER_COLUMNS} ON jobs
      WHEN ${JOB_CHANGED} BEGIN
      ${jobParts(jobRows('OLD'), '-1')}
      ${recountMax('OLD', true)}
      ${jobParts(jobRows('NEW'), '1')}
      ${forgetOddJob('OLD.id')}
      ${oddJobs(jobRows('NEW'))}
    END;
    CREATE TRIGGER analytics_job_usage_totals AFTER UPDATE OF ${USAGE_TOTALS} ON jobs
      WHEN (${changed(USAGE_TOTALS)}) AND NOT (${JOB_CHANGED}) BEGIN
      ${usageTotalsMoved()}
    END;
    CREATE TRIGGER analytics_job_lines AFTER UPDATE OF ${LINE_TRIGGER_COLUMNS} ON jobs
      WHEN ${changed(LINE_TRIGGER_COLUMNS)} BEGIN
      ${lineParts(linesOfJobs(jobRows('OLD')), '-1')}
      ${lineParts(linesOfJobs(jobRows('NEW')), '1')}
    END;
    -- Energy counts each printer's rating as it is now: a new rating (or none, the printer deleted) re-prices its
    -- days, and the farm's days by the difference.
    CREATE TRIGGER analytics_printer_watts AFTER UPDATE OF power_watts ON printers
      WHEN OLD.power_watts IS NOT NEW.power_watts BEGIN ${rewatt('NEW.id', 'COALESCE(OLD.power_watts, 0)', 'COALESCE(NEW.power_watts, 0)')} END;
    CREATE TRIGGER analytics_printer_delete AFTER DELETE ON printers BEGIN ${rewatt('OLD.id', 'COALESCE(OLD.power_watts, 0)', '0')} END;
    CREATE TRIGGER analytics_printer_insert AFTER INSERT ON printers BEGIN ${rewatt('NEW.id', '0', 'COALESCE(NEW.power_watts, 0)')} END;
    -- A job's first usage row replaces its own line; its last one gone, the own line counts again.
    CREATE TRIGGER analytics_usage_insert AFTER INSERT ON job_material_usage BEGIN
      ${lineParts(lineOfUsage('NEW'), '1')}
      ${lineParts(ownLineOf('NEW.job_id', '(SELECT COUNT(*) FROM job_material_usage w WHERE w.job_id = j.id) = 1'), '-1')}
    END;
    CREATE TRIGGER analytics_usage_delete AFTER DELETE ON job_material_usage BEGIN
      ${lineParts(lineOfUsage('OLD'), '-1')}
      ${lineParts(ownLineOf('OLD.job_id', hasNoUsage), '1')}
    END;
    CREATE TRIGGER analytics_usage_update AFTER UPDATE OF job_id, type, color, material_id, grams, cost ON job_material_usage BEGIN
      ${lineParts(lineOfUsage('OLD'), '-1')}
      ${lineParts(ownLineOf('OLD.job_id', `OLD.job_id IS NOT NEW.job_id AND ${hasNoUsage}`), '1')}
      ${lineParts(ownLineOf('NEW.job_id', `OLD.job_id IS NOT NEW.job_id AND (SELECT COUNT(*) FROM job_material_usage w WHERE w.job_id = j.id) = 1`), '-1')}
      ${lineParts(lineOfUsage('NEW'), '1')}
    END;
  `,
  pg: `
    -- The tables only: the fill and the triggers that keep them right come from the analytics port (PostgreSQL
    -- trigger functions, branch i20-sql).
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
  `,
};
