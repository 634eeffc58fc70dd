// Two nodes (two apps on one PostgreSQL database) send one farm's notifications: every message once,
// whichever node recorded its events.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import { pgSkipReason } from '../helpers/pg-for-tests.js';
import { freshPgDatabases } from '../helpers/pg-databases.js';
import { mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { eventually } from '../webhooks/webhook-harness.js';
import { channelBody, createChannel, failedJob } from './notify-harness.js';
import { startStandIns } from './service-stand-ins.js';

describe('notifications shared by two nodes', { skip: pgSkipReason() }, () => {
  const { open, create } = freshPgDatabases();

  it('every message goes out once while both nodes send', async () => {
    const url = await create();
    const clock = new ManualClock();
    const notifications = { groupMs: 0, timeoutMs: 3000, random: () => 0.5, safetyPollMs: 50 };
    const apps: TestApp[] = [];
    for (let i = 0; i < 2; i++) {
      const t = await startTestApp({ databaseUrl: url, clock, notifications });
      open.push(t);
      apps.push(t);
    }
    const s = await startStandIns();
    open.push(s);
    const key = await mintTestKey(apps[0]!);
    await createChannel(apps[0]!, key, channelBody('ntfy', s, ['job.failed']));
    const N = 20;
    // groupMs 0: each event is its own message (nothing to group with).
    for (let i = 1; i <= N; i++) await apps[i % 2]!.deps.events.recordNow('job.failed', failedJob(i));
    for (const t of apps) t.deps.notifications.worker.wake();
    await eventually(async () => (await apps[0]!.deps.db.selectFrom('notification_deliveries').select('id').where('status', '=', 'pending').execute()).length === 0, 'nothing pending', 20_000);
    const names = s.of('ntfy').map((r) => /“(.+)”/.exec(String(r.body.title))?.[1]);
    assert.equal(names.length, N, 'no message twice');
    assert.equal(new Set(names).size, N, 'every message');
  });
});
