// Idempotency-Key on creating POSTs, through the real app and database: replay creates nothing twice, conflicts, limits, expiry, failures.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/errors.js';
import { canonicalJson, IDEMPOTENCY_TTL_MS } from '../../src/http/idempotency.js';
import { defineRoute } from '../../src/http/route.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { dbRow, dbRows } from '../helpers/test-database.js';

// A creating route open to all: its handler counts the records it really creates.
let created = 0;
let gate: Promise<void> | null = null;
let failNext: 'server' | null = null;

const widgetRoute = defineRoute<{ name: string; quota?: boolean }>({
  method: 'POST',
  path: '/v1/test-widgets',
  summary: 'test only',
  tag: 'Test',
  auth: 'none',
  idempotent: true,
  body: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: { name: { type: 'string', minLength: 1 }, quota: { type: 'boolean' } },
  },
  responses: { 201: { description: 'created' } },
  async handle(ctx, input) {
    if (gate) await gate;
    if (failNext === 'server') {
      failNext = null;
      throw new Error('disk on fire');
    }
    if (input.body.quota) {
      created += 1;
      throw new AppError(403, 'quota_exceeded', 'widget limit reached');
    }
    created += 1;
    const id = `wid_${created}`;
    ctx.status = 201;
    ctx.set('Location', `/v1/test-widgets/${id}`);
    ctx.body = { id, name: input.body.name };
  },
});

const otherRoute = defineRoute<{ name: string }>({ ...widgetRoute, path: '/v1/test-gadgets' } as never);

describe('Idempotency-Key', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ extraRoutes: [widgetRoute, otherRoute] });
  });
  after(async () => {
    await t.close();
  });
  beforeEach(() => {
    gate = null;
    failNext = null;
  });

  const create = (body: unknown, key?: string, path = '/v1/test-widgets') =>
    t.request(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  const rows = async () => (await dbRow<{ n: number }>(t.handle, 'SELECT COUNT(*) AS n FROM idempotency_keys'))!.n;

  it('a replay returns the stored status, body and Location with Idempotent-Replayed, creating nothing twice', async () => {
    const before = created;
    const first = await create({ name: 'a', quota: false }, 'k-replay');
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const firstBody = await first.json();

    // Same JSON with other key order and whitespace is the same request.
    const again = await create('{ "quota": false,\n "name": "a" }', 'k-replay');
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.deepEqual(await again.json(), firstBody);
    assert.notEqual(again.headers.get('x-request-id'), first.headers.get('x-request-id'));
    assert.equal(created, before + 1);
  });

  it('without the header every request creates', async () => {
    const before = created;
    await create({ name: 'b' });
    await create({ name: 'b' });
    assert.equal(created, before + 2);
  });

  it('the same key with another body or path is 409 invalid_request', async () => {
    assert.equal((await create({ name: 'c' }, 'k-conflict')).status, 201);
    const before = created;
    const otherBody = await create({ name: 'c2' }, 'k-conflict');
    assert.equal(otherBody.status, 409);
    const err = (await otherBody.json()) as { success: boolean; error: { code: string; message: string } };
    assert.equal(err.success, false);
    assert.equal(err.error.code, 'invalid_request');
    assert.match(err.error.message, /different request/);
    assert.equal((await create({ name: 'c' }, 'k-conflict', '/v1/test-gadgets')).status, 409);
    assert.equal(created, before);
  });

  it('a second request while the first still runs is 409, and the first then completes and replays', async () => {
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const before = created;
    const first = create({ name: 'slow' }, 'k-concurrent');
    // Wait until the first request has claimed the key (its row exists, still without a status).
    while (!(await dbRow(t.handle, "SELECT 1 FROM idempotency_keys WHERE idem_key = 'k-concurrent'"))) {
      await new Promise((r) => setImmediate(r));
    }
    const second = await create({ name: 'slow' }, 'k-concurrent');
    assert.equal(second.status, 409);
    assert.match(((await second.json()) as { error: { message: string } }).error.message, /still being processed/);
    open();
    const firstRes = await first;
    assert.equal(firstRes.status, 201);
    const third = await create({ name: 'slow' }, 'k-concurrent');
    assert.equal(third.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await third.json(), await firstRes.json());
    assert.equal(created, before + 1);
  });

  it('an empty key or one over 255 characters is 400; 255 is fine', async () => {
    const empty = await create({ name: 'd' }, '');
    assert.equal(empty.status, 400);
    assert.match(((await empty.json()) as { error: { message: string } }).error.message, /Idempotency-Key: must not be empty/);
    const long = await create({ name: 'd' }, 'x'.repeat(256));
    assert.equal(long.status, 400);
    assert.match(((await long.json()) as { error: { message: string } }).error.message, /at most 255 characters/);
    assert.equal((await create({ name: 'd' }, 'y'.repeat(255))).status, 201);
  });

  it('a failed (5xx) first attempt is not stored: the retry runs', async () => {
    const before = created;
    failNext = 'server';
    const failed = await create({ name: 'e' }, 'k-5xx');
    assert.equal(failed.status, 500);
    const retry = await create({ name: 'e' }, 'k-5xx');
    assert.equal(retry.status, 201);
    assert.equal(retry.headers.get('idempotent-replayed'), null);
    assert.equal(created, before + 1);
  });

  it('a 4xx result of the handler is stored and replayed', async () => {
    const before = created;
    const first = await create({ name: 'f', quota: true }, 'k-4xx');
    assert.equal(first.status, 403);
    const firstBody = await first.json();
    const again = await create({ name: 'f', quota: true }, 'k-4xx');
    assert.equal(again.status, 403);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await again.json(), firstBody);
    assert.equal(created, before + 1);
  });

  it('a request refused by validation never reached the handler and does not bind the key', async () => {
    assert.equal((await create({ nme: 'typo' }, 'k-invalid')).status, 400);
    assert.equal((await create({ name: 'g' }, 'k-invalid')).status, 201);
  });

  it('many requests with one key at the same moment: exactly one runs, the others are 409 or its replay', async () => {
    // On PostgreSQL these claims race on several pool connections; the INSERT … ON CONFLICT DO NOTHING lets one win.
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const before = created;
    const all = Array.from({ length: 12 }, () => create({ name: 'burst' }, 'k-burst'));
    while (!(await dbRow(t.handle, "SELECT 1 FROM idempotency_keys WHERE idem_key = 'k-burst'"))) {
      await new Promise((r) => setImmediate(r));
    }
    setTimeout(open, 50);
    const statuses = (await Promise.all(all)).map((r) => r.status).sort();
    assert.equal(created, before + 1, 'the handler ran once');
    assert.equal(statuses.filter((s) => s === 201).length >= 1, true);
    assert.deepEqual([...new Set(statuses)].filter((s) => s !== 201 && s !== 409), [], `only 201 and 409: ${statuses.join(',')}`);
  });

  it('keys expire after 24 hours and expired rows are purged lazily', async () => {
    const first = (await (await create({ name: 'h' }, 'k-expiry')).json()) as { id: string };
    t.clock.advance(IDEMPOTENCY_TTL_MS - 1);
    const within = (await (await create({ name: 'h' }, 'k-expiry')).json()) as { id: string };
    assert.equal(within.id, first.id);
    assert.ok((await rows()) > 1);
    t.clock.advance(2);
    const afterTtl = await create({ name: 'h' }, 'k-expiry');
    assert.equal(afterTtl.headers.get('idempotent-replayed'), null);
    assert.notEqual(((await afterTtl.json()) as { id: string }).id, first.id);
    // Everything older than 24 h is gone: only the row just written remains.
    assert.equal((await rows()), 1);
  });

  it('a key left in progress by a process that died is taken over, not blocked for a day', async () => {
    await dbRows(t.handle, "INSERT INTO idempotency_keys (api_key_id, idem_key, fingerprint, status, response, created_ms) VALUES ('ip:127.0.0.1', 'k-orphan', 'x', NULL, NULL, ?)", t.clock.now());
    const res = await create({ name: 'i' }, 'k-orphan');
    assert.equal(res.status, 201);
    assert.equal((await create({ name: 'i' }, 'k-orphan')).headers.get('idempotent-replayed'), 'true');
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level and keeps array order', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [2, 1], c: null } }), '{"a":{"c":null,"d":[2,1]},"b":1}');
    assert.notEqual(canonicalJson({ a: [1, 2] }), canonicalJson({ a: [2, 1] }));
  });
});

describe('Idempotency-Key on a real creating endpoint: POST /v1/api-keys', () => {
  let t: TestApp;
  let adminA: string;
  let adminB: string;
  before(async () => {
    t = await startTestApp();
    adminA = await mintTestKey(t, ['admin:*'], 'admin A');
    adminB = await mintTestKey(t, ['admin:*'], 'admin B');
  });
  after(async () => {
    await t.close();
  });

  const createKey = (caller: string, body: unknown, idem: string) =>
    t.request('/v1/api-keys', { method: 'POST', headers: { ...bearer(caller, true), 'Idempotency-Key': idem }, body: JSON.stringify(body) });
  const keyCount = async () => (await dbRow<{ n: number }>(t.handle, 'SELECT COUNT(*) AS n FROM api_keys'))!.n;

  it('a replay returns the same key record and value and creates no second key', async () => {
    const before = (await keyCount());
    const first = await createKey(adminA, { name: 'ci', scopes: ['jobs:read'] }, 'create-ci');
    assert.equal(first.status, 201);
    const created = (await first.json()) as { id: string; key: string };
    assert.match(created.key, /^svc_live_/);
    const again = await createKey(adminA, { scopes: ['jobs:read'], name: 'ci' }, 'create-ci');
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await again.json(), created);
    assert.equal((await keyCount()), before + 1);
    // The stored response holds the new key's value only sealed under the caller's key.
    const stored = (await dbRow<{ response: string }>(t.handle, "SELECT response FROM idempotency_keys WHERE idem_key = 'create-ci'"))!;
    assert.match(stored.response, /^sealed:/);
    assert.ok(!stored.response.includes(created.key) && !stored.response.includes(created.id));
  });

  it('idempotency keys are per API key: another caller with the same key creates its own record', async () => {
    const before = (await keyCount());
    const res = await createKey(adminB, { name: 'ci', scopes: ['jobs:read'] }, 'create-ci');
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('idempotent-replayed'), null);
    assert.equal((await keyCount()), before + 1);
  });

  it('the same key with a different body is 409 and creates nothing', async () => {
    const before = (await keyCount());
    const res = await createKey(adminA, { name: 'ci', scopes: ['jobs:write'] }, 'create-ci');
    assert.equal(res.status, 409);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_request');
    assert.equal((await keyCount()), before);
  });

  it("the handler's 4xx (an unknown scope) is stored and replayed", async () => {
    const first = await createKey(adminA, { name: 'x', scopes: ['nonsense:read'] }, 'bad-scope');
    assert.equal(first.status, 400);
    const body = await first.json();
    const again = await createKey(adminA, { name: 'x', scopes: ['nonsense:read'] }, 'bad-scope');
    assert.equal(again.status, 400);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await again.json(), body);
  });
});
