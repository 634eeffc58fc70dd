// A describe block on a fresh PostgreSQL database (the run's cluster or one of its own), skipped with the reason when
// PostgreSQL is missing; the body opens handles on it and closes them itself.
import { describe } from 'node:test';
import type { PostgresHandle } from '../../src/storage/db.js';
import { openPostgres, type OpenPostgresOptions } from '../../src/storage/open-postgres.js';
import { pgDatabaseForSuite, pgSkipReason } from './pg-for-tests.js';

export function describeOnPostgres(title: string, nowIso: string, body: (open: (options?: OpenPostgresOptions) => Promise<PostgresHandle>) => void): void {
  describe(title, { skip: pgSkipReason() }, () => {
    const url = pgDatabaseForSuite();
    body((options) => openPostgres(url(), nowIso, options));
  });
}
