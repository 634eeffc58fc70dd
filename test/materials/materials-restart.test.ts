// A real server on a data directory: a clean stop charges the spool exactly what ran; after a crash the job keeps what
// the last coalesced write charged (no double charge) and gets its grams and cost from it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { silentLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';
import { callServer as call, pollUntil as until } from '../helpers/running-server.js';
import { longJobSim } from '../printers/printers-api-harness.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});


it('clean stop charges exactly what ran; a crash keeps the last coalesced charge and settles grams and cost from it', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pf-materials-restart-'));
  dirs.push(dataDir);
  const config = { host: '127.0.0.1', port: 0, dataDir, env: 'live' as const };
  const gcode = ['G90', 'M83', ...Array.from({ length: 3000 }, (_, i) => `G1 X${10 + (i % 2)} Y10 E1 F600`)].join('\n') + '\n';

  const first = await startServer(config, { logger: silentLogger, shutdownGraceMs: 500 });
  const key = first.initialAdminKey!;
  const printer = await call(first, key, 'POST', '/v1/printers', { name: 'r', connection_url: longJobSim('restart-materials') });
  assert.equal(printer.status, 201);
  const spool = await call(first, key, 'POST', '/v1/materials', { type: 'PLA', spool_weight: 1000, cost_per_kg: 20, printer_id: printer.body.id });
  assert.equal(spool.status, 201);
  const form = new FormData();
  form.append('printer_id', printer.body.id);
  form.append('file', new Blob([gcode]), 'p.gcode');
  const created = await fetch(`${first.url}/v1/jobs`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
  assert.equal(created.status, 201);
  const jobId = ((await created.json()) as { data: { id: string } }).data.id;
  const remaining = async () => (await call(first, key, 'GET', `/v1/materials/${spool.body.id}`)).body.remaining_weight as number;
  await until('a live draw from the spool', async () => (await remaining()) < 1000);
  await first.close();

  const db = new BetterSqlite3(path.join(dataDir, 'printfarm.sqlite'));
  const grams = () => (db.prepare('SELECT grams FROM job_material_usage WHERE job_id = ?').get(jobId) as { grams: number }).grams;
  const left = () => (db.prepare('SELECT remaining_weight FROM materials WHERE id = ?').get(spool.body.id) as { remaining_weight: number }).remaining_weight;
  const job = () => db.prepare('SELECT status, error_code, material_used, cost FROM jobs WHERE id = ?').get(jobId) as Record<string, any>;
  assert.equal(job().status, 'failed');
  const charged = grams();
  assert.ok(Math.abs(1000 - left() - charged) < 1e-9, `the spool lost exactly the job's grams (${charged})`);
  assert.ok(job().cost >= (charged * 20) / 1000 - 1e-4, 'the cost (rounded to 1/10,000) holds the filament');
  // A crash leaves the row mid-print, with what the last coalesced write charged.
  db.prepare("UPDATE jobs SET status = 'printing', error_code = NULL, error_message = NULL, completed_at = NULL, material_used = NULL, cost = NULL WHERE id = ?").run(jobId);
  db.close();

  const second = await startServer(config, { logger: silentLogger, shutdownGraceMs: 500 });
  try {
    const failed = await call(second, key, 'GET', `/v1/jobs/${jobId}`);
    assert.equal(failed.body.error.code, 'host_restart');
    assert.ok(Math.abs(failed.body.material.used['0'] - charged) < 0.001);
    assert.ok(failed.body.cost >= (charged * 20) / 1000 - 1e-4, `cost ${failed.body.cost}`);
    const after = await call(second, key, 'GET', `/v1/materials/${spool.body.id}`);
    assert.ok(Math.abs(after.body.remaining_weight - (1000 - charged)) < 0.01, 'no second charge');
  } finally {
    await second.close();
  }
});
