// Analytics roll-ups are written by the transaction that ends a job, backfilled by migration 013, and rebuilt by `printfarm analytics rebuild`.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql, SqliteDialect, type RawBuilder } from 'kysely';
import { fleetMetrics } from '../../src/analytics/fleet-metrics.service.js';
import { jobReport, materialReport } from '../../src/analytics/reports.service.js';
import { main } from '../../src/cli/run-cli.js';
import { parseAnalyticsArgs } from '../../src/cli/analytics.command.js';
import { CliUsageError } from '../../src/cli/command.js';
import { ManualClock } from '../../src/clock.js';
import { upsertUsage } from '../../src/materials/materials.repository.js';
import { DATABASE_FILE, openDatabase, type Db } from '../../src/storage/db.js';
import type { Database } from '../../src/storage/schema.js';
import { migrate } from '../../src/storage/migrate.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { ANALYTICS_ROLLUP_TABLES } from '../../src/storage/migrations/013-analytics-rollups.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { seedJob, seedPrinter, usage } from './analytics-fixtures.js';
import { seedHistory } from './random-history.js';
import * as reference from './reference/reports.service.js';
import { fleetMetrics as referenceFleet } from './reference/fleet-metrics.service.js';

const NOW = Date.parse('2026-02-10T12:00:00.000Z');
const RATES = { hourly_rate: 2, energy_cost_per_kwh: 0.3 };
const MONTH = { from: '2026-01-10T07:30:00.000Z', to: '2026-02-10T12:00:00.000Z' };
const SERIES = { interval: 'day' as const, tz: 'Europe/Berlin' };

/** Fleet, job and material reports of a few filters, the services' way and the reference's (direct) way. */
async function bothWays(db: Db): Promise<[unknown[], unknown[]]> {
  const ours: unknown[] = [];
  const direct: unknown[] = [];
  for (const scope of [{}, { group: 'east' }, { printerId: 'prt_1' }]) {
    const filter = { ...MONTH, ...scope };
    const ctx = { db, filter, nowMs: NOW, series: SERIES };
    ours.push(await fleetMetrics(db, filter, RATES, NOW), await jobReport(ctx), await materialReport(ctx, RATES, 'EUR'));
    direct.push(await referenceFleet(db, filter, RATES, NOW), await reference.jobReport(ctx), await reference.materialReport(ctx, RATES, 'EUR'));
  }
  const json = (x: unknown[]) => JSON.parse(JSON.stringify(x)) as unknown[];
  return [json(ours), json(direct)];
}

/** Every roll-up row, for comparing two databases. */
function rollupRows(sqlite: BetterSqlite3.Database): Record<string, unknown[]> {
  return Object.fromEntries(ANALYTICS_ROLLUP_TABLES.map((t) => [t, sqlite.prepare(`SELECT * FROM ${t}`).all()]));
}

describe('analytics roll-ups follow the jobs', () => {
  let t: TestApp;
  const day = async (db: TestApp, d: string) =>
    (await sql`SELECT completed_n, completed_seconds, ended_seconds FROM analytics_day WHERE day = ${d} AND printer_id = 'prt_1'`.execute(db.deps.db)).rows[0];
  const all = async (db: TestApp, query: RawBuilder<unknown>) => (await query.execute(db.deps.db)).rows;

  before(async () => {
    t = await startTestApp({ clock: new ManualClock(NOW) });
    await seedPrinter(t.deps.db, 'prt_1', 'east', 200);
    await seedPrinter(t.deps.db, 'prt_2', 'west', 100);
  });
  after(() => t.close());

  it('in the transaction that ends a job, and not at all when that transaction rolls back', async () => {
    const db = t.deps.db;
    await seedJob(db, { id: 'job_r', status: 'printing', printer_id: 'prt_1', started_at: '2026-02-09T22:30:00.000Z', elapsed_time: 5400 });
    assert.equal(await day(t, '2026-02-10'), undefined);
    // A transaction that ends the job but fails: nothing of it stays, in the job or the roll-ups.
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('jobs').set({ status: 'completed', completed_at: '2026-02-10T00:30:00.000Z' }).where('id', '=', 'job_r').execute();
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.equal(await day(t, '2026-02-10'), undefined);
    // The state machine's own path (one transaction: the conditional write and the event).
    t.clock.set(Date.parse('2026-02-10T00:30:00.000Z'));
    await t.deps.jobs.applyTrigger('job_r', { type: 'complete' }, { counters: { progress: 100, elapsedSeconds: 5400 } });
    t.clock.set(NOW);
    assert.deepEqual(await day(t, '2026-02-10'), { completed_n: 1, completed_seconds: 5400, ended_seconds: 0 });
    assert.deepEqual(
      await all(t, sql`SELECT day, ended_seconds FROM analytics_day WHERE printer_id = 'prt_1' AND ended_seconds > 0`),
      [{ day: '2026-02-09', ended_seconds: 5400 }],
    );
    // Cut into its hours: 22:30-00:30, 2 h wall, 5400 s printed: 1350 s, 2700 s, 1350 s.
    assert.deepEqual(
      await all(t, sql`SELECT hour, print_seconds FROM analytics_hour WHERE printer_id = 'prt_1' ORDER BY hour`),
      [
        { hour: '2026-02-09T22', print_seconds: 1350 },
        { hour: '2026-02-09T23', print_seconds: 2700 },
        { hour: '2026-02-10T00', print_seconds: 1350 },
      ],
    );
    const [ours, direct] = await bothWays(db);
    assert.deepStrictEqual(ours, direct);
  });

  it('when usage is written after the end, the printer changes group, and the job is deleted', async () => {
    const db = t.deps.db;
    await seedJob(db, { id: 'job_u', status: 'completed', printer_id: 'prt_2', started_at: '2026-02-01T10:00:00.000Z', completed_at: '2026-02-01T11:00:00.000Z', elapsed_time: 3600 });
    await upsertUsage(db, { job_id: 'job_u', ...usage(0, 42, 1.25) });
    await db.updateTable('printers').set({ group_name: 'east' }).where('id', '=', 'prt_2').execute();
    let [ours, direct] = await bothWays(db);
    assert.deepStrictEqual(ours, direct);
    const east = (await fleetMetrics(db, { ...MONTH, group: 'east' }, RATES, NOW)) as { material_consumed: number };
    assert.equal(east.material_consumed, 42);
    await db.deleteFrom('jobs').where('id', 'in', ['job_u', 'job_r']).execute();
    [ours, direct] = await bothWays(db);
    assert.deepStrictEqual(ours, direct);
    const [sums] = await all(t, sql`SELECT SUM(ABS(ended_seconds)) + SUM(ABS(completed_n)) + SUM(ABS(ended_grams)) AS n FROM analytics_day`);
    assert.deepEqual(sums, { n: 0 });
  });
});

describe('migration 013 and printfarm analytics rebuild', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'pf-rollups-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a database from before the roll-ups is backfilled, and answers as the jobs do', async () => {
    const file = path.join(dir, DATABASE_FILE);
    const raw = new BetterSqlite3(file);
    migrate(raw, migrations.slice(0, 9), new Date(NOW).toISOString());
    const early = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
    await seedHistory(early, { jobs: 2000, seed: 7, nowMs: NOW });
    await early.destroy(); // closes raw
    const h = openDatabase(file, new Date(NOW).toISOString());
    try {
      assert.deepEqual(h.migrated, migrations.slice(9).map((m) => m.version));
      const [ours, direct] = await bothWays(h.db);
      assert.deepStrictEqual(ours, direct);
    } finally {
      await h.close();
    }
  });

  it('rebuild puts back roll-ups that were lost or changed by hand', async () => {
    const file = path.join(dir, DATABASE_FILE);
    const before = (() => {
      const h = new BetterSqlite3(file);
      const rows = rollupRows(h);
      h.exec(`DELETE FROM analytics_hour; UPDATE analytics_day SET ended_seconds = 0; DELETE FROM analytics_long_jobs`);
      h.close();
      return rows;
    })();
    const log: string[] = [];
    const original = console.log;
    console.log = (msg: string) => void log.push(msg);
    try {
      assert.equal(await main(['analytics', 'rebuild', '--data-dir', dir]), 0);
    } finally {
      console.log = original;
    }
    assert.match(log.join('\n'), /^Rebuilt the analytics roll-ups of \d+ jobs \(\d+ day rows, \d+ hour rows\)/);
    const h = openDatabase(file, new Date(NOW).toISOString());
    try {
      assert.deepStrictEqual(rollupRows(h.sqlite), before);
      const [ours, direct] = await bothWays(h.db);
      assert.deepStrictEqual(ours, direct);
    } finally {
      await h.close();
    }
  });

  it('refuses bad arguments and a data directory without a database', async () => {
    assert.deepEqual(parseAnalyticsArgs(['rebuild', '--data-dir', dir], {}), { dataDir: dir, databaseUrl: null });
    for (const [args, message] of [
      [[], /missing sub-command/],
      [['rebuild', '--colour', 'red'], /Unknown option '--colour'/],
      [['rebuild', 'extra'], /Unexpected argument 'extra'/],
      [['drop'], /unknown sub-command "drop"/],
    ] as const) {
      assert.throws(() => parseAnalyticsArgs([...args], {}), (e: Error) => e instanceof CliUsageError && message.test(e.message), args.join(' '));
    }
    const errors: string[] = [];
    const original = console.error;
    console.error = (msg: string) => void errors.push(msg);
    try {
      assert.equal(await main(['analytics', 'rebuild', '--data-dir', path.join(dir, 'typo')]), 1);
    } finally {
      console.error = original;
    }
    assert.match(errors.join('\n'), /no database at .*typo/);
  });
});
