// A server killed with SIGKILL while notifications wait (one hanging at the service) sends every one of them after the
// next start on the same data directory: the outbox is in the database, written with each event.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';
import { DATABASE_FILE, openDatabase } from '../../src/storage/db.js';
import { eventually } from '../webhooks/webhook-harness.js';
import { startStandIns } from './service-stand-ins.js';

const COUNT = 8;
const FIXTURE = path.resolve('test/notifications/fixtures/notify-pending.fixture.ts');

describe('crash while notifications wait', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'printfarm-notify-kill-'));
  let child: ChildProcess | undefined;
  after(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGKILL, restart: every message reaches the service', async () => {
    const s = await startStandIns();
    // Two are taken, then the service stops answering: one attempt hangs, the rest wait behind it.
    let up = false;
    s.faults.ntfy = (_r, i) => (!up && i >= 2 ? 'hang' : undefined);
    try {
      child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dir, s.baseUrl, String(COUNT)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let output = '';
      child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child!.on('exit', (_code, signal) => resolve(signal)));
      await eventually(() => output.includes('\n') && s.of('ntfy').length === 3, 'the events and the hanging attempt', 30_000);
      const names = (JSON.parse(output) as { names: string[] }).names;
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
      const peek = openDatabase(path.join(dir, DATABASE_FILE));
      const pending = await peek.db.selectFrom('notification_deliveries').select('status').where('status', '=', 'pending').execute();
      await peek.close();
      assert.equal(pending.length, COUNT - 2, 'all but the two answered were pending when the process died');

      up = true;
      const second = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir, env: 'live' }, { logger: silentLogger });
      try {
        const got = () => new Set(s.of('ntfy').map((r) => /“(.+)”/.exec(String(r.body.title))?.[1]));
        await eventually(() => names.every((n) => got().has(n)), 'every message after the restart', 20_000);
        await eventually(
          async () => (await second.deps.db.selectFrom('notification_deliveries').select('status').where('status', '!=', 'delivered').execute()).length === 0,
          'every message marked delivered',
        );
        assert.deepEqual(s.refused, []);
      } finally {
        await second.close();
      }
    } finally {
      await s.close();
    }
  });
});
