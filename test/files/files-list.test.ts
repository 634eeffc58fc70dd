// GET /v1/files over HTTP on the real app (SQLite here, PostgreSQL in test:postgres): newest use first, paging, the q /
// format / deleted filters, jobs_count and last_job_at, scopes and refused parameters.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { FileListItem, FileRecord } from '../../src/files/files.schemas.js';
import { markFilePruned } from '../../src/files/files.repository.js';
import { isoTime } from '../../src/clock.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { bambuStudio, makePng, thumbnailBlock } from './gcode-fixtures.js';

interface ListAnswer {
  data: Array<Partial<FileListItem>>;
  pagination: { page: number; per_page: number; total: number; total_pages: number };
}

describe('GET /v1/files', () => {
  let t: TestApp;
  let admin: string;
  let reader: string;
  let outsider: string;
  const stored: Record<string, FileRecord> = {};

  const list = async (query = '', key = reader): Promise<{ status: number; body: any }> => {
    const res = await t.request(`/v1/files${query}`, { headers: bearer(key) });
    return { status: res.status, body: await res.json() };
  };
  const names = (body: ListAnswer) => body.data.map((f) => f.original_name);
  const store = async (name: string, content: string) => {
    stored[name] = await t.deps.files.ingestStream(Readable.from([content]), name);
    // One minute between uploads: the order by last use is then certain.
    t.clock.advance(60_000);
  };

  before(async () => {
    t = await startTestApp();
    admin = await mintTestKey(t);
    reader = await mintTestKey(t, ['jobs:read']);
    outsider = await mintTestKey(t, ['printers:read']);
    await store('Bracket_v2.gcode', 'G28\nG1 X1 ; bracket\n');
    await store('gear 50%_done.gcode', 'G28\nG1 X2 ; gear\n');
    await store('benchy.gcode', bambuStudio(thumbnailBlock(makePng(16, 16), 16, 16)));
    await store('old-part.gcode', 'G28\nG1 X3 ; old\n');
    // Pruned: its record stays, with deleted_at.
    const old = stored['old-part.gcode']!;
    assert.equal(await markFilePruned(t.handle.db, old.id, old.last_used_at, isoTime(t.clock.now())), true);
    // Two jobs (copies) from the bracket: it counts both, and it becomes the last used file.
    const res = await t.request('/v1/jobs', {
      method: 'POST',
      headers: bearer(admin, true),
      body: JSON.stringify({ file_id: stored['Bracket_v2.gcode']!.id, copies: 2 }),
    });
    assert.equal(res.status, 201, await res.text());
  });
  after(async () => {
    await t.close();
  });

  it('lists every file, the last used first, each the file record with jobs_count and last_job_at', async () => {
    const { status, body } = await list();
    assert.equal(status, 200);
    assert.deepEqual(names(body), ['Bracket_v2.gcode', 'old-part.gcode', 'benchy.gcode', 'gear 50%_done.gcode']);
    assert.deepEqual(body.pagination, { page: 1, per_page: 20, total: 4, total_pages: 1 });
    const bracket = body.data[0] as FileListItem;
    assert.equal(bracket.jobs_count, 2);
    assert.equal(typeof bracket.last_job_at, 'string');
    assert.equal(bracket.last_job_at, bracket.last_used_at, 'queuing from the file is its last use');
    const benchy = body.data[2] as FileListItem;
    const { jobs_count, last_job_at, ...record } = benchy;
    assert.deepEqual(record, stored['benchy.gcode'], 'the item is the GET /v1/files/:id record');
    assert.equal(jobs_count, 0);
    assert.equal(last_job_at, null);
    assert.equal(benchy.thumbnail_url, `/v1/files/${benchy.id}/thumbnail`);
    const pruned = body.data[1] as FileListItem;
    assert.equal(typeof pruned.deleted_at, 'string');
    assert.equal(pruned.thumbnail_url, null);
  });

  it('pages in a total order, and sorts by other fields', async () => {
    const one = (await list('?per_page=3')).body as ListAnswer;
    const two = (await list('?per_page=3&page=2')).body as ListAnswer;
    assert.deepEqual(one.pagination, { page: 1, per_page: 3, total: 4, total_pages: 2 });
    assert.deepEqual([...names(one), ...names(two)], ['Bracket_v2.gcode', 'old-part.gcode', 'benchy.gcode', 'gear 50%_done.gcode']);
    assert.deepEqual(names((await list('?sort=created_at')).body), ['Bracket_v2.gcode', 'gear 50%_done.gcode', 'benchy.gcode', 'old-part.gcode']);
    assert.deepEqual(names((await list('?sort=size&fields=original_name')).body), ['old-part.gcode', 'gear 50%_done.gcode', 'Bracket_v2.gcode', 'benchy.gcode']);
    assert.deepEqual((await list('?fields=id,jobs_count&per_page=1')).body.data, [{ id: stored['Bracket_v2.gcode']!.id, jobs_count: 2 }]);
  });

  it('q matches part of the name, ignoring case; % and _ are plain characters', async () => {
    assert.deepEqual(names((await list('?q=BRACKET')).body), ['Bracket_v2.gcode']);
    assert.deepEqual(names((await list('?q=.gcode')).body).length, 4);
    assert.deepEqual(names((await list(`?q=${encodeURIComponent('50%_')}`)).body), ['gear 50%_done.gcode']);
    assert.deepEqual(names((await list(`?q=${encodeURIComponent('%')}`)).body), ['gear 50%_done.gcode'], '% is no wildcard');
    assert.deepEqual(names((await list('?q=t_')).body), ['Bracket_v2.gcode'], '_ is no wildcard ("old-part." would match)');
    assert.deepEqual(names((await list('?q=nothing-like-this')).body), []);
  });

  it('deleted and format filter, and combine with q', async () => {
    assert.deepEqual(names((await list('?deleted=true')).body), ['old-part.gcode']);
    assert.deepEqual(names((await list('?deleted=false')).body), ['Bracket_v2.gcode', 'benchy.gcode', 'gear 50%_done.gcode']);
    assert.deepEqual(names((await list('?deleted=false&q=part')).body), []);
    assert.equal((await list('?format=gcode')).body.data.length, 4);
    assert.deepEqual((await list('?format=bgcode')).body.data, []);
  });

  it('refuses unknown or bad parameters with 400, and needs jobs:read', async () => {
    for (const [query, words] of [
      ['?deleted=yes', /deleted: must be true or false/],
      ['?format=stl', /format: "stl" is not one of/],
      ['?sort=sha256', /cannot sort by "sha256"/],
      ['?name=x', /unknown query parameter "name"/],
      ['?q=', /q: must be 1 to 500 characters/],
    ] as const) {
      const { status, body } = await list(query);
      assert.equal(status, 400, query);
      assert.match(body.error.message, words, query);
    }
    assert.equal((await list('', outsider)).status, 403);
    assert.equal((await t.request('/v1/files')).status, 401);
  });
});
