// GET /v1/analytics/jobs, /printers/:id and /materials over HTTP on the seeded farm (analytics-fixtures), figures by hand.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { ManualClock } from '../../src/clock.js';
import { seedFarm } from './analytics-fixtures.js';

describe('analytics reports', () => {
  let t: TestApp;
  let key: string;
  const get = async (path: string): Promise<{ status: number; body: any }> => {
    const res = await t.request(path, { headers: bearer(key) });
    return { status: res.status, body: await res.json() };
  };
  const P = 'from=2026-03-01&to=2026-03-02';

  before(async () => {
    t = await startTestApp({ clock: new ManualClock(Date.parse('2026-03-10T12:00:00.000Z')) });
    key = await mintTestKey(t, ['analytics:read']);
    await seedFarm(t);
  });
  after(() => t.close());

  it('job statistics: counts, durations, queue wait, failure reasons, daily series', async () => {
    const { status, body } = await get(`/v1/analytics/jobs?${P}`);
    assert.equal(status, 200);
    // created in the period: J1 J3 J4 J5 J7 J8; J9 is printing now.
    assert.deepEqual(body.counts, { created: 6, completed: 3, failed: 1, cancelled: 2, queued: 0, printing: 1, paused: 0 });
    assert.equal(body.success_rate, 0.75);
    // completed in the period: J1 7200, J2 5400, J5 18000.
    assert.deepEqual(body.durations, { completed_jobs: 3, average: 10200, min: 5400, max: 18000, total_print_time: 36900 });
    // started in the period: J1 J3 J4 J5 J7; only J3 waited (3600 s).
    assert.deepEqual(body.queue_wait, { jobs: 5, average: 720, max: 3600 });
    assert.deepEqual(body.failure_reasons, [{ code: 'thermal_runaway', count: 1 }]);
    assert.equal(body.timezone, 'UTC');
    assert.deepEqual(body.series, [
      { start: '2026-03-01T00:00:00.000Z', label: '2026-03-01', completed: 3, failed: 0, cancelled: 1, print_time: 27900 },
      { start: '2026-03-02T00:00:00.000Z', label: '2026-03-02', completed: 0, failed: 1, cancelled: 1, print_time: 9000 },
    ]);
  });

  it('buckets by the asked time zone, clipped to the period', async () => {
    const { body } = await get(`/v1/analytics/jobs?${P}&tz=Europe/Berlin`);
    // Berlin days: [02-28T23Z, 03-01T23Z) clipped to start at 03-01T00Z; then 03-02; then one hour of 03-03 (J7's first hour).
    assert.deepEqual(
      body.series.map((p: any) => [p.label, p.completed, p.failed, p.cancelled, p.print_time]),
      [
        ['2026-03-01', 3, 0, 1, 27900],
        ['2026-03-02', 0, 1, 1, 5400],
        ['2026-03-03', 0, 0, 0, 3600],
      ],
    );
    assert.equal(body.series[0].start, '2026-02-28T23:00:00.000Z');
    // Without tz the organization's zone is used.
    await t.deps.db.updateTable('organization').set({ timezone: 'Europe/Berlin' }).execute();
    try {
      const byOrg = (await get(`/v1/analytics/jobs?${P}&interval=week`)).body;
      assert.equal(byOrg.timezone, 'Europe/Berlin');
      // Sunday 1 March belongs to the week of Monday 23 February; Monday 2 March opens the next.
      assert.deepEqual(byOrg.series.map((p: any) => [p.label, p.completed, p.failed, p.print_time]), [
        ['2026-02-23', 3, 0, 27900],
        ['2026-03-02', 0, 1, 9000],
      ]);
    } finally {
      await t.deps.db.updateTable('organization').set({ timezone: 'UTC' }).execute();
    }
  });

  it('group and printer filters narrow the job report', async () => {
    const east = (await get(`/v1/analytics/jobs?${P}&group=east`)).body;
    assert.deepEqual([east.counts.completed, east.counts.failed, east.durations.total_print_time], [2, 1, 18900]);
    const b = (await get(`/v1/analytics/jobs?${P}&printer_id=prt_B`)).body;
    assert.deepEqual([b.counts.completed, b.counts.failed, b.counts.cancelled, b.durations.total_print_time], [0, 1, 1, 9000]);
  });

  it('printer statistics: the printer, its metrics and its jobs', async () => {
    const { status, body } = await get(`/v1/analytics/printers/prt_B?${P}`);
    assert.equal(status, 200);
    assert.deepEqual(body.printer, { id: 'prt_B', name: 'Printer prt_B', group: 'east' });
    // B: J3 3600 + J4 1800 + half of J7 3600 = 9000 s of 172800; filament 10 + 15 g, 0.2 + 0.3;
    // cost 0.5 + 2.5 h × 2 + 0.25 kWh × 0.3 = 5.575
    const { estimated_cost, ...rest } = body.metrics;
    assert.deepEqual(rest, { utilization_rate: 0.0521, jobs_completed: 0, success_rate: 0, total_print_time: 9000, material_consumed: 25 });
    assert.ok(Math.abs(estimated_cost - 5.575) <= 0.0051, String(estimated_cost));
    assert.deepEqual(body.failure_reasons, [{ code: 'thermal_runaway', count: 1 }]);
    assert.equal(body.currency, 'EUR');
    assert.equal((await get(`/v1/analytics/printers/prt_nope?${P}`)).status, 404);
  });

  it('material usage by type, colour and spool, cost per part, grams per day', async () => {
    const { status, body } = await get(`/v1/analytics/materials?${P}`);
    assert.equal(status, 200);
    // J1 100 (mat_1) + 20 white, J3 10, J5 50 PETG, half of J2 (40 g PETG from the job's totals), half of J7 30 g.
    assert.deepEqual(body.totals, { grams: 215, filament_cost: 5 });
    assert.deepEqual(body.by_type, [
      { type: 'PLA', grams: 145, cost: 3.5 },
      { type: 'PETG', grams: 70, cost: 1.5 },
    ]);
    assert.deepEqual(body.by_color, [
      { type: 'PLA', color: 'black', grams: 125, cost: 3 },
      { type: 'PETG', color: 'red', grams: 70, cost: 1.5 },
      { type: 'PLA', color: 'white', grams: 20, cost: 0.5 },
    ]);
    assert.deepEqual(body.by_spool, [
      { material_id: 'mat_1', brand: 'Acme', type: 'PLA', color: 'black', grams: 100, cost: 2.5 },
      { material_id: null, brand: null, type: 'PETG', color: 'red', grams: 70, cost: 1.5 },
      { material_id: null, brand: null, type: 'PLA', color: 'black', grams: 25, cost: 0.5 },
      { material_id: null, brand: null, type: 'PLA', color: 'white', grams: 20, cost: 0.5 },
    ]);
    // Completed in the period: J1 J2 J5, whole jobs: filament 3 + 1 + 1, 30600 s = 8.5 h × 2, energy 2.52 MWs = 0.7 kWh × 0.3.
    assert.deepEqual(body.cost_per_part, { completed_jobs: 3, total_cost: 22.21, average: 7.4 });
    assert.deepEqual(
      body.series.map((p: any) => [p.label, p.grams]),
      [
        ['2026-03-01', 190],
        ['2026-03-02', 25],
      ],
    );
    const petg = (await get(`/v1/analytics/materials?${P}&type=PETG`)).body;
    assert.deepEqual(petg.totals, { grams: 70, filament_cost: 1.5 });
    assert.deepEqual(petg.by_type, [{ type: 'PETG', grams: 70, cost: 1.5 }]);
  });

  it('refuses bad parameters with a 400 naming them', async () => {
    const cases: [string, string][] = [
      ['/v1/analytics/jobs?interval=year', 'interval'],
      ['/v1/analytics/jobs?tz=Mars/Base', 'tz'],
      ['/v1/analytics/jobs?tz=', 'tz'],
      ['/v1/analytics/jobs?from=2020-01-01&interval=hour', 'interval'],
      ['/v1/analytics/jobs?printer_id=', 'printer_id'],
      ['/v1/analytics/jobs?to=2026-13-01', 'to'],
      ['/v1/analytics/materials?type=', 'type'],
      ['/v1/analytics/materials?group=a%0Ab', 'group'],
      ['/v1/analytics/printers/prt_B?group=east', 'group'],
      ['/v1/analytics/printers/prt_B?from=2026-03-02&to=2026-03-01', 'to'],
    ];
    for (const [path, field] of cases) {
      const { status, body } = await get(path);
      assert.equal(status, 400, path);
      assert.equal(body.error.code, 'invalid_request');
      assert.match(body.error.message, new RegExp(field), path);
    }
  });
});
