// A farm on PostgreSQL for the backup tests: one box's farm (a stored file, a seeded history of finished jobs with their
// roll-ups) moved onto the database with printfarm db copy; its data directory keeps the secret key.
import assert from 'node:assert/strict';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { seedJobHistory } from '../../scripts/seed-job-history.js';
import { parseDbCopyArgs, runDbCopy } from '../../src/cli/db-copy.command.js';
import { silentLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';
import { gcode } from '../jobs/jobs-harness.js';
import { callServer as call } from '../helpers/running-server.js';
import { fastSim } from '../printers/printers-api-harness.js';

/** A one-box farm with a stored file (a queued job) and a seeded history of finished jobs, moved onto PostgreSQL. */
/** Returns the data directory (its secret.key) and the farm's admin key. */
export async function farmOnPostgres(url: string, dataDir: string): Promise<{ dataDir: string; key: string }> {
  let key = '';
  const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, env: 'live', mdns: false, workers: 0 }, { logger: silentLogger, shutdownGraceMs: 500 });
  try {
    key = server.initialAdminKey!;
    assert.equal((await call(server, key, 'PATCH', '/v1/organization', { auto_start: false })).status, 200);
    const printer = await call(server, key, 'POST', '/v1/printers', { name: 'p1', connection_url: fastSim('round-trip') });
    const form = new FormData();
    form.append('printer_id', printer.body.id as string);
    form.append('file', new Blob([gcode({ moves: 50, tag: 'kept' })]), 'part.gcode');
    const res = await fetch(`${server.url}/v1/jobs`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
    assert.equal(res.status, 201, await res.text());
  } finally {
    await server.close();
  }
  const sqlite = new BetterSqlite3(path.join(dataDir, 'printfarm.sqlite'));
  seedJobHistory(sqlite, { jobs: 300, printers: 3, from: Date.parse('2026-01-01T00:00:00Z'), to: Date.parse('2026-06-01T00:00:00Z') });
  sqlite.close();
  assert.equal(await runDbCopy(parseDbCopyArgs(['copy', '--from', `sqlite:${dataDir}`, '--to', url]), () => undefined), 0);
  return { dataDir, key };
}
