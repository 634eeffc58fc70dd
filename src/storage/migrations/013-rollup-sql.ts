// The SQL of migration 013's roll-ups for one engine: the backfill and the statements each trigger runs, written once
// and spelled per engine through storage/engines/sql-text.ts, so both engines keep exactly the same rows.
import { sqlText, type SqlText } from '../engines/sql-text.js';
import type { DbEngine } from '../db.js';

// Every figure the roll-ups hold is what the direct computation over jobs gives for the same rows (src/analytics): the
// triggers add a job's part when it appears and take its old part away when it changes or goes, so whoever writes
// jobs or usage rows (the state machine, the meter, imports, tests) keeps them right inside their own transaction.
// Keys are UTC text prefixes of the ISO timestamps ('2026-03-01' a day, '2026-03-01T10' an hour); printer_id '' is
// "no printer", '*' the whole farm. Nullable texts in keys are JSON-quoted so NULL ('null') and '' ('""') stay apart.

const FINAL = `('completed', 'failed', 'cancelled')`;
const HOUR_MS = 3_600_000;

const JOB_COLUMNS = [
  'id', 'printer_id', 'status', 'created_at', 'started_at', 'completed_at', 'elapsed_time', 'error_code', 'usage_grams',
  'usage_cost', 'material_used_g', 'cost', 'material_type', 'material_color',
];

/** A job row as a one-row table: the trigger's NEW or OLD, or the whole jobs table (backfill). */
export const jobRows = (row: 'NEW' | 'OLD' | null): string =>
  row === null ? 'jobs' : `(SELECT ${JOB_COLUMNS.map((c) => `${row}.${c} AS ${c}`).join(', ')})`;

export type Sign = '1' | '-1';

/** `col = table.col + excluded.col` for each column (qualified: PostgreSQL finds a bare name ambiguous here). */
const addUp = (table: string, cols: string[]): string => cols.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ');

/** The printer's own key and the farm's ('*'): each row is written twice, so a farm-wide question reads one row a day or hour. */
const BOTH_KEYS = `(SELECT 0 AS farm UNION ALL SELECT 1)`;
const keyOf = (printerCol: string): string => `CASE WHEN k.farm = 1 THEN '*' ELSE COALESCE(${printerCol}, '') END`;

/** The job's printer's power rating now (0: none, unrated or deleted); printer triggers follow changes to it. */
const WATTS = `COALESCE((SELECT p.power_watts FROM printers p WHERE p.id = j.printer_id), 0)`;
const isCompleted = `j.status = 'completed'`;

// Filament lines as the material report reads them: a job's usage rows (type falling back to the job's), or for a
// job without any, one line from its own totals. Columns: printer_id, started_at, completed_at, type, color,
// material_id, grams, cost.
const lineColumns = `j.printer_id, j.started_at, j.completed_at`;
const ownLine = `${lineColumns}, j.material_type AS type, j.material_color AS color, CAST(NULL AS TEXT) AS material_id, j.material_used_g AS grams, COALESCE(j.cost, 0) AS cost`;
const usageLine = (u: string): string =>
  `${lineColumns}, COALESCE(${u}.type, j.material_type) AS type, ${u}.color AS color, ${u}.material_id AS material_id, ${u}.grams AS grams, COALESCE(${u}.cost, 0) AS cost`;
export const hasNoUsage = `NOT EXISTS (SELECT 1 FROM job_material_usage w WHERE w.job_id = j.id)`;
export const hasOneUsage = `(SELECT COUNT(*) FROM job_material_usage w WHERE w.job_id = j.id) = 1`;

/** All lines of the jobs in `src`. */
export const linesOfJobs = (src: string): string => `
  (SELECT ${usageLine('u')} FROM ${src} j JOIN job_material_usage u ON u.job_id = j.id
   UNION ALL SELECT ${ownLine} FROM ${src} j WHERE j.material_used_g IS NOT NULL AND ${hasNoUsage})`;
/** The line of one usage row (NEW or OLD), with its job as it is now. */
export const lineOfUsage = (u: 'NEW' | 'OLD'): string => `(SELECT ${usageLine(u)} FROM jobs j WHERE j.id = ${u}.job_id)`;
/** The job's own line, if `when` holds (the job has no usage rows, or just got its first). */
export const ownLineOf = (jobId: string, when: string): string =>
  `(SELECT ${ownLine} FROM jobs j WHERE j.id = ${jobId} AND j.material_used_g IS NOT NULL AND ${when})`;

export const JOB_TRIGGER_COLUMNS = 'started_at, completed_at, printer_id, status, elapsed_time, created_at, error_code, material_used_g, cost';
export const USAGE_TOTALS = 'usage_grams, usage_cost';
export const LINE_TRIGGER_COLUMNS = 'started_at, completed_at, printer_id, material_type, material_color, material_used_g, cost';

/** The roll-up tables, emptied before a rebuild. */
export const ANALYTICS_ROLLUP_TABLES = ['analytics_day', 'analytics_day_failure', 'analytics_day_material', 'analytics_hour', 'analytics_hour_material', 'analytics_long_jobs', 'analytics_backward_jobs'] as const;

export interface RollupSql {
  /** Any of the columns differs between OLD and NEW (update triggers). */
  changed(cols: string): string;
  /** The job columns the roll-ups read changed (a running job's live elapsed_time counter does not count). */
  jobChanged: string;
  /** Statements (each ending in ';') adding (1) or removing (-1) every part of the jobs in `src` that depends on the job row alone. */
  jobParts(src: string, s: Sign): string;
  /** The same as jobParts, each hour row written once (a statement trigger's many jobs: writes are most of its cost). */
  bulkJobParts(src: string, s: Sign): string;
  /** The days' minimum and maximum read again after the job `row` left them. */
  recountMax(row: 'OLD', updated: boolean): string;
  /** Statements adding or removing the filament lines `lines`. */
  lineParts(lines: string, s: Sign): string;
  oddJobs(src: string): string;
  forgetOddJob(id: string): string;
  usageTotalsMoved: string;
  rewatt(id: string, before: string, after: string): string;
  /** The backfill: one statement an entry, run on empty roll-up tables. */
  fill: string[];
}

export function rollupSql(d: SqlText): RollupSql {
  const ms = d.epochMs;
  /** Seconds a job waited in the queue, as the job report computes it. */
  const WAIT = d.greatest('0', `(${ms('j.started_at')} - ${ms('j.created_at')}) / 1000.0`);
  const changed = (cols: string): string => cols.split(', ').map((c) => d.distinct(`OLD.${c}`, `NEW.${c}`)).join(' OR ');
  /** The smaller / larger of a stored and an added value, either possibly NULL. */
  const keepMin = (c: string): string => `${c} = COALESCE(${d.least(`analytics_day.${c}`, `excluded.${c}`)}, analytics_day.${c}, excluded.${c})`;
  const keepMax = (c: string): string => `${c} = COALESCE(${d.greatest(`analytics_day.${c}`, `excluded.${c}`)}, analytics_day.${c}, excluded.${c})`;
  const count = (s: Sign, status: string): string => `SUM(${s} * ${d.int(`j.status = '${status}'`)})`;

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
  ON CONFLICT (day, printer_id) DO UPDATE SET ${addUp('analytics_day', ['ended_seconds', 'ended_watt_seconds', 'ended_grams', 'ended_cost', 'started_n', 'wait_sum'])}
    ${s === '1' ? `, ${keepMax('wait_max')}` : ''};`;

  /** Per creation day: jobs created. */
  const createdDay = (src: string, s: Sign): string => `
  INSERT INTO analytics_day (day, printer_id, created_n)
  SELECT substr(j.created_at, 1, 10), ${keyOf('j.printer_id')}, SUM(${s}) FROM ${src} j, ${BOTH_KEYS} k WHERE true GROUP BY 1, 2
  ON CONFLICT (day, printer_id) DO UPDATE SET ${addUp('analytics_day', ['created_n'])};`;

  /** Per completion day: final states, and the completed jobs' printing (sum, min, max) and filament cost. */
  const finishedDay = (src: string, s: Sign): string => `
  INSERT INTO analytics_day (day, printer_id, completed_n, failed_n, cancelled_n, completed_seconds, completed_watt_seconds, completed_cost, completed_min, completed_max)
  SELECT substr(j.completed_at, 1, 10), ${keyOf('j.printer_id')},
    ${count(s, 'completed')}, ${count(s, 'failed')}, ${count(s, 'cancelled')},
    SUM(CASE WHEN ${isCompleted} THEN ${s} * j.elapsed_time ELSE 0 END),
    SUM(CASE WHEN ${isCompleted} THEN ${s} * j.elapsed_time * ${WATTS} ELSE 0 END),
    SUM(CASE WHEN ${isCompleted} THEN ${s} * COALESCE(j.usage_cost, j.cost, 0) ELSE 0 END),
    MIN(CASE WHEN ${isCompleted} THEN j.elapsed_time END), MAX(CASE WHEN ${isCompleted} THEN j.elapsed_time END)
  FROM ${src} j, ${BOTH_KEYS} k WHERE j.completed_at IS NOT NULL AND j.status IN ${FINAL} GROUP BY 1, 2
  ON CONFLICT (day, printer_id) DO UPDATE SET ${addUp('analytics_day', ['completed_n', 'failed_n', 'cancelled_n', 'completed_seconds', 'completed_watt_seconds', 'completed_cost'])}
    ${s === '1' ? `, ${keepMin('completed_min')}, ${keepMax('completed_max')}` : ''};`;

  /** Per completion day: failed jobs by error code. */
  const failureDay = (src: string, s: Sign): string => `
  INSERT INTO analytics_day_failure (day, printer_id, code, n)
  SELECT substr(j.completed_at, 1, 10), ${keyOf('j.printer_id')}, COALESCE(j.error_code, 'unknown'), SUM(${s})
  FROM ${src} j, ${BOTH_KEYS} k WHERE j.completed_at IS NOT NULL AND j.status = 'failed' GROUP BY 1, 2, 3
  ON CONFLICT (day, printer_id, code) DO UPDATE SET ${addUp('analytics_day_failure', ['n'])};`;

  // A minimum or maximum cannot be taken back by subtraction: when a job leaves a day, the day's value is read again
  // from the jobs (one day: an index range), and only when the job's part in it changed.
  const samePrinter = `(analytics_day.printer_id = '*' OR ${d.same('j.printer_id', `NULLIF(analytics_day.printer_id, '')`)})`;
  const ofJob = (row: string, col: string): string => `day = substr(${row}.${col}, 1, 10) AND printer_id IN (COALESCE(${row}.printer_id, ''), '*')`;
  const inDay = (col: string): string => `j.${col} >= analytics_day.day AND j.${col} < ${d.nextDay('analytics_day.day')}`;

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
  // Fenced (d.fence): merged into the outer query, each use of x.sm, x.em, x.wall ... would parse the timestamps again,
  // some twenty times per hour slice (most of PostgreSQL's time in a bulk insert once JIT is off, migration 022).
  const hourSlices = (src: string): string => `
  (SELECT y.*, (y.em - y.sm) / 1000.0 AS wall, y.sm / ${HOUR_MS} AS h0,
     CASE WHEN y.em <= y.sm THEN 1 ELSE (y.em - 1) / ${HOUR_MS} - y.sm / ${HOUR_MS} + 1 END AS nh
   FROM (SELECT l.*, ${ms('l.started_at')} AS sm, ${ms('l.completed_at')} AS em FROM ${src} l
         WHERE l.started_at IS NOT NULL AND l.completed_at >= l.started_at${d.fence}) y${d.fence}) x, ${d.series('x.nh', 'n')}, ${BOTH_KEYS} k`;
  const slotStart = `((x.h0 + n.key) * ${HOUR_MS})`;
  const inside = d.greatest('0', `(${d.least('x.em', `${slotStart} + ${HOUR_MS}`)} - ${d.greatest('x.sm', slotStart)}) / 1000.0`);
  const share = `CASE WHEN x.wall <= 0 THEN 1 ELSE ${d.least('1.0', `${inside} / x.wall`)} END`;
  const printing = `CASE WHEN x.wall <= 0 THEN ${d.greatest('0', 'x.elapsed_time')}
  ELSE (CASE WHEN x.elapsed_time > 0 THEN ${d.least('x.elapsed_time', 'x.wall')} ELSE x.wall END) * ${d.least('1.0', `${inside} / x.wall`)} END`;
  const hourOf = d.utcHourOfSeconds('(x.h0 + n.key) * 3600');

  /** Per hour: printing seconds of ended jobs, cut to the hour. */
  const printingHour = (src: string, s: Sign): string => `
  INSERT INTO analytics_hour (hour, printer_id, print_seconds)
  SELECT ${hourOf}, ${keyOf('x.printer_id')}, SUM(${s} * (${printing})) FROM ${hourSlices(src)} WHERE true GROUP BY 1, 2
  ON CONFLICT (hour, printer_id) DO UPDATE SET ${addUp('analytics_hour', ['print_seconds'])};`;

  /** Per completion hour: final states. */
  const finishedHour = (src: string, s: Sign): string => `
  INSERT INTO analytics_hour (hour, printer_id, completed_n, failed_n, cancelled_n)
  SELECT substr(j.completed_at, 1, 13), ${keyOf('j.printer_id')}, ${count(s, 'completed')}, ${count(s, 'failed')}, ${count(s, 'cancelled')}
  FROM ${src} j, ${BOTH_KEYS} k WHERE j.completed_at IS NOT NULL AND j.status IN ${FINAL} GROUP BY 1, 2
  ON CONFLICT (hour, printer_id) DO UPDATE SET ${addUp('analytics_hour', ['completed_n', 'failed_n', 'cancelled_n'])};`;

  const jobPartList = [startedDay, createdDay, finishedDay, failureDay, printingHour, finishedHour];
  const jobParts = (src: string, s: Sign): string => jobPartList.map((part) => part(src, s)).join('\n');

  /**
   * printingHour and finishedHour in one upsert: the union of their rows summed per key, so an hour row that both
   * write (a job's last hour) is written once. The same rows and sums (a part's missing columns add 0).
   */
  const jobHours = (src: string, s: Sign): string => `
  INSERT INTO analytics_hour (hour, printer_id, print_seconds, completed_n, failed_n, cancelled_n)
  SELECT h.hour, h.printer_id, SUM(h.print_seconds), SUM(h.completed_n), SUM(h.failed_n), SUM(h.cancelled_n) FROM (
    SELECT ${hourOf} AS hour, ${keyOf('x.printer_id')} AS printer_id, ${s} * (${printing}) AS print_seconds, 0 AS completed_n, 0 AS failed_n, 0 AS cancelled_n
    FROM ${hourSlices(src)}
    UNION ALL
    SELECT substr(j.completed_at, 1, 13), ${keyOf('j.printer_id')}, 0, ${s} * ${d.int(`j.status = 'completed'`)}, ${s} * ${d.int(`j.status = 'failed'`)}, ${s} * ${d.int(`j.status = 'cancelled'`)}
    FROM ${src} j, ${BOTH_KEYS} k WHERE j.completed_at IS NOT NULL AND j.status IN ${FINAL}) h
  GROUP BY 1, 2
  ON CONFLICT (hour, printer_id) DO UPDATE SET ${addUp('analytics_hour', ['print_seconds', 'completed_n', 'failed_n', 'cancelled_n'])};`;
  const bulkJobParts = (src: string, s: Sign): string => [startedDay, createdDay, finishedDay, failureDay, jobHours].map((part) => part(src, s)).join('\n');

  /** Per start day: filament of ended jobs by printer, type, colour and spool. */
  const materialDay = (lines: string, s: Sign): string => `
  INSERT INTO analytics_day_material (day, printer_id, type, color, material_id, lines, grams, cost)
  SELECT substr(l.started_at, 1, 10), ${keyOf('l.printer_id')}, ${d.jsonQuote('l.type')}, ${d.jsonQuote('l.color')}, ${d.jsonQuote('l.material_id')},
    SUM(${s}), SUM(${s} * l.grams), SUM(${s} * l.cost)
  FROM ${lines} l, ${BOTH_KEYS} k WHERE l.started_at IS NOT NULL AND l.completed_at IS NOT NULL GROUP BY 1, 2, 3, 4, 5
  ON CONFLICT (day, printer_id, type, color, material_id) DO UPDATE SET ${addUp('analytics_day_material', ['lines', 'grams', 'cost'])};`;

  /** Per hour: filament of ended jobs by printer and type, cut to the hour. */
  const materialHour = (lines: string, s: Sign): string => `
  INSERT INTO analytics_hour_material (hour, printer_id, type, grams, cost)
  SELECT ${hourOf}, ${keyOf('x.printer_id')}, ${d.jsonQuote('x.type')}, SUM(${s} * x.grams * (${share})), SUM(${s} * x.cost * (${share}))
  FROM ${hourSlices(lines)} WHERE true GROUP BY 1, 2, 3
  ON CONFLICT (hour, printer_id, type) DO UPDATE SET ${addUp('analytics_hour_material', ['grams', 'cost'])};`;

  const lineParts = (lines: string, s: Sign): string => materialDay(lines, s) + materialHour(lines, s);

  /**
   * Jobs longer than a day (with margin): the few that can run across an instant while having started a day before it;
   * and jobs stamped completed before they started (a clock set back).
   */
  const longJobs = (src: string): string =>
    d.insertIgnore('analytics_long_jobs', 'job_id', `SELECT j.id FROM ${src} j
  WHERE j.started_at IS NOT NULL AND j.completed_at IS NOT NULL AND ${ms('j.completed_at')} - ${ms('j.started_at')} > ${0.99 * 86_400_000}`);
  const backwardJobs = (src: string): string =>
    d.insertIgnore('analytics_backward_jobs', 'job_id', `SELECT j.id FROM ${src} j WHERE j.completed_at < j.started_at`);
  const oddJobs = (src: string): string => `\n  ${longJobs(src)};\n  ${backwardJobs(src)};`;
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

  /**
   * A job's usage totals changed (the meter's writes, through migration 009's triggers) and nothing else the roll-ups
   * read: only its grams and costs move, by the difference (the full re-count covers writes that change more).
   */
  const grams = (r: string) => `COALESCE(${r}.usage_grams, ${r}.material_used_g, 0)`;
  const cost = (r: string) => `COALESCE(${r}.usage_cost, ${r}.cost, 0)`;
  const usageTotalsMoved = `
  UPDATE analytics_day SET ended_grams = ended_grams + ${grams('NEW')} - ${grams('OLD')}, ended_cost = ended_cost + ${cost('NEW')} - ${cost('OLD')}
  WHERE NEW.started_at IS NOT NULL AND NEW.completed_at IS NOT NULL AND ${ofJob('NEW', 'started_at')};
  UPDATE analytics_day SET completed_cost = completed_cost + ${cost('NEW')} - ${cost('OLD')}
  WHERE NEW.status = 'completed' AND NEW.completed_at IS NOT NULL AND ${ofJob('NEW', 'completed_at')};`;

  // The printing time of a running job is in no roll-up: its live counter's writes change nothing there.
  const jobChanged = `${changed(JOB_TRIGGER_COLUMNS.replace('elapsed_time, ', ''))}
  OR (${d.distinct('OLD.elapsed_time', 'NEW.elapsed_time')} AND (OLD.completed_at IS NOT NULL OR NEW.completed_at IS NOT NULL))`;

  const all = jobRows(null);
  const fill = [
    ...jobPartList.map((part) => part(all, '1')),
    materialDay(linesOfJobs('jobs'), '1'),
    materialHour(linesOfJobs('jobs'), '1'),
    longJobs('jobs'),
    backwardJobs('jobs'),
  ].map((statement) => `${statement.trim().replace(/;$/, '')};`);

  return { changed, jobChanged, jobParts, bulkJobParts, recountMax, lineParts, oddJobs, forgetOddJob, usageTotalsMoved, rewatt, fill };
}

/** The backfill of the roll-ups on `engine`, one statement an entry: migration 013 and `printfarm analytics rebuild`. */
export const fillAnalyticsRollups = (engine: DbEngine): string[] => rollupSql(sqlText(engine)).fill;
