// Every built list endpoint goes through the list-query helper: unknown, repeated or out-of-range parameters are 400, a page past the end is empty.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allRoutes } from '../../src/app/routes-index.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { dbRow, dbRows } from '../helpers/test-database.js';

interface ListBody {
  data?: unknown[];
  keys?: unknown[];
  pagination: { page: number; per_page: number; total: number; total_pages: number };
}

const builtLists = allRoutes().filter((r) => r.method === 'GET' && r.list);

describe('built list endpoints use the list-query helper', () => {
  let t: TestApp;
  let admin: string;
  let webhookId = '';
  let spoolId = '';
  before(async () => {
    t = await startTestApp();
    admin = await mintTestKey(t);
    // Every list must hold a record for the page-past-the-end check: the printers list needs one made.
    const created = await t.request('/v1/printers', {
      method: 'POST',
      headers: bearer(admin, true),
      body: JSON.stringify({ name: 'list check', connection_url: 'sim://list-check?speed=max' }),
    });
    assert.equal(created.status, 201);
    const printerId = ((await created.json()) as { id: string }).id;
    // ...and the cameras list a camera.
    const camera = await t.request(`/v1/printers/${printerId}/cameras`, {
      method: 'POST',
      headers: bearer(admin, true),
      body: JSON.stringify({ name: 'list cam', snapshot_url: 'http://127.0.0.1:9/snap.jpg' }),
    });
    assert.equal(camera.status, 201);
    // ...and the jobs list a job.
    const form = new FormData();
    form.append('printer_id', printerId);
    form.append('file', new Blob(['G28\nG1 X10 Y10\n']), 'list.gcode');
    const job = await t.request('/v1/jobs', { method: 'POST', headers: bearer(admin), body: form });
    assert.equal(job.status, 201);
    const jobId = ((await job.json()) as { data: { id: string } }).data.id;
    // One webhook with one (failed, nobody listens on port 9) delivery, so the webhook lists have a record.
    const hook = await t.request('/v1/webhooks', {
      method: 'POST',
      headers: bearer(admin, true),
      body: JSON.stringify({ url: 'http://127.0.0.1:9/', events: ['*'] }),
    });
    webhookId = ((await hook.json()) as { id: string }).id;
    await t.request(`/v1/webhooks/${webhookId}/test`, { method: 'POST', headers: bearer(admin) });
    // ...and the materials list a spool.
    const spool = await t.request('/v1/materials', { method: 'POST', headers: bearer(admin, true), body: JSON.stringify({ type: 'PLA', spool_weight: 1000 }) });
    assert.equal(spool.status, 201);
    spoolId = ((await spool.json()) as { id: string }).id;
    // ...and the spool's usage list a line (written as the material meter does, without waiting for a print). Tool 7: the
    // job may finish on its fast printer meanwhile and the meter then writes its own line for tool 0.
    await dbRows(t.handle, 'INSERT INTO job_material_usage (job_id, tool, material_id, grams) VALUES (?, 7, ?, 1.5)', jobId, spoolId);
  });
  after(async () => {
    await t.close();
  });

  const get = (path: string) => t.request(path.replace(':id', path.startsWith('/v1/materials/') ? spoolId : webhookId), { headers: bearer(admin) });
  const message = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

  it('there are some (users, api-keys) to check', () => {
    const paths = builtLists.map((r) => r.path);
    assert.ok(paths.includes('/v1/users') && paths.includes('/v1/api-keys'), paths.join(', '));
  });

  for (const route of builtLists) {
    it(`${route.path}: unknown, repeated and out-of-range parameters are 400 naming them`, async () => {
      const unknown = await get(`${route.path}?colour=red`);
      assert.equal(unknown.status, 400);
      assert.match((await message(unknown)).message, /unknown query parameter "colour"/);
      const repeated = await get(`${route.path}?page=1&page=2`);
      assert.equal(repeated.status, 400);
      assert.match((await message(repeated)).message, /page: must be given at most once/);
      const tooMany = await get(`${route.path}?per_page=101`);
      assert.equal(tooMany.status, 400);
      assert.match((await message(tooMany)).message, /per_page: must be an integer from 1 to 100/);
      const badSort = await get(`${route.path}?sort=-nonexistent`);
      assert.equal(badSort.status, 400);
      assert.match((await message(badSort)).message, /sort: cannot sort by "nonexistent"/);
    });

    it(`${route.path}: a page past the end is empty with correct pagination; fields selects`, async () => {
      const res = await get(`${route.path}?page=50&per_page=5`);
      assert.equal(res.status, 200);
      const body = (await res.json()) as ListBody;
      assert.deepEqual(body.data ?? body.keys, []);
      assert.equal(body.pagination.page, 50);
      assert.equal(body.pagination.per_page, 5);
      assert.ok(body.pagination.total >= 1);
      assert.equal(body.pagination.total_pages, Math.ceil(body.pagination.total / 5));
      // Records without an id of their own (a spool's usage lines) select their first field instead.
      const field = route.list!.fields.includes('id') ? 'id' : route.list!.fields[0]!;
      const first = (await (await get(`${route.path}?fields=${field}`)).json()) as ListBody;
      for (const rec of (first.data ?? first.keys) as object[]) assert.deepEqual(Object.keys(rec), [field]);
    });
  }
});
