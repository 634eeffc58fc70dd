// Bad input to the jobs API gets a clear error and creates nothing: JSON and multipart creates, file_url downloads,
// invalid files, unknown printers, PATCH rules, list filters and sorts.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { bearer, mintTestKey } from '../helpers/test-app.js';
import { makePng, prusaSlicer, thumbnailBlock } from '../files/gcode-fixtures.js';
import { createJob, gcode, uploadJob } from './jobs-harness.js';
import { dbRow, dbRows } from '../helpers/test-database.js';

describe('jobs API input', () => {
  let app: PrintersApp;
  let files: http.Server;
  let base = '';
  before(async () => {
    app = await startPrintersApp();
    files = http.createServer((req, res) => {
      if (req.url === '/part.gcode') res.writeHead(200, { 'Content-Type': 'text/plain' }).end(gcode({ minutes: 90, grams: 41.5, type: 'ASA' }));
      else if (req.url === '/photo.jpg') res.writeHead(200).end(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]));
      else res.writeHead(404).end('no such file');
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  });
  after(async () => {
    await app.close();
    await new Promise((resolve) => files.close(resolve));
  });

  const count = async (): Promise<number> => (await dbRow<{ n: number }>(app.t.handle, 'SELECT count(*) AS n FROM jobs'))!.n;

  it('JSON create downloads file_url first and answers { success, data }', async () => {
    const res = await app.call('POST', '/v1/jobs', { file_url: `${base}/part.gcode`, material: { type: 'PETG', color: 'black' }, copies: 2, tags: ['x'] });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    const job = res.body.data;
    assert.equal(job.status, 'queued');
    assert.equal(job.file_url, `${base}/part.gcode`);
    assert.equal(job.name, 'part (1/2)');
    assert.equal(job.estimated_duration, 5400);
    // The request's material wins over the file's; the usage comes from the file.
    assert.deepEqual(job.material, { type: 'PETG', color: 'black', estimated_usage: 41.5, used: null, used_basis: null });
    assert.equal(job.job_ids.length, 2);
    assert.match(job.batch_id, /^bat_/);
  });

  it('links the file\'s thumbnail (thumbnail_url) only when the file has one, in every answer and event', async () => {
    const pictured = await createJob(app, prusaSlicer(thumbnailBlock(makePng(32, 32), 32, 32)), { tags: ['thumb-test'] });
    const plain = await createJob(app, gcode({ tag: 'no picture' }), { tags: ['thumb-test'] });
    assert.equal(pictured.thumbnail_url, `/v1/files/${pictured.file_id}/thumbnail`, 'the create answer');
    assert.equal(plain.thumbnail_url, null);
    for (const [job, url] of [[pictured, pictured.thumbnail_url], [plain, null]] as const) {
      assert.equal((await app.call('GET', `/v1/jobs/${job.id}`)).body.thumbnail_url, url, 'GET /v1/jobs/:id');
      const stored = (await dbRow<{ body: string }>(app.t.handle, "SELECT body FROM events WHERE type = 'job.created' AND body LIKE ?", `%${job.id}%`))!;
      assert.equal(JSON.parse(stored.body).data.object.thumbnail_url, url, 'the job.created event');
    }
    const listed = (await app.call('GET', '/v1/jobs?tag=thumb-test&per_page=100')).body.data as Array<{ id: string; thumbnail_url: string | null }>;
    assert.deepEqual(
      listed.map((j) => [j.id, j.thumbnail_url]).sort(),
      [[pictured.id, pictured.thumbnail_url], [plain.id, null]].sort(),
      'the list',
    );
    // The link works, and the file record says the same.
    const image = await app.t.request(pictured.thumbnail_url!, { headers: { Authorization: `Bearer ${app.admin}` } });
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/png');
    assert.equal((await app.call('GET', `/v1/files/${plain.file_id}`)).body.thumbnail_url, null);
  });

  it('refuses bad creates with a clear error and creates nothing', async () => {
    const before = (await count());
    const cases: Array<[unknown, number, string, RegExp]> = [
      [{}, 400, 'invalid_request', /file_url/],
      [{ file_url: 'ftp://example.com/a.gcode' }, 400, 'invalid_request', /file_url/],
      [{ file_url: `${base}/part.gcode`, colour: 'red' }, 400, 'invalid_request', /colour/],
      [{ file_url: `${base}/part.gcode`, copies: 0 }, 400, 'invalid_request', /copies/],
      [{ file_url: `${base}/part.gcode`, copies: 101 }, 400, 'invalid_request', /copies/],
      [{ file_url: `${base}/part.gcode`, priority: 'asap' }, 400, 'invalid_request', /priority/],
      [{ file_url: `${base}/part.gcode`, printer_id: 'prt_nope' }, 400, 'invalid_printer', /prt_nope/],
      [{ file_url: `${base}/missing.gcode` }, 400, 'invalid_request', /404/],
      [{ file_url: `${base}/photo.jpg` }, 422, 'file_invalid', /binary|G-code|text/i],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await app.call('POST', '/v1/jobs', body);
      assert.equal(res.status, status, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, code, JSON.stringify(body));
      assert.match(res.body.error.message, message, JSON.stringify(body));
    }
    const malformed = await app.call('POST', '/v1/jobs', '{"file_url": ');
    assert.equal(malformed.status, 400);
    assert.equal((await count()), before);
  });

  it('refuses bad multipart creates: no file, a binary file, bad fields', async () => {
    const before = (await count());
    const noFile = new FormData();
    noFile.append('name', 'x');
    const res = await app.t.request('/v1/jobs', { method: 'POST', headers: { Authorization: `Bearer ${app.admin}` }, body: noFile });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { error: { message: string } }).error.message, /file/);
    const binary = await uploadJob(app, new Uint8Array([0, 1, 2, 3, 0, 255]), {});
    assert.equal(binary.status, 422);
    assert.equal(binary.body.error.code, 'file_invalid');
    const empty = await uploadJob(app, '', {});
    assert.equal(empty.status, 422);
    const longLine = await uploadJob(app, `G1 X1 ${'Y1 '.repeat(60)}\n`, {});
    assert.equal(longLine.status, 422);
    assert.match(longLine.body.error.message, /line 1/);
    for (const [fields, message] of [
      [{ copies: 'three' }, /copies/],
      [{ priority: 'soon' }, /priority/],
      [{ printer_id: 'prt_missing' }, /prt_missing/],
      [{ unknown_field: 'x' }, /unknown_field/],
      [{ name: 'a\u0000b' }, /name/],
    ] as const) {
      const bad = await uploadJob(app, gcode(), fields as Record<string, string>);
      assert.ok(bad.status === 400, `${JSON.stringify(fields)} → ${bad.status} ${JSON.stringify(bad.body)}`);
      assert.match(bad.body.error.message, message);
    }
    assert.equal((await count()), before);
  });

  it('lists: filters combine, priority sorts by urgency, from/to bound the day, tags and fields', async () => {
    const t0 = app.t.clock.now();
    const low = await createJob(app, gcode({ tag: 'l' }), { priority: 'low', tags: ['red'], printer_id: (await app.create({ name: 'x', connection_url: 'tcp://127.0.0.1:9' })).id });
    app.t.clock.advance(24 * 3600 * 1000);
    const urgent = await createJob(app, gcode({ tag: 'u' }), { priority: 'urgent', tags: ['blue', 'red'], printer_id: low.printer_id! });
    app.t.clock.advance(1000);
    const high = await createJob(app, gcode({ tag: 'h' }), { priority: 'high', printer_id: low.printer_id! });
    const q = async (query: string): Promise<string[]> => {
      const res = await app.call('GET', `/v1/jobs?printer_id=${low.printer_id}&${query}`);
      assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
      return res.body.data.map((j: { id: string }) => j.id);
    };
    assert.deepEqual(await q('sort=-priority'), [urgent.id, high.id, low.id]);
    assert.deepEqual(await q('sort=priority'), [low.id, high.id, urgent.id]);
    assert.deepEqual(await q('tag=red&sort=created_at'), [low.id, urgent.id]);
    assert.deepEqual(await q('tag=blue'), [urgent.id]);
    // Tags match whatever the case of their ASCII letters, on either engine.
    assert.deepEqual(await q('tag=RED&sort=created_at'), [low.id, urgent.id]);
    assert.deepEqual(await q('tag=Blue'), [urgent.id]);
    const day0 = new Date(t0).toISOString().slice(0, 10);
    assert.deepEqual(await q(`from=${day0}&to=${day0}`), [low.id]);
    assert.deepEqual(await q('status=queued&priority=high'), [high.id]);
    // Several values of an enum filter, separated by commas, match any of them.
    assert.deepEqual(await q('priority=high,low&sort=priority'), [low.id, high.id]);
    assert.deepEqual(await q('status=printing,queued&priority=urgent,urgent'), [urgent.id]);
    assert.deepEqual(await q('status=completed,cancelled'), []);
    const fields = await app.call('GET', `/v1/jobs?printer_id=${low.printer_id}&fields=id,priority&sort=-priority&per_page=1`);
    assert.deepEqual(fields.body.data, [{ id: urgent.id, priority: 'urgent' }]);
    assert.deepEqual(fields.body.pagination, { page: 1, per_page: 1, total: 3, total_pages: 3 });
    for (const bad of ['sort=colour', 'status=done', 'status=queued,done', 'status=queued,', 'priority=soon', 'from=yesterday', 'fields=id,secret']) {
      const res = await app.call('GET', `/v1/jobs?${bad}`);
      assert.equal(res.status, 400, bad);
    }
    assert.equal((await app.call('GET', '/v1/jobs/job_doesnotexist')).status, 404);
  });

  it('scopes: jobs:read may read but not create or cancel', async () => {
    const reader = await mintTestKey(app.t, ['jobs:read'], 'reader');
    const list = await app.t.request('/v1/jobs', { headers: bearer(reader) });
    assert.equal(list.status, 200);
    const create = await app.t.request('/v1/jobs', { method: 'POST', headers: bearer(reader, true), body: JSON.stringify({ file_url: `${base}/part.gcode` }) });
    assert.equal(create.status, 403);
    assert.match(((await create.json()) as { error: { message: string } }).error.message, /jobs:write/);
  });
});
