// Inside a describe block: a fresh PostgreSQL database per test (dropped after it, once the handles the test tracked in
// `open` are closed), on the run's cluster or one of its own.
import { after, afterEach, before } from 'node:test';
import { pgForTests, type PgForTests } from './pg-for-tests.js';

export function freshPgDatabases(): { open: Array<{ close(): Promise<void> }>; create(): Promise<string> } {
  let pg: PgForTests | undefined;
  const open: Array<{ close(): Promise<void> }> = [];
  const drops: Array<() => Promise<void>> = [];
  before(async () => {
    pg = await pgForTests();
  });
  afterEach(async () => {
    for (const x of open.splice(0).reverse()) await x.close();
    for (const d of drops.splice(0)) await d();
  });
  after(async () => {
    await pg?.stop();
  });
  return {
    open,
    async create() {
      const db = await pg!.createDatabase();
      drops.push(db.drop);
      return db.url;
    },
  };
}
