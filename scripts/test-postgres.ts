// `npm run test:postgres`: the storage, repository, scheduler, jobs and API tests again, on a throw-away PostgreSQL
// cluster (test/helpers/pg-cluster.ts) that this script starts and removes. Without PostgreSQL it says SKIPPED loudly.
// Arguments: test files or folders to run instead of the default set.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pgUnavailableReason, startPgCluster } from '../test/helpers/pg-cluster.js';
import { TEST_PG_URL_VARIABLE } from '../test/helpers/test-database.js';

/** The folders whose tests touch the database through the app, the repositories or the scheduler. */
export const POSTGRES_TEST_FOLDERS = [
  'test/storage',
  'test/jobs',
  'test/scheduler',
  'test/http',
  'test/printers',
  'test/files',
  'test/materials',
  'test/webhooks',
  'test/analytics',
  'test/events',
  'test/auth',
  'test/slicer',
  // Notifications: the outbox, grouping, leases and channel state on PostgreSQL.
  'test/notifications/notify-services.test.ts',
  'test/notifications/notify-email.test.ts',
  'test/cameras',
  // Nodes sharing one database (the three-node test starts its own cluster, so it runs in the main run only).
  'test/nodes/nodes-registry.test.ts',
  'test/nodes/two-nodes.test.ts',
  'test/nodes/node-lost.test.ts',
  'test/nodes/refused-start-nodes.test.ts',
  'test/nodes/farm-view.test.ts',
  'test/nodes/idempotency-nodes.test.ts',
];

function testFiles(target: string): string[] {
  if (!statSync(target).isDirectory()) return [target];
  return readdirSync(target, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join(target, f))
    .sort();
}

async function main(): Promise<number> {
  const reason = pgUnavailableReason();
  if (reason) {
    console.log('');
    console.log(`==== test:postgres SKIPPED: ${reason} — the PostgreSQL run did NOT happen ====`);
    console.log('');
    return 0;
  }
  const targets = process.argv.slice(2);
  const files = (targets.length > 0 ? targets : POSTGRES_TEST_FOLDERS).flatMap(testFiles);
  const cluster = await startPgCluster();
  const stopOnSignal = (): void => {
    void cluster.stop().then(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  try {
    console.log(`test:postgres: ${files.length} test files on a throw-away PostgreSQL cluster in ${cluster.socketDir}`);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=1800000', '--test-reporter=spec', ...files],
      { stdio: 'inherit', env: { ...process.env, [TEST_PG_URL_VARIABLE]: cluster.url() } },
    );
    return await new Promise<number>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  } finally {
    await cluster.stop();
  }
}

process.exitCode = await main();
