// The nightly backup: when it is due (a table), and a run over eight simulated nights on a real database with a manual
// clock (one a night, the newest `keep` kept, pre-migration archives left alone, settings read at every check).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { backupContents } from '../../src/app/backup-contents.js';
import { localTimeIn } from '../../src/app/nightly-backup-wiring.js';
import { createBackup } from '../../src/backup/create-backup.js';
import { isNightlyDue, NightlyBackup, type NightlySettings } from '../../src/backup/nightly-backup.js';
import { databaseLedger, folderLedger, STALE_CLAIM_MS } from '../../src/backup/nightly-ledger.js';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { openDatabase } from '../../src/storage/db.js';
import { startTestApp } from '../helpers/test-app.js';
import { mintKeyOffline } from '../../src/auth/bootstrap.js';

const root = mkdtempSync(path.join(tmpdir(), 'printfarm-nightly-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('isNightlyDue', () => {
  const at = (day: string, hhmm: string) => ({ day, minutes: Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3)) });
  const cases: Array<[string, ReturnType<typeof at>, string | null, string | null, ReturnType<typeof at> | null, boolean]> = [
    ['before the time', at('2026-03-02', '03:29'), '03:30', '2026-03-01', null, false],
    ['at the time, last one yesterday', at('2026-03-02', '03:30'), '03:30', '2026-03-01', null, true],
    ['already taken today', at('2026-03-02', '23:00'), '03:30', '2026-03-02', null, false],
    ['caught up after days off', at('2026-03-09', '10:00'), '03:30', '2026-03-01', null, true],
    ['turned off', at('2026-03-02', '04:00'), null, '2026-03-01', null, false],
    ['never taken, first check after the time', at('2026-03-02', '15:00'), '03:30', null, null, false],
    ['never taken, crossed while running', at('2026-03-02', '03:31'), '03:30', null, at('2026-03-02', '03:29'), true],
    ['never taken, running since yesterday', at('2026-03-03', '03:30'), '03:30', null, at('2026-03-02', '23:59'), true],
    ['never taken, checked after the time already', at('2026-03-02', '16:00'), '03:30', null, at('2026-03-02', '15:59'), false],
  ];
  for (const [what, now, time, last, previous, due] of cases) {
    it(what, () => assert.equal(isNightlyDue(now, time, last, previous), due));
  }
});

describe('NightlyBackup', () => {
  it('takes one a night in the organization time zone and keeps the newest N', async () => {
    const dataDir = path.join(root, 'farm');
    const handle = openDatabase(path.join(dataDir, 'printfarm.sqlite'));
    writeFileSync(path.join(dataDir, 'secret.key'), 'k'.repeat(44));
    mkdirSync(path.join(dataDir, 'backups'));
    writeFileSync(path.join(dataDir, 'backups', 'pre-migration-v13-20260101T000000Z.tar.gz'), 'kept');
    // 02:00 in Berlin (UTC+1 in March before the switch): before the 03:30 backup time.
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 1, 0));
    const settings: NightlySettings = { time: '03:30', keep: 3, timezone: 'Europe/Berlin', withFiles: false };
    const nightly = new NightlyBackup({
      dataDir,
      write: (toFile, withFiles, nowMs) => createBackup({ sqlite: handle.sqlite, contents: backupContents(dataDir), toFile, withFiles, reason: 'nightly', nowMs }),
      ledger: folderLedger(dataDir, localTimeIn),
      clock,
      logger: silentLogger,
      settings: async () => settings,
      localTime: localTimeIn,
    });
    try {
      assert.equal(await nightly.tick(), null);
      clock.set(Date.UTC(2026, 2, 1, 2, 31)); // 03:31 Berlin
      const first = await nightly.tick();
      assert.equal(path.basename(first!), 'nightly-20260301T023100Z.tar.gz');
      assert.equal(await nightly.tick(), null, 'one a night');
      for (let night = 1; night <= 5; night++) {
        clock.advance(24 * 3_600_000);
        assert.ok(await nightly.tick(), `night ${night}`);
      }
      const names = readdirSync(path.join(dataDir, 'backups')).sort();
      assert.deepEqual(names, [
        'nightly-20260304T023100Z.tar.gz',
        'nightly-20260305T023100Z.tar.gz',
        'nightly-20260306T023100Z.tar.gz',
        'pre-migration-v13-20260101T000000Z.tar.gz',
      ]);
      // Off: nothing more.
      settings.time = null;
      clock.advance(24 * 3_600_000);
      assert.equal(await nightly.tick(), null);
    } finally {
      await nightly.stop();
      await handle.close();
    }
  });
});

describe('backup settings of the organization', () => {
  it('PATCH sets backup_time and backup_keep, and refuses a time that is not HH:MM', async () => {
    const t = await startTestApp();
    try {
      const { key } = await mintKeyOffline({ db: t.deps.db, clock: t.clock, env: 'live' }, { name: 'admin', scopes: ['admin:*'] });
      const patch = (body: unknown) =>
        t.request('/v1/organization', { method: 'PATCH', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      const ok = await patch({ backup_time: '04:15', backup_keep: 14, backup_with_files: true });
      assert.equal(ok.status, 200);
      const org = (await ok.json()) as { backup_time: string; backup_keep: number; backup_with_files: boolean };
      assert.deepEqual([org.backup_time, org.backup_keep, org.backup_with_files], ['04:15', 14, true]);
      for (const bad of [{ backup_time: '24:00' }, { backup_time: '4:15' }, { backup_keep: 0 }, { backup_keep: 366 }]) {
        const res = await patch(bad);
        assert.equal(res.status, 400, JSON.stringify(bad));
      }
      const off = await patch({ backup_time: null });
      assert.equal(((await off.json()) as { backup_time: null }).backup_time, null);
    } finally {
      await t.close();
    }
  });
});

describe('the database ledger of a farm of several nodes', () => {
  it('one claim a night; an unfinished claim is taken over after an hour, a failed one is free at once', async () => {
    const handle = openDatabase(':memory:');
    try {
      const a = databaseLedger(handle.db, 'node-a');
      const b = databaseLedger(handle.db, 'node-b');
      const t = Date.UTC(2026, 2, 1, 3, 30);
      assert.equal(await a.lastDay('UTC', t), null);
      assert.equal(await a.claim('2026-03-01', t), true);
      assert.equal(await b.claim('2026-03-01', t), false, 'the night is node-a\'s');
      assert.equal(await b.lastDay('UTC', t + 30 * 60_000), '2026-03-01', 'taken (being taken) tonight');
      // node-a died while writing: an hour later the night is free again, and node-b takes it over.
      assert.equal(await b.lastDay('UTC', t + STALE_CLAIM_MS + 1), null);
      assert.equal(await b.claim('2026-03-01', t + 30 * 60_000), false);
      assert.equal(await b.claim('2026-03-01', t + STALE_CLAIM_MS + 1), true);
      await b.finished('2026-03-01', '/d/backups/nightly.tar.gz', 10, t + STALE_CLAIM_MS + 2);
      assert.equal(await a.lastDay('UTC', t + 10 * STALE_CLAIM_MS), '2026-03-01', 'a finished night stays taken');
      // A failed attempt frees its night for any node at once.
      assert.equal(await a.claim('2026-03-02', t + 24 * 3_600_000), true);
      await a.abandon('2026-03-02');
      assert.equal(await b.claim('2026-03-02', t + 24 * 3_600_000), true);
    } finally {
      await handle.close();
    }
  });
});
