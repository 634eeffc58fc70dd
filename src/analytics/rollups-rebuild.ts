// Rebuilds the analytics roll-ups from the jobs in one transaction (after a restore, a hand edit with triggers off, or a doubt).
import type BetterSqlite3 from 'better-sqlite3';
import { ANALYTICS_ROLLUP_TABLES, FILL_ANALYTICS_ROLLUPS } from '../storage/migrations/013-analytics-rollups.js';

export interface RebuildResult {
  jobs: number;
  dayRows: number;
  hourRows: number;
}

/** Empties the roll-up tables and fills them again from every job (the migration's backfill); readers see old or new, never half. */
export function rebuildAnalyticsRollups(sqlite: BetterSqlite3.Database): RebuildResult {
  return sqlite.transaction(() => {
    for (const table of ANALYTICS_ROLLUP_TABLES) sqlite.exec(`DELETE FROM ${table}`);
    sqlite.exec(FILL_ANALYTICS_ROLLUPS);
    const count = (sql: string): number => (sqlite.prepare(sql).get() as { n: number }).n;
    return {
      jobs: count('SELECT COUNT(*) AS n FROM jobs'),
      dayRows: count('SELECT COUNT(*) AS n FROM analytics_day'),
      hourRows: count('SELECT COUNT(*) AS n FROM analytics_hour'),
    };
  })();
}
