// storage.low: said when this node's disk goes from ok to low or full, once per episode; and the real server says it
// at start when the disk is already short of the organization's reserve.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { silentLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';
import type { StorageState } from '../../src/storage/storage-status.js';
import { createStorageWatch, type StorageLowObject } from '../../src/storage/storage-watch.js';
import { eventually } from '../webhooks/webhook-harness.js';

describe('storage watch', () => {
  it('records once when the disk turns low, again only after it was ok in between', async () => {
    let state: StorageState = 'ok';
    const recorded: StorageLowObject[] = [];
    const watch = createStorageWatch({
      state: async () => state,
      space: async () => ({ freeBytes: 150 * 1024 * 1024, reserveBytes: 200 * 1024 * 1024 }),
      record: async (o) => recorded.push(o),
      nodeId: 'nod_1',
      logger: silentLogger,
    });
    await watch.check();
    assert.equal(recorded.length, 0);
    state = 'low';
    await watch.check();
    await watch.check();
    state = 'full';
    await watch.check();
    assert.deepEqual(recorded, [{ object: 'storage', node_id: 'nod_1', state: 'low', free_mb: 150, reserve_mb: 200 }], 'low then full is one episode');
    state = 'ok';
    await watch.check();
    state = 'full';
    await watch.check();
    assert.deepEqual(recorded.map((o) => o.state), ['low', 'full']);
  });

  it('the server records storage.low at start when the disk is below the organization reserve', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'printfarm-storage-watch-'));
    try {
      const first = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir, env: 'live' }, { logger: silentLogger });
      // A reserve of a terabyte: no test disk has that much free.
      await first.deps.db.updateTable('organization').set({ storage_reserve_mb: 1_000_000 }).execute();
      assert.equal((await first.deps.db.selectFrom('events').select('type').where('type', '=', 'storage.low').execute()).length, 0, 'ok at the first start');
      await first.close();
      const second = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir, env: 'live' }, { logger: silentLogger });
      try {
        const stored = async () => (await second.deps.db.selectFrom('events').select('body').where('type', '=', 'storage.low').execute()).map((r) => JSON.parse(r.body).data.object as StorageLowObject);
        await eventually(async () => (await stored()).length === 1, 'storage.low stored');
        const o = (await stored())[0]!;
        assert.equal(o.state, 'low');
        assert.equal(o.reserve_mb, 1_000_000);
        assert.equal(o.node_id, second.deps.node.id);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
