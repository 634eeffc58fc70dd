// GET /v1/analytics/fleet over HTTP on seeded rows, against numbers computed by hand (see the comments per figure).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { ManualClock } from '../../src/clock.js';
import { seedFarm } from './analytics-fixtures.js';

describe('GET /v1/analytics/fleet', () => {
  let t: TestApp;
  let key: string;
  const get = (qs: string, k = key) => t.request(`/v1/analytics/fleet${qs}`, { headers: bearer(k) });

  before(async () => {
    t = await startTestApp({ clock: new ManualClock(Date.parse('2026-03-10T12:00:00.000Z')) });
    key = await mintTestKey(t, ['analytics:read']);
    await seedFarm(t);
  });
  after(() => t.close());

  it('computes every metric of the whole fleet, cutting jobs at the period edges', async () => {
    const res = await get('?from=2026-03-01&to=2026-03-02');
    assert.equal(res.status, 200);
    const body = (await res.json()) as any;
    assert.deepEqual(body.period, { from: '2026-03-01T00:00:00.000Z', to: '2026-03-03T00:00:00.000Z' });
    assert.equal(body.currency, 'EUR');
    // seconds: 7200 + 2700 + 3600 + 1800 + 18000 + 3600 = 36900; 36900 / (3 × 172800) = 0.07118
    // cost: filament 3 + 0.5 + 0.2 + 1 + 0.3 = 5; machine 36900 s = 10.25 h × 2 = 20.5;
    // energy A 9900 s × 200 W + B 9000 s × 100 W = 2 880 000 Ws = 0.8 kWh × 0.3 = 0.24 -> 25.74
    assert.deepEqual(body.metrics, {
      total_printers: 3,
      active_printers: 3,
      utilization_rate: 0.0712,
      jobs_completed: 3,
      success_rate: 0.75,
      total_print_time: 36900,
      material_consumed: 215,
      estimated_cost: 25.74,
    });
  });

  it('narrows to a group of printers', async () => {
    const body: any = await (await get('?from=2026-03-01&to=2026-03-02&group=east')).json();
    // seconds 7200 + 2700 + 3600 + 1800 + 3600 = 18900 / (2 × 172800) = 0.0547; success 2 / 3;
    // cost 4.0 filament + 10.5 machine + 0.24 energy
    assert.deepEqual(body.metrics, {
      total_printers: 2,
      active_printers: 2,
      utilization_rate: 0.0547,
      jobs_completed: 2,
      success_rate: 0.6667,
      total_print_time: 18900,
      material_consumed: 165,
      estimated_cost: 14.74,
    });
    const none: any = await (await get('?group=nowhere')).json();
    assert.equal(none.metrics.total_printers, 0);
    assert.equal(none.metrics.utilization_rate, 0);
  });

  it('counts a running job up to now, and date-times cut the period precisely', async () => {
    const body: any = await (await get('?from=2026-03-10T11:00:00Z')).json();
    assert.deepEqual(body.period, { from: '2026-03-10T11:00:00.000Z', to: '2026-03-10T12:00:00.000Z' });
    // J9: half its 2 h wall inside -> 3600 s of 3 × 3600 printer-seconds.
    assert.equal(body.metrics.total_print_time, 3600);
    assert.equal(body.metrics.utilization_rate, 0.3333);
    assert.equal(body.metrics.active_printers, 1);
    assert.equal(body.metrics.estimated_cost, 2); // 1 h × 2, no filament, C has no power rating
  });

  it('defaults to the 30 days up to now', async () => {
    const body: any = await (await get('')).json();
    assert.deepEqual(body.period, { from: '2026-02-08T12:00:00.000Z', to: '2026-03-10T12:00:00.000Z' });
    assert.equal(body.metrics.jobs_completed, 5); // J1 J2 J5 J6 J7
  });

  it('refuses bad parameters with a 400 naming them', async () => {
    for (const [qs, field] of [
      ['?from=yesterday', 'from'],
      ['?to=2026-02-30', 'to'],
      ['?from=2026-03-05&to=2026-03-01', 'to'],
      ['?from=2026-03-05T00:00:00Z&to=2026-03-05T00:00:00Z', 'to'],
      ['?colour=red', 'colour'],
      ['?group=', 'group'],
      [`?group=${'x'.repeat(200)}`, 'group'],
      ['?group=a%00b', 'group'],
      ['?from=2026-03-01&from=2026-03-02', 'from'],
    ] as const) {
      const res = await get(qs);
      assert.equal(res.status, 400, qs);
      const body = (await res.json()) as any;
      assert.equal(body.error.code, 'invalid_request');
      assert.match(body.error.message, new RegExp(field), qs);
    }
  });

  it('needs analytics:read', async () => {
    const jobsKey = await mintTestKey(t, ['jobs:read']);
    const res = await get('', jobsKey);
    assert.equal(res.status, 403);
    assert.match(((await res.json()) as any).error.message, /analytics:read/);
    assert.equal((await t.request('/v1/analytics/fleet')).status, 401);
  });
});
