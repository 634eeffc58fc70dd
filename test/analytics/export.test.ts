// GET /v1/analytics/export over HTTP: CSV (header, RFC 4180 quoting, formula injection neutralised) and JSON, keyset paging.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { ManualClock } from '../../src/clock.js';
import { exportRows } from '../../src/analytics/export.service.js';
import { seedFarm, seedJob } from './analytics-fixtures.js';
import { sqliteOf } from '../helpers/test-database.js';

/** A strict RFC 4180 reader for the test: quoted fields may hold commas, quotes (doubled) and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let cell = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') (cell += '"'), (i += 2);
        else if (text[i] === '"') break;
        else cell += text[i++];
      }
      i++;
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r') cell += text[i++];
    }
    row.push(cell);
    if (text[i] === ',') i++;
    else {
      assert.equal(text.slice(i, i + 2), '\r\n', `record ends with CRLF at ${i}`);
      i += 2;
      rows.push(row);
      row = [];
    }
  }
  return rows;
}

describe('GET /v1/analytics/export', () => {
  let t: TestApp;
  let key: string;
  const P = 'from=2026-03-01&to=2026-03-02';
  const get = (qs: string) => t.request(`/v1/analytics/export?${qs}`, { headers: bearer(key) });

  before(async () => {
    t = await startTestApp({ clock: new ManualClock(Date.parse('2026-03-10T12:00:00.000Z')) });
    key = await mintTestKey(t, ['analytics:read']);
    await seedFarm(t);
    await seedJob(t.deps.db, {
      id: 'job_evil',
      name: '=HYPERLINK("http://x","click")',
      status: 'failed',
      printer_id: 'prt_C',
      created_at: '2026-03-01T06:00:00.000Z',
      started_at: null,
      completed_at: '2026-03-01T06:10:00.000Z',
      error_code: '@err',
      error_message: 'line one, with comma\nline "two"',
    });
  });
  after(() => t.close());

  it('jobs as CSV: header row, one record per job created in the period, quoting and neutralised formulas', async () => {
    const res = await get(`dataset=jobs&${P}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/csv/);
    assert.match(res.headers.get('content-disposition')!, /attachment; filename="jobs-20260301T000000-20260303T000000\.csv"/);
    const rows = parseCsv(await res.text());
    const [header, ...records] = rows;
    assert.equal(header![0], 'id');
    assert.ok(header!.includes('estimated_cost'));
    // created in [03-01, 03-03): J5 00:00, J_evil 06:00, J8 07:00, J1 10:00, J3 09:00 (03-02), J4, J7.
    assert.deepEqual(records.map((r) => r[0]), ['job_5', 'job_evil', 'job_8', 'job_1', 'job_3', 'job_4', 'job_7']);
    const col = (name: string) => header!.indexOf(name);
    const evil = records[1]!;
    assert.equal(evil[col('name')], '\'=HYPERLINK("http://x","click")');
    assert.equal(evil[col('error_code')], "'@err");
    assert.equal(evil[col('error_message')], 'line one, with comma\nline "two"');
    const j1 = records[3]!;
    // J1: 120 g, filament 3, 2 h × 2 + 2 h × 200 W = 0.4 kWh × 0.3 -> 3 + 4 + 0.12
    assert.deepEqual([j1[col('material_used_g')], j1[col('filament_cost')], j1[col('estimated_cost')], j1[col('printer_group')]], ['120', '3', '7.12', 'east']);
  });

  it('materials and printers datasets, as JSON too', async () => {
    const usage = (await (await get(`dataset=materials&${P}&format=json`)).json()) as any[];
    // usage rows of jobs that ended in the period: J5, J1 (two tools), J3.
    assert.deepEqual(usage.map((u) => [u.job_id, u.tool, u.grams]), [['job_5', 0, 50], ['job_1', 0, 100], ['job_1', 1, 20], ['job_3', 0, 10]]);
    assert.equal(usage[1].brand, 'Acme');
    const res = await get(`dataset=printers&${P}&format=json`);
    assert.match(res.headers.get('content-type')!, /^application\/json/);
    const printers = (await res.json()) as any[];
    assert.deepEqual(printers.map((p) => [p.id, p.total_print_time, p.material_consumed]), [['prt_A', 9900, 140], ['prt_B', 9000, 25], ['prt_C', 18000, 50]]);
    const csv = parseCsv(await (await get(`dataset=printers&${P}`)).text());
    assert.equal(csv.length, 4);
  });

  it('group narrows every dataset to the printers of that group', async () => {
    const printers = (await (await get(`dataset=printers&${P}&group=east&format=json`)).json()) as any[];
    assert.ok(printers.length > 0 && printers.every((p) => p.group === 'east'), JSON.stringify(printers.map((p) => p.group)));
    const jobs = (await (await get(`dataset=jobs&${P}&group=east&format=json`)).json()) as any[];
    assert.ok(jobs.length > 0 && jobs.every((j) => j.printer_group === 'east'));
    const all = (await (await get(`dataset=jobs&${P}&format=json`)).json()) as any[];
    assert.ok(all.length > jobs.length, 'the group left some out');
    assert.deepEqual(await (await get(`dataset=materials&${P}&group=nowhere&format=json`)).json(), []);
  });

  it('keyset pages give the same rows whatever the page size', async () => {
    const ctx = { db: t.deps.db, filter: { from: '2026-01-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' }, rates: { hourly_rate: 1, energy_cost_per_kwh: 1 }, nowMs: t.clock.now() };
    for (const dataset of ['jobs', 'materials', 'printers'] as const) {
      const all: unknown[] = [];
      for await (const r of exportRows(dataset, ctx, 1000)) all.push(r);
      const small: unknown[] = [];
      for await (const r of exportRows(dataset, ctx, 2)) small.push(r);
      assert.ok(all.length > 2, dataset);
      assert.deepEqual(small, all, dataset);
    }
  });

  it('a stalled export client holds no database connection: other requests answer while it is half read', async () => {
    const insert = sqliteOf(t.handle).prepare(
      `INSERT INTO jobs (id, name, status, priority, priority_rank, file_id, created_at, updated_at, elapsed_time)
       VALUES (?, ?, 'cancelled', 'normal', 1, 'file_x', ?, ?, 0)`,
    );
    const N = 60_000; // about 9 MB of CSV: more than the socket buffers hold, so the server has to wait for the client
    sqliteOf(t.handle).transaction(() => {
      for (let i = 0; i < N; i++) insert.run(`job_bulk${String(i).padStart(5, '0')}`, `bulk ${i}`, '2026-04-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z');
    })();
    const url = new URL(`${t.baseUrl}/v1/analytics/export?dataset=jobs&from=2026-04-01&to=2026-04-01`);
    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(url, { headers: bearer(key) }, resolve).on('error', reject),
    );
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve) => res.once('data', (c: Buffer) => (chunks.push(c), res.pause(), resolve())));
    // The client stopped reading. Queries through the shared connection (a report) and a write still go through.
    const fleet = await t.request('/v1/analytics/fleet', { headers: bearer(key), signal: AbortSignal.timeout(10_000) });
    assert.equal(fleet.status, 200);
    sqliteOf(t.handle).prepare("UPDATE organization SET name = 'still writable'").run();
    res.on('data', (c: Buffer) => chunks.push(c));
    res.resume();
    await once(res, 'end');
    const lines = Buffer.concat(chunks).toString('utf8').split('\r\n').filter((l) => l.length > 0);
    assert.equal(lines.length, N + 1);
    assert.ok(lines[N]!.startsWith(`job_bulk${N - 1},`));
  });

  it('refuses bad parameters with a 400 naming them', async () => {
    for (const [qs, field] of [
      ['', 'dataset'],
      ['dataset=users', 'dataset'],
      ['dataset=jobs&format=xlsx', 'format'],
      ['dataset=jobs&from=01/03/2026', 'from'],
      ['dataset=jobs&colour=red', 'colour'],
    ] as const) {
      const res = await get(qs);
      assert.equal(res.status, 400, qs);
      assert.match(((await res.json()) as any).error.message, new RegExp(field), qs);
    }
  });
});
