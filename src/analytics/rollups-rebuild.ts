// Rebuilds the analytics roll-ups from the jobs in one transaction (after a restore, a hand edit with triggers off, or a doubt).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { engineSqlOf } from '../storage/engines/engine-sql.js';
import { ANALYTICS_ROLLUP_TABLES, fillAnalyticsRollups } from '../storage/migrations/013-rollup-sql.js';

export interface RebuildResult {
  jobs: number;
  dayRows: number;
  hourRows: number;
}

/** Empties the roll-up tables and fills them again from every job (the migration's backfill); readers see old or new, never half. */
export async function rebuildAnalyticsRollups(db: Kysely<Database>): Promise<RebuildResult> {
  const engine = engineSqlOf(db).engine;
  const fill = fillAnalyticsRollups(engine);
  return db.transaction().execute(async (trx) => {
    // PostgreSQL would JIT-compile the hour statements (their row estimate is far too high: migration 022 tells why),
    // which costs seconds and saves nothing here.
    if (engine === 'postgres') await sql`SET LOCAL jit = off`.execute(trx);
    for (const table of ANALYTICS_ROLLUP_TABLES) await trx.deleteFrom(table).execute();
    for (const statement of fill) await sql.raw(statement).execute(trx);
    const count = async (table: 'jobs' | 'analytics_day' | 'analytics_hour'): Promise<number> =>
      Number((await trx.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    return { jobs: await count('jobs'), dayRows: await count('analytics_day'), hourRows: await count('analytics_hour') };
  });
}
