// Period pages: started_at windows, every overlapping job read once, and series buckets summed in SQL or cut per job (by hand).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { ManualClock } from '../../src/clock.js';
import { jobsOf, overlapTerms } from '../../src/analytics/analytics.repository.js';
import { overlapPages, startedWindows } from '../../src/analytics/period-pages.js';
import { seedFarm, seedJob, seedPrinter, usage } from './analytics-fixtures.js';

const NOW = Date.parse('2026-03-10T12:00:00.000Z');
const at = (hhmm: string): string => `2026-03-01T${hhmm}:00.000Z`;

describe('period pages', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ clock: new ManualClock(NOW) });
    await seedPrinter(t.deps.db, 'prt_P', 'east', 100);
    // Started 01:00, 02:00, three at 03:00, 04:00 (each one hour); one before the period running into it; one queued.
    const starts = ['01:00', '02:00', '03:00', '03:00', '03:00', '04:00'];
    for (const [i, s] of starts.entries()) {
      const end = `${String(Number(s.slice(0, 2)) + 1).padStart(2, '0')}:00`;
      await seedJob(t.deps.db, { id: `job_w${i}`, status: 'completed', printer_id: 'prt_P', started_at: at(s), completed_at: at(end), elapsed_time: 3600 });
    }
    await seedJob(t.deps.db, { id: 'job_before', status: 'completed', printer_id: 'prt_P', started_at: '2026-02-28T23:30:00.000Z', completed_at: at('00:30') });
    await seedJob(t.deps.db, { id: 'job_queued', status: 'queued' });
  });
  after(() => t.close());

  const period = { from: at('00:00'), to: at('12:00') };

  it('cuts the period into started_at windows of at most `size` jobs; jobs of one instant stay together', async () => {
    const windows = [];
    for await (const w of startedWindows(t.deps.db, period, 2)) windows.push(w);
    assert.deepEqual(windows, [
      { from: at('00:00'), to: at('03:00') }, // 01:00, 02:00
      { from: at('03:00'), to: at('04:00') }, // the three of 03:00 (more than 2, one instant)
      { from: at('04:00'), to: at('12:00') }, // 04:00
    ]);
  });

  it('reads every job overlapping the period once, page by page', async () => {
    const pages: string[][] = [];
    const pager = overlapPages(t.deps.db, period, (term) => jobsOf(t.deps.db, period).where(term).select(['j.id', 'j.status']), 2);
    for await (const page of pager) pages.push(page.map((r) => r.id).sort());
    assert.deepEqual(pages, [['job_w0', 'job_w1'], ['job_w2', 'job_w3', 'job_w4'], ['job_w5'], ['job_before']]);
    // The same jobs as the overlap terms read in one go.
    const all = [];
    for (const term of overlapTerms(period)) all.push(...(await jobsOf(t.deps.db, period).where(term).select('j.id').execute()).map((r) => r.id));
    assert.deepEqual(pages.flat().sort(), all.sort());
  });
});

describe('material series buckets', () => {
  let t: TestApp;
  let key: string;
  const grams = async (qs: string): Promise<[string, number][]> => {
    const res = await t.request(`/v1/analytics/materials?${qs}`, { headers: bearer(key) });
    assert.equal(res.status, 200);
    const body = (await res.json()) as any;
    return body.series.filter((p: any) => p.grams !== 0).map((p: any) => [p.label.slice(0, 16), p.grams]);
  };

  before(async () => {
    t = await startTestApp({ clock: new ManualClock(NOW) });
    key = await mintTestKey(t, ['analytics:read']);
    await seedFarm(t);
  });
  after(() => t.close());

  it('puts a job lying inside one bucket wholly there and cuts the others by their share', async () => {
    // Hours of 1-2 March (UTC). J1 10:00-12:00, 120 g: 60 g in each hour (nothing in 12:00, where it ends).
    // J2 (40 g, 23:00-01:00) has its second half in the period: 20 g at 00:00. J5 00:00-05:00, 50 g: 10 g an hour.
    // J3 10:00-11:00 on the 2nd lies inside its hour: 10 g. J7's first half, 23:00 on the 2nd: 15 g.
    assert.deepEqual(await grams('from=2026-03-01&to=2026-03-02&interval=hour&tz=UTC'), [
      ['2026-03-01T00:00', 30],
      ['2026-03-01T01:00', 10],
      ['2026-03-01T02:00', 10],
      ['2026-03-01T03:00', 10],
      ['2026-03-01T04:00', 10],
      ['2026-03-01T10:00', 60],
      ['2026-03-01T11:00', 60],
      ['2026-03-02T10:00', 10],
      ['2026-03-02T23:00', 15],
    ]);
  });

  it('treats jobs of no length or stamped completed before started as the time series always did', async () => {
    await seedJob(t.deps.db, { id: 'job_zero', status: 'completed', started_at: '2026-03-04T06:00:00.000Z', completed_at: '2026-03-04T06:00:00.000Z' }, [usage(0, 5, 0.1)]);
    // The clock went back during these: a job's span that ends in its start hour counts there whole (8:00)...
    await seedJob(t.deps.db, { id: 'job_back', status: 'completed', started_at: '2026-03-04T08:30:00.000Z', completed_at: '2026-03-04T08:00:00.000Z' }, [usage(0, 7, 0.1)]);
    // ...one ending before its start hour begins counts nowhere (the cut never reaches a bucket).
    await seedJob(t.deps.db, { id: 'job_back2', status: 'completed', started_at: '2026-03-04T09:30:00.000Z', completed_at: '2026-03-04T08:45:00.000Z' }, [usage(0, 9, 0.1)]);
    assert.deepEqual(await grams('from=2026-03-04&to=2026-03-04&interval=hour&tz=UTC'), [
      ['2026-03-04T06:00', 5],
      ['2026-03-04T08:00', 7],
    ]);
  });
});
