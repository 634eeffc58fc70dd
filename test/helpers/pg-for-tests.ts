// The PostgreSQL a cross-engine test uses: the run's cluster (PRINTFARM_TEST_PG_URL) or one started for the file;
// without PostgreSQL installed the test skips with the reason (never a silent pass).
import { pgUnavailableReason, startPgCluster, type PgCluster } from './pg-cluster.js';
import { createPgTestDatabase, testPgUrl } from './test-database.js';

export interface PgForTests {
  /** A new empty database: its URL and how to drop it. */
  createDatabase(): Promise<{ url: string; drop(): Promise<void> }>;
  stop(): Promise<void>;
}

/** Why these tests skip here (PostgreSQL missing), or false. */
export const pgSkipReason = (): string | false => (testPgUrl() ? false : (pgUnavailableReason() ?? false));

export async function pgForTests(): Promise<PgForTests> {
  const shared = testPgUrl();
  const own: PgCluster | null = shared ? null : await startPgCluster();
  const maintenance = shared ?? (own as PgCluster).url();
  return {
    createDatabase: () => createPgTestDatabase(maintenance),
    stop: async () => {
      await own?.stop();
    },
  };
}
