// GET /v1/printers: filters (live status, group, tag, model) combined, sort, fields and paging through the shared list helper.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fastSim, startPrintersApp, type PrintersApp } from './printers-api-harness.js';

describe('listing printers', () => {
  let app: PrintersApp;
  const ids: Record<string, string> = {};
  before(async () => {
    app = await startPrintersApp();
    const make = async (name: string, url: string, extra: Record<string, unknown>) => {
      ids[name] = (await app.create({ name, connection_url: url, ...extra })).id;
      // Distinct created_at for the default order.
      app.t.clock.advance(1000);
    };
    await make('alpha', fastSim('list-a'), { group: 'g1', tags: ['pla', 'big'], model: 'M1' });
    await make('bravo', fastSim('list-b'), { group: 'g1', tags: ['petg'], model: 'M2' });
    await make('charlie', fastSim('list-c'), { group: 'g2', tags: ['pla'], model: 'M1' });
    await make('delta', 'tcp://127.0.0.1:1', { group: 'g2', model: 'M2' });
    for (const name of ['alpha', 'bravo', 'charlie']) await app.untilStatus(ids[name]!, 'idle');
  });
  after(async () => {
    await app.close();
  });

  const names = async (query: string): Promise<string[]> => {
    const res = await app.call('GET', `/v1/printers${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data.map((p: { name: string }) => p.name);
  };

  it('defaults to newest first with pagination', async () => {
    const res = await app.call('GET', '/v1/printers?per_page=3');
    assert.deepEqual(res.body.data.map((p: { name: string }) => p.name), ['delta', 'charlie', 'bravo']);
    assert.deepEqual(res.body.pagination, { page: 1, per_page: 3, total: 4, total_pages: 2 });
    assert.deepEqual(await names('?per_page=3&page=2'), ['alpha']);
  });

  it('filters by group, tag, model and live status, and combines them', async () => {
    assert.deepEqual(await names('?group=g1&sort=name'), ['alpha', 'bravo']);
    assert.deepEqual(await names('?tag=pla&sort=name'), ['alpha', 'charlie']);
    assert.deepEqual(await names('?model=M1&sort=name'), ['alpha', 'charlie']);
    assert.deepEqual(await names('?group=g1&tag=pla'), ['alpha']);
    assert.deepEqual(await names('?status=idle&sort=name'), ['alpha', 'bravo', 'charlie']);
    assert.deepEqual(await names('?status=offline'), ['delta']);
    assert.deepEqual(await names('?status=printing'), []);
    assert.deepEqual(await names('?status=idle&group=g2'), ['charlie']);
    assert.deepEqual(await names('?status=offline&model=M1'), []);
    assert.deepEqual(await names('?group=nope'), []);
    const total = await app.call('GET', '/v1/printers?status=idle&model=M2');
    assert.equal(total.body.pagination.total, 1);
  });

  it('sorts by name, model, group and timestamps; ties break by id', async () => {
    assert.deepEqual(await names('?sort=name'), ['alpha', 'bravo', 'charlie', 'delta']);
    assert.deepEqual(await names('?sort=-name'), ['delta', 'charlie', 'bravo', 'alpha']);
    assert.deepEqual(await names('?sort=group,-name'), ['bravo', 'alpha', 'delta', 'charlie']);
    assert.deepEqual(await names('?sort=model,name'), ['alpha', 'charlie', 'bravo', 'delta']);
    assert.deepEqual(await names('?sort=created_at'), ['alpha', 'bravo', 'charlie', 'delta']);
    assert.equal((await names('?sort=-updated_at')).length, 4);
  });

  it('fields selects; bad filters, sorts and fields are 400 naming them', async () => {
    const res = await app.call('GET', '/v1/printers?fields=id,status,connecting&sort=name&per_page=1');
    assert.deepEqual(res.body.data, [{ id: ids.alpha, status: 'idle', connecting: false }]);
    const cases: Array<[string, RegExp]> = [
      ['?status=busy', /^query parameter status: "busy" is not one of "idle", "printing", "offline", "paused", "error" \(several may be given, separated by commas\)$/],
      ['?sort=status', /^query parameter sort: cannot sort by "status"$/],
      ['?fields=id,api_key', /^query parameter fields: unknown field "api_key"$/],
      ['?group=', /^query parameter group: must be 1 to 500 characters long$/],
      ['?colour=red', /^unknown query parameter "colour"$/],
    ];
    for (const [query, message] of cases) {
      const bad = await app.call('GET', `/v1/printers${query}`);
      assert.equal(bad.status, 400, query);
      assert.match(bad.body.error.message, message, query);
    }
  });
});
