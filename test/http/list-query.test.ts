// The list-query helper: a table of parser cases (accepted and rejected with a message naming parameter and rule) and one real SQLite run.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { AppError } from '../../src/errors.js';
import { listQueryParameters, parseListQuery, type ListSpec } from '../../src/http/list-query.js';
import { conditionValues, runListQuery } from '../../src/storage/list-page.js';
import { openDatabase, type DbHandle } from '../../src/storage/db.js';

const spec: ListSpec = {
  fields: ['id', 'name', 'email', 'role', 'status', 'created_at'],
  sortable: ['name', 'email', 'created_at'],
  filters: {
    role: { column: 'role', type: 'enum', values: ['owner', 'admin', 'operator', 'viewer'] },
    status: { column: 'status', type: 'enum', values: ['active', 'invited'] },
    email: { column: 'email', type: 'string' },
    active: { type: 'boolean', column: 'is_active' },
    weight: { type: 'number', column: 'weight' },
    day: { type: 'date', column: 'created_at' },
  },
  dateRange: { column: 'created_at' },
};

type Query = Record<string, string | string[]>;

describe('parseListQuery accepts', () => {
  it('defaults: page 1, per_page 20, -created_at then id, all fields, no filters', () => {
    const q = parseListQuery({}, spec);
    assert.deepEqual(q, {
      page: 1,
      perPage: 20,
      sort: [
        { field: 'created_at', column: 'created_at', desc: true },
        { field: 'id', column: 'id', desc: true },
      ],
      fields: null,
      where: [],
    });
  });

  const cases: { name: string; query: Query; check: (q: ReturnType<typeof parseListQuery>) => void }[] = [
    { name: 'page and per_page bounds', query: { page: '3', per_page: '100' }, check: (q) => assert.deepEqual([q.page, q.perPage], [3, 100]) },
    { name: 'per_page 1', query: { per_page: '1' }, check: (q) => assert.equal(q.perPage, 1) },
    {
      name: 'several sort keys, ascending tie-breaker after an ascending last key',
      query: { sort: '-name,email' },
      check: (q) => assert.deepEqual(q.sort.map((k) => `${k.desc ? '-' : ''}${k.field}`), ['-name', 'email', 'id']),
    },
    { name: 'field selection', query: { fields: 'id,name' }, check: (q) => assert.deepEqual(q.fields, ['id', 'name']) },
    {
      name: 'enum and string filters combine',
      query: { role: 'admin', email: 'a@b.c' },
      check: (q) =>
        assert.deepEqual(
          q.where.map((c) => ('column' in c ? [c.column, c.op, conditionValues(c).join()] : [])),
          [
            ['role', '=', 'admin'],
            ['email', '=', 'a@b.c'],
          ],
        ),
    },
    { name: 'boolean filter becomes 0/1', query: { active: 'false' }, check: (q) => assert.deepEqual(q.where[0] && 'value' in q.where[0] ? q.where[0].value : null, 0) },
    { name: 'number filter', query: { weight: '-2.5' }, check: (q) => assert.deepEqual(q.where[0] && conditionValues(q.where[0]), [-2.5]) },
    {
      name: 'an enum filter takes several values separated by commas (repeats once)',
      query: { role: 'admin,viewer,admin' },
      check: (q) => assert.deepEqual(q.where.map((c) => ('column' in c ? [c.column, c.op, conditionValues(c)] : [])), [['role', 'in', ['admin', 'viewer']]]),
    },
    {
      name: 'a date filter without time covers the whole UTC day',
      query: { day: '2026-02-28' },
      check: (q) =>
        assert.deepEqual(
          q.where.map((c) => ('column' in c ? [c.op, conditionValues(c)[0]] : [])),
          [
            ['>=', '2026-02-28T00:00:00.000Z'],
            ['<', '2026-03-01T00:00:00.000Z'],
          ],
        ),
    },
    {
      name: 'from/to dates: from the start of from-day to the end of to-day',
      query: { from: '2026-01-01', to: '2026-01-01' },
      check: (q) =>
        assert.deepEqual(
          q.where.map((c) => ('column' in c ? [c.param, c.op, conditionValues(c)[0]] : [])),
          [
            ['from', '>=', '2026-01-01T00:00:00.000Z'],
            ['to', '<', '2026-01-02T00:00:00.000Z'],
          ],
        ),
    },
    {
      name: 'from/to with times and offsets are normalised to UTC',
      query: { from: '2026-01-01T10:00:00+02:00', to: '2026-01-01T12:30Z' },
      check: (q) =>
        assert.deepEqual(
          q.where.map((c) => ('column' in c ? [c.op, conditionValues(c)[0]] : [])),
          [
            ['>=', '2026-01-01T08:00:00.000Z'],
            ['<=', '2026-01-01T12:30:00.000Z'],
          ],
        ),
    },
  ];
  for (const c of cases) it(c.name, () => c.check(parseListQuery(c.query, spec)));
});

describe('parseListQuery rejects with 400 naming the parameter and the rule', () => {
  const cases: { query: Query; message: RegExp }[] = [
    { query: { colour: 'red' }, message: /unknown query parameter "colour"/ },
    { query: { page: '0' }, message: /page: must be an integer from 1/ },
    { query: { page: '-1' }, message: /page: must be an integer/ },
    { query: { page: '1.5' }, message: /page: must be an integer/ },
    { query: { page: 'abc' }, message: /page: must be an integer/ },
    { query: { page: '' }, message: /page: must be an integer/ },
    { query: { per_page: '0' }, message: /per_page: must be an integer from 1 to 100/ },
    { query: { per_page: '101' }, message: /per_page: must be an integer from 1 to 100/ },
    { query: { page: ['1', '2'] }, message: /page: must be given at most once/ },
    { query: { role: ['admin', 'owner'] }, message: /role: must be given at most once/ },
    { query: { sort: 'password' }, message: /sort: cannot sort by "password"/ },
    { query: { sort: '__proto__' }, message: /sort: cannot sort by "__proto__"/ },
    { query: { sort: '-constructor' }, message: /sort: cannot sort by "constructor"/ },
    { query: { sort: 'name,' }, message: /sort: must be a comma-separated list without empty entries/ },
    { query: { sort: 'name,-name' }, message: /sort: "name" is given twice/ },
    { query: { sort: '' }, message: /sort: must be a comma-separated list/ },
    { query: { fields: 'id,secret' }, message: /fields: unknown field "secret"/ },
    { query: { fields: 'id,id' }, message: /fields: "id" is given twice/ },
    { query: { role: 'king' }, message: /role: "king" is not one of "owner", "admin", "operator", "viewer"/ },
    { query: { role: 'admin,king' }, message: /role: "king" is not one of/ },
    { query: { email: '' }, message: /email: must be 1 to 500 characters long/ },
    { query: { active: 'yes' }, message: /active: must be true or false/ },
    { query: { weight: '1e3' }, message: /weight: must be a number/ },
    { query: { from: 'yesterday' }, message: /from: must be an ISO 8601 date/ },
    { query: { from: '2026-02-30' }, message: /from: must be an ISO 8601 date/ },
    { query: { to: '2026-01-01T10:00:00' }, message: /to: must be an ISO 8601 date/ },
    { query: { from: '2026-01-03', to: '2026-01-02' }, message: /from: must not be later than to/ },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.query)} → ${c.message.source}`, () => {
      assert.throws(
        () => parseListQuery(c.query, spec),
        (err: unknown) => err instanceof AppError && err.status === 400 && err.code === 'invalid_request' && c.message.test(err.message),
      );
    });
  }

  it('from/to is only known to lists that enable it', () => {
    assert.throws(() => parseListQuery({ from: '2026-01-01' }, { ...spec, dateRange: undefined }), /unknown query parameter "from"/);
  });
});

describe('listQueryParameters', () => {
  it('documents paging, sorting, fields, every filter and from/to', () => {
    const names = listQueryParameters(spec).map((p) => p.name);
    assert.deepEqual(names, ['page', 'per_page', 'sort', 'fields', 'role', 'status', 'email', 'active', 'weight', 'day', 'from', 'to']);
  });
});

describe('runListQuery on a real SQLite table', () => {
  let h: DbHandle;
  const userSpec: ListSpec = {
    fields: ['id', 'name', 'email', 'role', 'created_at'],
    sortable: ['name', 'created_at'],
    filters: {
      role: { column: 'role', type: 'enum', values: ['owner', 'admin', 'operator', 'viewer'] },
      name_has: { type: 'string', where: (v) => sql<boolean>`instr(name, ${v}) > 0` },
    },
    dateRange: { column: 'created_at' },
  };
  const serialize = (row: { id: string; name: string; email: string; role: string; created_at: string }) => ({
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    created_at: row.created_at,
  });
  const list = (query: Query) => runListQuery(h.db.selectFrom('users').selectAll(), parseListQuery(query, userSpec), serialize);

  before(async () => {
    h = openDatabase(':memory:');
    const roles = ['admin', 'operator', 'viewer'] as const;
    // 25 users, one per hour on 2026-01-01 (hour 0..23) and 2026-01-02 00:00; two share a created_at to test the tie-break.
    const rows = Array.from({ length: 25 }, (_, i) => ({
      id: `usr_${String(i).padStart(2, '0')}`,
      email: `u${i}@example.com`,
      name: `user ${String(i).padStart(2, '0')}`,
      role: roles[i % 3]!,
      status: 'active' as const,
      invite_token_hash: null,
      invited_by: null,
      created_at: new Date(Date.UTC(2026, 0, 1, i === 24 ? 24 : i === 1 ? 0 : i)).toISOString(),
      updated_at: '2026-01-01T00:00:00.000Z',
    }));
    await h.db.insertInto('users').values(rows).execute();
  });
  after(async () => {
    await h.close();
  });

  it('default order is newest first then id; pagination counts all rows', async () => {
    const page = await list({});
    assert.equal(page.data.length, 20);
    assert.deepEqual(page.pagination, { page: 1, per_page: 20, total: 25, total_pages: 2 });
    assert.equal(page.data[0]?.id, 'usr_24');
    // usr_00 and usr_01 share created_at: descending id puts usr_01 first.
    const last = await list({ page: '2' });
    assert.deepEqual(
      last.data.map((u) => u.id),
      ['usr_04', 'usr_03', 'usr_02', 'usr_01', 'usr_00'],
    );
  });

  it('filters combine, sort and fields apply', async () => {
    const page = await list({ role: 'admin', sort: 'name', fields: 'id,role', per_page: '3' });
    assert.deepEqual(page.pagination, { page: 1, per_page: 3, total: 9, total_pages: 3 });
    assert.deepEqual(page.data, [
      { id: 'usr_00', role: 'admin' },
      { id: 'usr_03', role: 'admin' },
      { id: 'usr_06', role: 'admin' },
    ]);
    const both = await list({ role: 'admin', name_has: 'user 1' });
    assert.deepEqual(both.data.map((u) => u.id).sort(), ['usr_12', 'usr_15', 'usr_18']);
  });

  it('a date-only to covers the whole day; from excludes earlier rows', async () => {
    const day1 = await list({ to: '2026-01-01', per_page: '100' });
    assert.equal(day1.pagination.total, 24);
    const late = await list({ from: '2026-01-01T22:00:00Z', per_page: '100' });
    assert.deepEqual(
      late.data.map((u) => u.id),
      ['usr_24', 'usr_23', 'usr_22'],
    );
  });

  it('a page past the end is empty with correct pagination', async () => {
    const page = await list({ page: '9', per_page: '10' });
    assert.deepEqual(page, { data: [], pagination: { page: 9, per_page: 10, total: 25, total_pages: 3 } });
  });

  it('an empty result has zero pages', async () => {
    const page = await list({ role: 'owner' });
    assert.deepEqual(page, { data: [], pagination: { page: 1, per_page: 20, total: 0, total_pages: 0 } });
  });
});
