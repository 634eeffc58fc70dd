// Authentication and API keys over HTTP: the 401 cases, scopes (403 naming the scope), create/list/current/revoke/roll.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { dbRow, dbRows } from '../helpers/test-database.js';

interface ErrorBody {
  success: false;
  error: { code: string; message: string; details: string };
}
interface KeyRecord {
  id: string;
  name: string;
  scopes: string[];
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  status: string;
  key?: string;
}

const HOUR = 3_600_000;

async function expect401(res: Response, message: RegExp): Promise<void> {
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('www-authenticate'), 'Bearer');
  const body = (await res.json()) as ErrorBody;
  assert.equal(body.success, false);
  assert.equal(body.error.code, 'invalid_api_key');
  assert.match(body.error.message, message);
}

describe('authentication', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await startTestApp();
    admin = await mintTestKey(t);
  });
  after(async () => {
    await t.close();
  });

  const createKey = async (scopes: string[], name = 'k', key = admin): Promise<Response> =>
    t.request('/v1/api-keys', { method: 'POST', headers: bearer(key, true), body: JSON.stringify({ name, scopes }) });

  it('auth/test answers with the key id and the organization name (Bearer)', async () => {
    const res = await t.request('/v1/auth/test', { headers: bearer(admin) });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { authenticated: boolean; key_id: string; organization: string; scopes: string[] };
    assert.equal(body.authenticated, true);
    assert.match(body.key_id, /^key_/);
    assert.equal(body.organization, 'My print farm');
    assert.deepEqual(body.scopes, ['admin:*']);
  });

  it('accepts Basic with the key as user name and an empty password', async () => {
    const res = await t.request('/v1/auth/test', { headers: { Authorization: `Basic ${Buffer.from(`${admin}:`).toString('base64')}` } });
    assert.equal(res.status, 200);
  });

  it('401 for a missing key, and a different message for an empty Bearer (an unset variable)', async () => {
    await expect401(await t.request('/v1/auth/test'), /^missing API key: send "Authorization: Bearer <key>"$/);
    await expect401(await t.request('/v1/auth/test', { headers: { Authorization: 'Bearer ' } }), /^empty API key: the Authorization header says "Bearer" and nothing after it/);
    await expect401(await t.request('/v1/auth/test', { headers: { Authorization: admin } }), /^the Authorization header has no scheme/);
  });

  it('401 for another scheme or Basic with a password, treated as no key', async () => {
    await expect401(await t.request('/v1/auth/test', { headers: { Authorization: `Token ${admin}` } }), /^unsupported Authorization scheme "Token"/);
    const withPassword = `Basic ${Buffer.from(`${admin}:pw`).toString('base64')}`;
    await expect401(await t.request('/v1/auth/test', { headers: { Authorization: withPassword } }), /^Basic credentials must be the key as user name and an empty password/);
  });

  it('401 for garbage and for a well-formed key nobody issued', async () => {
    await expect401(await t.request('/v1/auth/test', { headers: bearer('garbage') }), /invalid API key/);
    await expect401(await t.request('/v1/auth/test', { headers: bearer('svc_live_' + 'A'.repeat(40)) }), /^invalid API key$/);
    // One character changed of a real key.
    const last = admin.at(-1) === 'a' ? 'b' : 'a';
    await expect401(await t.request('/v1/auth/test', { headers: bearer(admin.slice(0, -1) + last) }), /^invalid API key$/);
  });

  it('401 for a key of another environment, saying which environment it belongs to', async () => {
    await expect401(
      await t.request('/v1/auth/test', { headers: bearer('svc_test_' + 'A'.repeat(40)) }),
      /belongs to the test environment; this server runs in the live environment/,
    );
  });

  it('under /v1 authentication comes first: no key or a bad key is 401 on any path, a valid key then gets 404', async () => {
    await expect401(await t.request('/v1/nothing-here', { headers: bearer('garbage') }), /invalid/);
    await expect401(await t.request('/v1/nothing-here'), /missing API key/);
    await expect401(await t.request('/v1'), /missing API key/);
    await expect401(await t.request('/v1/api-keys', { method: 'PUT' }), /missing API key/);
    const admin = await mintTestKey(t);
    assert.equal((await t.request('/v1/nothing-here', { headers: bearer(admin) })).status, 404);
  });

  it('paths are case-sensitive: /V1/... is an unknown path (404 with a hint), never a misleading 401', async () => {
    const admin = await mintTestKey(t);
    for (const headers of [{}, bearer(admin)]) {
      for (const path of ['/V1/printers', '/V1/api-keys', '/v1/API-KEYS'.replace('/v1', '/V1')]) {
        const res = await t.request(path, { headers });
        assert.equal(res.status, 404, path);
        const body = (await res.json()) as { error: { code: string; message: string; details: string } };
        assert.equal(body.error.code, 'resource_not_found');
        assert.equal(body.error.message, `no route for GET "${path}"`);
        assert.match(body.error.details, /case-sensitive: did you mean "\/v1\//);
      }
    }
    // Inside /v1 a wrongly cased route is unknown too: with a key, 404; the real route still works.
    assert.equal((await t.request('/v1/API-KEYS', { headers: bearer(admin) })).status, 404);
    assert.equal((await t.request('/v1/api-keys', { headers: bearer(admin) })).status, 200);
  });

  it('403 naming the missing scope; any valid key may read its own record', async () => {
    const created = (await (await createKey(['printers:read'])).json()) as KeyRecord;
    const res = await t.request('/v1/api-keys', { headers: bearer(created.key as string) });
    assert.equal(res.status, 403);
    const body = (await res.json()) as ErrorBody;
    assert.equal(body.error.code, 'insufficient_permissions');
    assert.equal(body.error.message, 'missing scope: admin:*');
    const current = await t.request('/v1/api-keys/current', { headers: bearer(created.key as string) });
    assert.equal(current.status, 200);
    assert.equal(((await current.json()) as KeyRecord).id, created.id);
  });

  it('a key cannot mint a broader key', async () => {
    const narrow = ((await (await createKey(['printers:*', 'jobs:read'])).json()) as KeyRecord).key as string;
    const res = await createKey(['admin:*'], 'escalate', narrow);
    assert.equal(res.status, 403);
    assert.match(((await res.json()) as ErrorBody).error.message, /missing scope: admin:\*/);
    const also = await createKey(['printers:read'], 'narrower', narrow);
    assert.equal(also.status, 403, 'minting keys needs admin:* even for narrower scopes');
  });

  it('creates a key: 201, record with prefix and the key once; the key works; list never shows it', async () => {
    const res = await createKey(['jobs:*', 'materials:read', 'jobs:*'], '  CI pipeline  ');
    assert.equal(res.status, 201);
    const rec = (await res.json()) as KeyRecord;
    assert.match(rec.id, /^key_/);
    assert.equal(rec.name, 'CI pipeline');
    assert.deepEqual(rec.scopes, ['jobs:*', 'materials:read']);
    assert.match(rec.key as string, /^svc_live_[0-9A-Za-z]{32,}$/);
    assert.ok((rec.key as string).startsWith(rec.prefix));
    assert.equal(rec.last_used_at, null);
    assert.equal(rec.expires_at, null);
    assert.equal(rec.status, 'active');

    const test = (await (await t.request('/v1/auth/test', { headers: bearer(rec.key as string) })).json()) as { key_id: string };
    assert.equal(test.key_id, rec.id);

    const list = await t.request('/v1/api-keys?per_page=100', { headers: bearer(admin) });
    const text = await list.text();
    assert.ok(!text.includes(rec.key as string), 'the key value never appears in a listing');
    const { keys } = JSON.parse(text) as { keys: KeyRecord[] };
    const listed = keys.find((k) => k.id === rec.id);
    assert.ok(listed);
    assert.equal(listed.key, undefined);
    assert.ok(listed.last_used_at, 'last_used_at is shown after use');
    // The stored row holds only the hash.
    const row = (await dbRow(t.handle, 'SELECT * FROM api_keys WHERE id = ?', rec.id))!;
    assert.ok(!JSON.stringify(row).includes(rec.key as string));
  });

  it('POST /v1/api-keys honours Idempotency-Key: a retry returns the same key and creates nothing more', async () => {
    const send = (): Promise<Response> =>
      t.request('/v1/api-keys', {
        method: 'POST',
        headers: { ...bearer(admin, true), 'Idempotency-Key': 'create-ci-key-1' },
        body: JSON.stringify({ name: 'idempotent', scopes: ['jobs:read'] }),
      });
    const first = (await (await send()).json()) as KeyRecord;
    const second = await send();
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    const replay = (await second.json()) as KeyRecord;
    assert.equal(replay.id, first.id);
    assert.equal(replay.key, first.key);
    const n = (await dbRow<{ n: number }>(t.handle, "SELECT COUNT(*) AS n FROM api_keys WHERE name = 'idempotent'"))!;
    assert.equal(n.n, 1);
  });

  it('garbage bodies: malformed JSON, wrong types, unknown fields, bad scopes, oversize names', async () => {
    const post = (body: string, contentType = 'application/json'): Promise<Response> =>
      t.request('/v1/api-keys', { method: 'POST', headers: { ...bearer(admin), 'Content-Type': contentType }, body });
    const cases: [string, number, RegExp][] = [
      ['{"name": "x", "scopes": [', 400, /malformed JSON/],
      [JSON.stringify({ name: 5, scopes: ['jobs:read'] }), 400, /name: must be a string/],
      [JSON.stringify({ name: 'x', scopes: 'jobs:read' }), 400, /scopes: must be an array/],
      [JSON.stringify({ name: 'x', scopes: [] }), 400, /scopes: must have at least 1/],
      [JSON.stringify({ name: 'x' }), 400, /scopes: is required/],
      [JSON.stringify({ name: 'x', scopes: ['jobs:read'], admin: true }), 400, /unknown field "admin"/],
      [JSON.stringify({ name: 'x', scopes: ['jobs:read', 'jobs:delete'] }), 400, /scopes\[1\]: unknown scope "jobs:delete"/],
      [JSON.stringify({ name: 'x', scopes: ['*'] }), 400, /unknown scope "\*"/],
      [JSON.stringify({ name: 'x'.repeat(101), scopes: ['jobs:read'] }), 400, /name: must be at most 100/],
      [JSON.stringify({ name: '   ', scopes: ['jobs:read'] }), 400, /name: must not be blank/],
      [JSON.stringify([1, 2]), 400, /body: must be a JSON object, not an array/],
    ];
    for (const [body, status, message] of cases) {
      const res = await post(body);
      assert.equal(res.status, status, body);
      const err = (await res.json()) as ErrorBody;
      assert.equal(err.error.code, 'invalid_request', body);
      assert.match(err.error.message, message, body);
    }
    assert.equal((await post('name=x', 'application/x-www-form-urlencoded')).status, 415);
  });

  it('revoke: 200 with the record in its new state; the revoked key (even the one in use) is 401 at once', async () => {
    const rec = (await (await createKey(['admin:*'], 'to revoke')).json()) as KeyRecord;
    const del = await t.request(`/v1/api-keys/${rec.id}`, { method: 'DELETE', headers: bearer(rec.key as string) });
    assert.equal(del.status, 200);
    const after = (await del.json()) as KeyRecord;
    assert.equal(after.id, rec.id);
    assert.equal(after.status, 'revoked');
    assert.equal(after.revoked_at, new Date(t.clock.now()).toISOString());
    await expect401(await t.request('/v1/auth/test', { headers: bearer(rec.key as string) }), /revoked/);
    // Revoking again is harmless and shows the same state.
    const again = await t.request(`/v1/api-keys/${rec.id}`, { method: 'DELETE', headers: bearer(admin) });
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as KeyRecord).revoked_at, after.revoked_at);
    assert.equal((await t.request('/v1/api-keys/key_doesnotexist', { method: 'DELETE', headers: bearer(admin) })).status, 404);
  });

  it('roll: new id, same name and scopes; the old key works until 24 h later, then 401', async () => {
    const old = (await (await createKey(['jobs:read', 'printers:*'], 'rolling')).json()) as KeyRecord;
    const res = await t.request(`/v1/api-keys/${old.id}/roll`, { method: 'POST', headers: bearer(admin) });
    assert.equal(res.status, 201);
    const rolled = (await res.json()) as KeyRecord;
    assert.notEqual(rolled.id, old.id);
    assert.equal(rolled.name, 'rolling');
    assert.deepEqual(rolled.scopes, ['jobs:read', 'printers:*']);
    assert.match(rolled.key as string, /^svc_live_/);
    assert.notEqual(rolled.key, old.key);

    const rolledAt = t.clock.now();
    const listed = (await (await t.request('/v1/api-keys?status=expiring', { headers: bearer(admin) })).json()) as { keys: KeyRecord[] };
    const oldListed = listed.keys.find((k) => k.id === old.id);
    assert.equal(oldListed?.expires_at, new Date(rolledAt + 24 * HOUR).toISOString());

    t.clock.advance(24 * HOUR - 1000);
    assert.equal((await t.request('/v1/auth/test', { headers: bearer(old.key as string) })).status, 200);
    assert.equal((await t.request('/v1/auth/test', { headers: bearer(rolled.key as string) })).status, 200);
    t.clock.advance(1000);
    await expect401(await t.request('/v1/auth/test', { headers: bearer(old.key as string) }), /expired .*rolled to/);
    assert.equal((await t.request('/v1/auth/test', { headers: bearer(rolled.key as string) })).status, 200);

    const expired = (await (await t.request('/v1/api-keys?status=expired', { headers: bearer(admin) })).json()) as { keys: KeyRecord[] };
    assert.deepEqual(
      expired.keys.map((k) => k.id),
      [old.id],
    );
    // A key can be rolled once; a revoked or unknown key not at all.
    assert.equal((await t.request(`/v1/api-keys/${old.id}/roll`, { method: 'POST', headers: bearer(admin) })).status, 409);
    assert.equal((await t.request('/v1/api-keys/key_nope/roll', { method: 'POST', headers: bearer(admin) })).status, 404);
  });

  it('list: pagination, sort and filters through the shared list helper; unknown parameters are 400', async () => {
    const page = (await (await t.request('/v1/api-keys?per_page=2&sort=name', { headers: bearer(admin) })).json()) as {
      keys: KeyRecord[];
      pagination: { per_page: number; total: number };
    };
    assert.equal(page.keys.length, 2);
    assert.equal(page.pagination.per_page, 2);
    assert.ok(page.pagination.total >= 5);
    assert.ok(page.keys[0]!.name <= page.keys[1]!.name);
    const bad = await t.request('/v1/api-keys?include=all', { headers: bearer(admin) });
    assert.equal(bad.status, 400);
    assert.equal((await t.request('/v1/api-keys?status=sleeping', { headers: bearer(admin) })).status, 400);
  });
});

describe('last_used_at is coalesced', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('shows every use through the API but writes the row at most once a minute, and on flush', async () => {
    const key = await mintTestKey(t, ['jobs:read']);
    const stored = async (): Promise<string | null> =>
      (await dbRow<{ last_used_at: string | null }>(t.handle, 'SELECT last_used_at FROM api_keys'))!.last_used_at;
    const current = async (): Promise<string | null> =>
      ((await (await t.request('/v1/api-keys/current', { headers: bearer(key) })).json()) as KeyRecord).last_used_at;

    const t0 = new Date(t.clock.now()).toISOString();
    assert.equal(await current(), t0);
    assert.equal((await stored()), t0, 'the first use is written at once');

    t.clock.advance(10_000);
    const t1 = new Date(t.clock.now()).toISOString();
    assert.equal(await current(), t1, 'the API shows the newest use');
    assert.equal((await stored()), t0, 'no write within the minute');

    t.clock.advance(60_000);
    const t2 = new Date(t.clock.now()).toISOString();
    await current();
    assert.equal((await stored()), t2, 'written again once a minute has passed');

    t.clock.advance(5_000);
    const t3 = new Date(t.clock.now()).toISOString();
    await current();
    assert.equal((await stored()), t2);
    await t.deps.auth.flush();
    assert.equal((await stored()), t3, 'flush writes the pending use');
  });
});
