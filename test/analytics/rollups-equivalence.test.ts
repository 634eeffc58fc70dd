// Roll-ups (migration 013) answer what the direct computation over jobs answers: a seeded random history of 10,000 jobs
// across month and year ends, written, rewritten and deleted the ways the program and imports write them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fleetMetrics } from '../../src/analytics/fleet-metrics.service.js';
import { jobReport, materialReport, printerReport } from '../../src/analytics/reports.service.js';
import { openDatabase, type SqliteHandle } from '../../src/storage/db.js';
import * as reference from './reference/reports.service.js';
import { fleetMetrics as referenceFleet } from './reference/fleet-metrics.service.js';
import { seedHistory } from './random-history.js';

const NOW = Date.parse('2026-02-10T12:00:00.000Z');
const RATES = { hourly_rate: 1.7, energy_cost_per_kwh: 0.31 };

/** JSON as the API sends it (-0 is 0), with the breakdowns' equal-gram groups in one order. */
function normal(report: unknown): unknown {
  const out = JSON.parse(JSON.stringify(report)) as Record<string, unknown>;
  for (const k of ['by_type', 'by_color', 'by_spool']) {
    const groups = out[k] as { grams: number }[] | undefined;
    if (groups) groups.sort((a, b) => b.grams - a.grams || (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }
  return out;
}

// Periods: edges cutting days across the year end, whole days, inside one night, the whole history and beyond now.
const PERIODS = [
  { from: '2025-12-20T13:17:42.123Z', to: '2026-01-09T05:03:11.456Z' },
  { from: '2025-11-30T00:00:00.000Z', to: '2026-02-01T00:00:00.000Z' },
  { from: '2025-12-31T20:10:00.000Z', to: '2026-01-01T03:30:00.000Z' },
  { from: '2025-10-01T00:00:00.000Z', to: '2026-03-01T00:00:00.000Z' },
  { from: '2026-01-31T22:45:00.000Z', to: '2026-02-10T12:00:00.000Z' },
];
const SCOPES = [{}, { group: 'east' }, { printerId: 'prt_1' }, { printerId: 'prt_gone' }, { group: 'east', printerId: 'prt_2' }];
// Whole-hour zones (hour roll-ups), and half- and quarter-hour ones (buckets cut from the jobs).
const SERIES = [
  { interval: 'day' as const, tz: 'Europe/Berlin' },
  { interval: 'hour' as const, tz: 'UTC' },
  { interval: 'week' as const, tz: 'America/New_York' },
  { interval: 'month' as const, tz: 'Asia/Kolkata' },
  { interval: 'day' as const, tz: 'Asia/Kathmandu' },
];

describe('analytics roll-ups against the direct computation', () => {
  let h: SqliteHandle;

  before(async () => {
    h = openDatabase(':memory:', new Date(NOW).toISOString());
    seedHistory(h.sqlite, { jobs: 10_000, seed: 20260210, nowMs: NOW });
  });
  after(() => h.close());

  it('the roll-ups hold the history (the reports below read them)', () => {
    const day = h.sqlite.prepare('SELECT SUM(created_n) AS created, SUM(completed_n + failed_n + cancelled_n) AS finished FROM analytics_day WHERE printer_id = ?').get('*');
    const jobs = h.sqlite.prepare(`SELECT COUNT(*) AS created, SUM(status IN ('completed', 'failed', 'cancelled') AND completed_at IS NOT NULL) AS finished FROM jobs`).get();
    assert.deepStrictEqual(day, jobs);
  });

  it('fleet metrics: every period and filter', async () => {
    for (const period of PERIODS) {
      for (const scope of SCOPES) {
        const f = { ...period, ...scope };
        assert.deepStrictEqual(normal(await fleetMetrics(h.db, f, RATES, NOW)), normal(await referenceFleet(h.db, f, RATES, NOW)), JSON.stringify(f));
      }
    }
  });

  it('job, printer and material reports: every period, filter, interval and zone', async () => {
    const hourly = (p: { from: string; to: string }, s: { interval: string }) => s.interval !== 'hour' || Date.parse(p.to) - Date.parse(p.from) < 40 * 86_400_000;
    for (const period of PERIODS) {
      for (const scope of SCOPES) {
        for (const series of SERIES.filter((s) => hourly(period, s))) {
          const ctx = { db: h.db, filter: { ...period, ...scope }, nowMs: NOW, series };
          const what = JSON.stringify({ ...period, ...scope, ...series });
          assert.deepStrictEqual(normal(await jobReport(ctx)), normal(await reference.jobReport(ctx)), `jobs ${what}`);
          for (const type of [undefined, 'PLA']) {
            assert.deepStrictEqual(
              normal(await materialReport({ ...ctx, type }, RATES, 'EUR')),
              normal(await reference.materialReport({ ...ctx, type }, RATES, 'EUR')),
              `materials ${type} ${what}`,
            );
          }
        }
      }
    }
    const printer = { id: 'prt_1', name: 'P1', group_name: 'east' };
    const ctx = { db: h.db, filter: { ...PERIODS[0]!, printerId: 'prt_1' }, nowMs: NOW, series: SERIES[0]! };
    assert.deepStrictEqual(normal(await printerReport(ctx, RATES, printer)), normal(await reference.printerReport(ctx, RATES, printer)));
  });
});
