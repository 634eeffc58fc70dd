// A real server on a data directory, stopped and started again: a job cut off by a crash is failed with host_restart,
// one cut off by a clean stop fails with the session's reason, queued jobs stay queued and run once printers return.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { silentLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { callServer as call, pollUntil as until } from '../helpers/running-server.js';
import { longJobSim } from '../printers/printers-api-harness.js';
import { gcode } from './jobs-harness.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function upload(server: RunningServer, key: string, content: string, fields: Record<string, string>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([content]), 'p.gcode');
  const res = await fetch(`${server.url}/v1/jobs`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
  assert.equal(res.status, 201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}


it('restart: crash mid-print → host_restart; clean stop → failed; queued jobs survive and run', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pf-jobs-restart-'));
  dirs.push(dataDir);
  const config = { host: '127.0.0.1', port: 0, dataDir, env: 'live' as const };
  const long = ['G90', ...Array.from({ length: 3000 }, (_, i) => `G1 X${10 + (i % 2)} Y10 F600`)].join('\n') + '\n';

  const first = await startServer(config, { logger: silentLogger, shutdownGraceMs: 500 });
  const key = first.initialAdminKey!;
  const printer = await call(first, key, 'POST', '/v1/printers', { name: 'r', connection_url: longJobSim('restart-jobs') });
  assert.equal(printer.status, 201);
  const printing = await upload(first, key, long, { printer_id: printer.body.id });
  await until('printing', async () => (await call(first, key, 'GET', `/v1/jobs/${printing}`)).body.status === 'printing');
  const queued = await upload(first, key, gcode(), { printer_id: printer.body.id });
  await first.close();

  // A clean stop ends the print through the session: the job fails with the session's own reason.
  const db = new BetterSqlite3(path.join(dataDir, 'printfarm.sqlite'));
  const row = (id: string) => db.prepare('SELECT status, error_code FROM jobs WHERE id = ?').get(id) as { status: string; error_code: string | null };
  assert.deepEqual(row(printing), { status: 'failed', error_code: 'session_closed' });
  assert.deepEqual(row(queued), { status: 'queued', error_code: null });
  // A crash leaves the row as it was mid-print: make it so, as a killed process would have.
  db.prepare("UPDATE jobs SET status = 'printing', error_code = NULL, error_message = NULL, completed_at = NULL WHERE id = ?").run(printing);
  db.close();

  const second = await startServer(config, { logger: silentLogger, shutdownGraceMs: 500 });
  try {
    const failed = await call(second, key, 'GET', `/v1/jobs/${printing}`);
    assert.equal(failed.body.status, 'failed');
    assert.equal(failed.body.error.code, 'host_restart');
    // The printer reconnects by itself and (auto_start, the default) takes the queued job.
    await until('the queued job to finish', async () => (await call(second, key, 'GET', `/v1/jobs/${queued}`)).body.status === 'completed');
  } finally {
    await second.close();
  }
});
