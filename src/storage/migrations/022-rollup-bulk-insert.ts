// Migration: PostgreSQL's roll-up triggers made cheap for bulk inserts (no JIT, the hour slices planned on their own,
// room for in-place updates); SQLite keeps its triggers as they are.
import type { Migration } from './migration.js';
import { ANALYTICS_ROLLUP_TABLES } from './013-rollup-sql.js';
import { postgresRollupFunctionNames, replacePostgresRollupFunctions } from './013-analytics-rollups.js';

// Why (EXPLAIN ANALYZE inside analytics_job_insert, 2,000 jobs in one INSERT): the planner takes generate_series over a
// job's hours for 1,000 rows a job (its default for a set-returning function of a column), so the two hour statements
// cost 0.7 and 2.4 million: above jit_above_cost and the inlining and optimizing thresholds. LLVM then compiled them
// on every call, 1 s and 2 s, for statements that run in tens of milliseconds. JIT never pays for a trigger's
// statements: off for the functions only. Next came the timestamps parsed again at each use (013-rollup-sql's fence),
// then the writes: the roll-up rows are updated far more than inserted, and a full page makes every update a new index
// entry too; half-full pages keep most updates in place (HOT). Existing pages keep their fill until rewritten.
const FILL_PERCENT = 50;

export const migration022RollupBulkInsert: Migration = {
  version: 22,
  name: 'rollup-bulk-insert',
  sql: '',
  pg: `
    ${replacePostgresRollupFunctions()}
    ${postgresRollupFunctionNames()
      .map((name) => `ALTER FUNCTION ${name}() SET jit = off;`)
      .join('\n    ')}
    ${ANALYTICS_ROLLUP_TABLES.filter((t) => !t.endsWith('_jobs'))
      .map((t) => `ALTER TABLE ${t} SET (fillfactor = ${FILL_PERCENT});`)
      .join('\n    ')}
  `,
};
