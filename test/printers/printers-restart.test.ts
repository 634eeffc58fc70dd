// A real server on a data directory: printers known at the stop reconnect by themselves at the next start; a print cut off by the stop leaves ready=false; the sealed api_key survives.
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EventBus } from '../../src/events/event-bus.js';
import { silentLogger } from '../../src/logger.js';
import { SECRET_KEY_FILE } from '../../src/printers/secret-box.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { longJobSim, writeLongJob } from './printers-api-harness.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Resolves when `printerId` comes online (or already is); rejects after a bound, not a speed expectation. */
function online(server: RunningServer, printerId: string, timeoutMs = 20_000): Promise<void> {
  const bus: EventBus = server.deps.bus;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`${printerId} did not come online within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = bus.on('printer.online', (p) => {
      if (p.printer_id !== printerId) return;
      clearTimeout(timer);
      off();
      resolve();
    });
    if (server.deps.sessions.get(printerId)?.currentStatus === 'idle') {
      clearTimeout(timer);
      off();
      resolve();
    }
  });
}

it('printers reconnect after a restart; a print cut off by the stop leaves the bed uncleared; the api_key survives', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pf-printers-restart-'));
  dirs.push(dataDir);
  const config = { host: '127.0.0.1', port: 0, dataDir, env: 'live' as const };

  const first = await startServer(config, { logger: silentLogger, shutdownGraceMs: 500 });
  const key = first.initialAdminKey!;
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const created = await fetch(`${first.url}/v1/printers`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'survivor', connection_url: longJobSim('survivor'), api_key: 'printer-pass-42' }),
  });
  assert.equal(created.status, 201);
  const { id } = (await created.json()) as { id: string };
  await online(first, id);
  const file = path.join(dataDir, 'long.gcode');
  await writeLongJob(file);
  const job = await first.deps.sessions.require(id).startJob({ jobId: 'job_cut', filePath: file });
  await new Promise<void>((resolve) => {
    const off = first.deps.bus.on('job.progress', (p) => p.job_id === 'job_cut' && p.lines_acked > 0 && (off(), resolve()));
  });
  await first.close();
  assert.deepEqual((await job.finished).status, 'failed', 'the stop ended the print');
  assert.equal(first.deps.sessions.size, 0, 'the sessions were closed at shutdown');
  assert.equal((await stat(path.join(dataDir, SECRET_KEY_FILE))).mode & 0o777, 0o600);

  const second = await startServer(config, { logger: silentLogger, shutdownGraceMs: 500 });
  try {
    assert.equal(second.initialAdminKey, null);
    await online(second, id);
    const res = await fetch(`${second.url}/v1/printers/${id}`, { headers });
    const printer = (await res.json()) as { status: string; ready: boolean; has_api_key: boolean; firmware: string };
    assert.equal(printer.status, 'idle');
    assert.equal(printer.ready, false, 'an uncleared bed is remembered');
    assert.equal(printer.has_api_key, true);
    assert.match(printer.firmware, /Marlin/);
    assert.equal(await second.deps.printers.readApiKey(id), 'printer-pass-42', 'the key file opens what the first run sealed');
  } finally {
    await second.close();
  }
});
