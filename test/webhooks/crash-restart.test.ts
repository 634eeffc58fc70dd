// A server killed with SIGKILL while deliveries are pending delivers every one of them after the next start on the same data directory.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';
import { DATABASE_FILE, openDatabase } from '../../src/storage/db.js';
import { eventually, startReceiver } from './webhook-harness.js';

const EVENTS = 20;
const FIXTURE = path.resolve('test/webhooks/fixtures/record-pending.fixture.ts');

describe('crash while deliveries are pending', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'printfarm-webhooks-kill-'));
  let child: ChildProcess | undefined;
  after(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGKILL, restart: each event id is acknowledged at least once', async () => {
    // The receiver takes three, then stops answering: one attempt hangs, the rest wait behind it.
    const acked = new Set<string>();
    let up = false;
    const rx = await startReceiver((r, i) => {
      if (!up && i >= 3) return { status: 200, hang: true };
      acked.add(String(r.headers['x-event-id']));
      return { status: 204 };
    });
    try {
      child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dir, rx.url, String(EVENTS)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let output = '';
      child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child!.on('exit', (_code, signal) => resolve(signal)));
      await eventually(() => output.includes('\n') && rx.received.length === 4, 'the events and the hanging attempt', 30_000);
      const ids = (JSON.parse(output) as { ids: string[] }).ids;
      assert.equal(ids.length, EVENTS);

      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
      const peek = openDatabase(path.join(dir, DATABASE_FILE));
      const pending = await peek.db.selectFrom('webhook_deliveries').select('status').where('status', '=', 'pending').execute();
      await peek.close();
      assert.equal(pending.length, EVENTS - 3, 'all but the three answered were pending when the process died');

      up = true;
      const second = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir, env: 'live' }, { logger: silentLogger });
      try {
        await eventually(() => ids.every((id) => acked.has(id)), 'every event acknowledged after restart', 20_000);
        await eventually(
          async () => (await second.deps.db.selectFrom('webhook_deliveries').select('status').where('status', '!=', 'delivered').execute()).length === 0,
          'every delivery marked delivered',
        );
        assert.deepEqual([...acked].sort(), [...ids].sort(), 'nothing but those events');
      } finally {
        await second.close();
      }
    } finally {
      await rx.close();
    }
  });
});
