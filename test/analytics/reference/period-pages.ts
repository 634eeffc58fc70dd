// Reference (frozen copy of the direct computation before the roll-ups, for the equivalence test): Rows of the jobs overlapping a period, read in pages of plain queries: constant memory, no per-row cost of a stream.
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../../src/storage/schema.js';
import { jobsOf, overlapTerms, unionOfTerms, type AnalyticsFilter, type Term } from './analytics.repository.js';

// Why pages: kysely's .stream() passes every row through several async generators (about a microsecond each), which
// for the ~8,000 jobs of a month on a big farm was a third of a report's time. A page is one execute(): no cursor
// stays open, so the connection is free between pages.

/** Most jobs in one page (a started_at window holds more only if more started at one same instant). */
export const PAGE_JOBS = 5000;

export interface Window {
  from: string;
  to: string;
}

/**
 * Windows [from, to) of started_at that cover the period, each holding at most `size` of the scope's jobs: the next
 * cut is the started_at `size` jobs further along jobs_started_cover (an index walk, no rows read out).
 */
export async function* startedWindows(db: Kysely<Database>, f: AnalyticsFilter, size = PAGE_JOBS): AsyncGenerator<Window> {
  let from = f.from;
  while (from < f.to) {
    const cut = await jobsOf(db, f)
      .select('j.started_at')
      .where('j.started_at', '>=', from)
      .where('j.started_at', '<', f.to)
      .orderBy('j.started_at')
      .limit(1)
      .offset(size)
      .executeTakeFirst();
    let to = cut?.started_at ?? f.to;
    if (to === from) {
      // More than `size` jobs started at this very instant: they make one window up to the next instant.
      const next = await jobsOf(db, f)
        .select(sql<string | null>`MIN(j.started_at)`.as('at'))
        .where('j.started_at', '>', from)
        .where('j.started_at', '<', f.to)
        .executeTakeFirstOrThrow();
      to = next.at ?? f.to;
    }
    yield { from, to };
    from = to;
  }
}

/**
 * Rows about the jobs overlapping the period, page by page: `select(term, i, window)` is the query of overlap term i
 * (see overlapTerms). Jobs that started inside the period (term 0) come in started_at windows (the term is the
 * window's, and the window is passed too), then those that started before it and ran into it (terms 1 and 2, few:
 * one or two a printer) in one page.
 */
export async function* overlapPages<R>(
  db: Kysely<Database>,
  f: AnalyticsFilter,
  select: (term: Term, index: number, window?: Window) => SelectQueryBuilder<any, any, R>,
  size = PAGE_JOBS,
): AsyncGenerator<R[]> {
  for await (const w of startedWindows(db, f, size)) {
    const rows = await select(overlapTerms({ ...f, ...w })[0], 0, w).execute();
    if (rows.length > 0) yield rows;
  }
  const [, before, running] = overlapTerms(f);
  const rest = await unionOfTerms([before, running], (term) => select(term, term === before ? 1 : 2)).execute();
  if (rest.length > 0) yield rest;
}
