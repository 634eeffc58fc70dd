// The nightly backup of a farm of several nodes on PostgreSQL: every node checks every minute, the one whose claim of
// the night wins the database's row takes it, so each night is backed up exactly once (with the files when asked).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KNOWN_SCHEMA_VERSION } from '../../src/app/backup-contents.js';
import { createNightlyBackup } from '../../src/app/nightly-backup-wiring.js';
import { verifyBackup } from '../../src/backup/restore-backup.js';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import type { PostgresHandle } from '../../src/storage/db.js';
import { openPostgres } from '../../src/storage/open-postgres.js';
import { pgForSuite, pgSkipReason } from '../helpers/pg-for-tests.js';
import { farmOnPostgres } from './pg-farm-harness.js';

const root = mkdtempSync(path.join(tmpdir(), 'printfarm-nightly-farm-'));
after(() => rmSync(root, { recursive: true, force: true }));

const HOUR = 3_600_000;
const NIGHTS = 8;

describe('the nightly backup of a farm of three nodes', { skip: pgSkipReason() }, () => {
  let db: { url: string; drop(): Promise<void> };
  let origin: string;
  // Registered before the cluster's own hooks: after hooks run in order, and the database goes before its cluster.
  after(() => db?.drop());
  const cluster = pgForSuite();
  before(async () => {
    db = await cluster().createDatabase();
    origin = (await farmOnPostgres(db.url, path.join(root, 'origin'))).dataDir;
  });

  it(`is taken once a night over ${NIGHTS} nights, by one of the nodes, with the files when backup_with_files`, async () => {
    const handles: PostgresHandle[] = [];
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 3, 0));
    const dataDirs = [1, 2, 3].map((n) => path.join(root, `node-${n}`));
    try {
      for (const dataDir of dataDirs) {
        mkdirSync(dataDir);
        // Each node has the farm's key (as a file here; PRINTFARM_SECRET_KEY on real nodes).
        copyFileSync(path.join(origin, 'secret.key'), path.join(dataDir, 'secret.key'));
        handles.push(await openPostgres(db.url, undefined, { poolSize: 2 }));
      }
      await handles[0]!.db.updateTable('organization').set({ backup_time: '03:30', backup_keep: 3, backup_with_files: 1, timezone: 'UTC' }).execute();
      const nodes = handles.map((handle, i) =>
        createNightlyBackup({ handle, dataDir: dataDirs[i]!, clock, logger: silentLogger, nodeId: `node-${i + 1}`, secretKeyEnv: undefined }),
      );
      const taken: string[] = [];
      // All three check at the same moments (their minute ticks race for the night); several checks a night.
      const checkAll = async (): Promise<void> => {
        for (const file of await Promise.all(nodes.map((n) => n.tick()))) if (file) taken.push(file);
      };
      await checkAll(); // 03:00 on the first day: before the time
      for (let night = 0; night < NIGHTS; night++) {
        const at = Date.UTC(2026, 2, 1 + night, 3, 30);
        for (const offset of [0, 60_000, HOUR, 10 * HOUR]) {
          clock.set(at + offset);
          await checkAll();
        }
      }
      assert.equal(taken.length, NIGHTS, taken.join('\n'));
      const days = taken.map((f) => /nightly-(\d{8})T/.exec(path.basename(f))![1]);
      assert.deepEqual(days, Array.from({ length: NIGHTS }, (_, i) => `202603${String(i + 1).padStart(2, '0')}`));

      const runs = await handles[0]!.db.selectFrom('nightly_backup_runs').selectAll().orderBy('day').execute();
      assert.equal(runs.length, NIGHTS);
      assert.ok(runs.every((r) => r.finished_at !== null && r.file !== null));
      // Each node keeps the newest backup_keep of those it took.
      // (A node that took no night never made its backups folder.)
      const nightlies = (dataDir: string): string[] => (existsSync(path.join(dataDir, 'backups')) ? readdirSync(path.join(dataDir, 'backups')) : []).filter((f) => f.startsWith('nightly-'));
      for (const dataDir of dataDirs) assert.ok(nightlies(dataDir).length <= 3);

      const staging = path.join(root, 'verify');
      mkdirSync(staging);
      const manifest = await verifyBackup(taken.at(-1)!, staging, KNOWN_SCHEMA_VERSION);
      assert.equal(manifest.reason, 'nightly');
      assert.equal(manifest.with_files, true);
      assert.ok(manifest.members.some((m) => /^files\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}\.gcode$/.test(m.path)), 'the stored file is in it');
      for (const n of nodes) await n.stop();
    } finally {
      for (const h of handles) await h.close();
    }
  });
});
