// The PostgreSQL a cross-engine test uses: the run's cluster (PRINTFARM_TEST_PG_URL) or one started for the file;
// without PostgreSQL installed the test skips with the reason (never a silent pass).
import { after, before } from 'node:test';
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

/** Inside a describe: the suite's cluster (the run's or its own), started before its tests and stopped after them. */
export function pgForSuite(): () => PgForTests {
  let cluster: PgForTests | undefined;
  before(async () => {
    cluster = await pgForTests();
  });
  after(() => cluster?.stop());
  return () => {
    if (!cluster) throw new Error('the PostgreSQL cluster of this suite is not started yet (use it inside a hook or test)');
    return cluster;
  };
}

/**
 * Inside a describe: a cluster (the run's or its own) and one new database for the suite, dropped and stopped after
 * it. Returns the database's URL once the suite's hooks ran.
 */
export function pgDatabaseForSuite(): () => string {
  let cluster: PgForTests | undefined;
  let db: { url: string; drop(): Promise<void> } | undefined;
  before(async () => {
    cluster = await pgForTests();
    db = await cluster.createDatabase();
  });
  after(async () => {
    await db?.drop();
    await cluster?.stop();
  });
  return () => {
    if (!db) throw new Error('the PostgreSQL database of this suite is not created yet (use it inside a hook or test)');
    return db.url;
  };
}
