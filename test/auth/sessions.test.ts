// Browser sign-in over real HTTP: password and API-key sessions, the cookie, scopes by role, sign-out, key revocation, failed attempts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { FAILED_AUTH_LIMIT, FAILED_AUTH_WINDOW_MS } from '../../src/http/middleware/failed-auth-guard.middleware.js';
import { ROLE_SCOPES } from '../../src/auth/role-scopes.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { activeUser, cookieOf, errorOf, PASSWORD, sameOrigin, signIn, signInRequest, type Obj } from './sessions-harness.js';

describe('browser sessions', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await startTestApp();
    admin = await mintTestKey(t);
    await activeUser(t, admin, 'ada@example.com', 'operator');
    await activeUser(t, admin, 'vic@example.com', 'viewer');
    await activeUser(t, admin, 'alan@example.com', 'admin');
  });
  after(async () => {
    await t.close();
  });

  it('signs in with email and password: 201, the session, an HttpOnly SameSite=Strict cookie, only a hash stored', async () => {
    const { cookie, session, res } = await signIn(t, { email: 'ada@example.com', password: PASSWORD });
    const set = res.headers.getSetCookie()[0] as string;
    assert.match(set, /^printfarm_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=604800$/, 'no Secure over plain http');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const now = new Date(t.clock.now()).toISOString();
    assert.deepEqual(Object.keys(session).sort(), ['created_at', 'expires_at', 'id', 'idle_expires_at', 'key', 'scopes', 'user']);
    assert.match(session.id, /^ses_[0-9A-Za-z]{20}$/);
    assert.deepEqual(session.user, { id: session.user.id, email: 'ada@example.com', name: 'ada', role: 'operator' });
    assert.equal(session.key, null);
    assert.deepEqual(session.scopes, ['printers:*', 'jobs:*', 'materials:*', 'analytics:read', 'metrics:read']);
    assert.equal(session.created_at, now);
    assert.equal(session.expires_at, new Date(t.clock.now() + 168 * 3_600_000).toISOString());
    assert.equal(session.idle_expires_at, new Date(t.clock.now() + 720 * 60_000).toISOString());

    const token = cookie.slice('printfarm_session='.length);
    const rows = await t.deps.db.selectFrom('sessions').selectAll().where('id', '=', session.id).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.token_hash, createHash('sha256').update(token).digest('hex'));
    assert.ok(!JSON.stringify(rows).includes(token), 'the token itself is not stored');

    const current = await t.request('/v1/sessions/current', { headers: { Cookie: cookie } });
    assert.equal(current.status, 200);
    assert.deepEqual(((await current.json()) as Obj).session, session);
  });

  it("the cookie authenticates API requests; the hourly window is the user's, or the key's for a key session", async () => {
    const { cookie } = await signIn(t, { email: 'ada@example.com', password: PASSWORD });
    const printers = await t.request('/v1/printers', { headers: { Cookie: cookie } });
    assert.equal(printers.status, 200);
    const first = Number(printers.headers.get('x-ratelimit-remaining'));
    assert.ok(first > 99_990, `remaining ${first}`);
    const again = await t.request('/v1/jobs', { headers: { Cookie: cookie } });
    assert.equal(Number(again.headers.get('x-ratelimit-remaining')), first - 1);
    const other = await signIn(t, { email: 'ada@example.com', password: PASSWORD });
    const same = await t.request('/v1/jobs', { headers: { Cookie: other.cookie } });
    assert.equal(Number(same.headers.get('x-ratelimit-remaining')), first - 2, 'signing in again is no fresh budget');
    const key = await mintTestKey(t);
    assert.equal((await t.request('/v1/jobs', { headers: bearer(key) })).headers.get('x-ratelimit-remaining'), '99999');
    const keySession = await signIn(t, { api_key: key });
    const viaCookie = await t.request('/v1/jobs', { headers: { Cookie: keySession.cookie } });
    assert.equal(viaCookie.headers.get('x-ratelimit-remaining'), '99998', 'a key session counts with its key');
    const test = (await (await t.request('/v1/auth/test', { headers: { Cookie: cookie } })).json()) as Obj;
    assert.equal(test.key_id, null, 'a password session has no key');
    assert.deepEqual(test.scopes, ROLE_SCOPES.operator);
  });

  it('scopes follow the role: a viewer reads but gets 403 on a write; an operator has no admin or webhooks', async () => {
    const viewer = await signIn(t, { email: 'vic@example.com', password: PASSWORD });
    assert.deepEqual(viewer.session.scopes, ['printers:read', 'jobs:read', 'materials:read', 'analytics:read', 'metrics:read']);
    assert.equal((await t.request('/v1/printers', { headers: { Cookie: viewer.cookie } })).status, 200);
    const write = await errorOf(
      await t.request('/v1/printers', {
        method: 'POST',
        headers: sameOrigin(viewer.cookie, true),
        body: JSON.stringify({ name: 'mk4', connection_url: 'sim://viewer-test' }),
      }),
    );
    assert.deepEqual([write.status, write.code, write.message], [403, 'insufficient_permissions', 'missing scope: printers:write']);
    assert.match(write.details, /^this session has: printers:read/);

    const operator = await signIn(t, { email: 'ada@example.com', password: PASSWORD });
    assert.equal((await t.request('/v1/users', { headers: { Cookie: operator.cookie } })).status, 403);
    assert.equal((await t.request('/v1/webhooks', { headers: { Cookie: operator.cookie } })).status, 403);

    const adminUser = await signIn(t, { email: 'alan@example.com', password: PASSWORD });
    assert.deepEqual(adminUser.session.scopes, ['admin:*']);
    assert.equal((await t.request('/v1/users', { headers: { Cookie: adminUser.cookie } })).status, 200);
  });

  it('an admin session creates keys and invites, with Idempotency-Key replays sealed to the session', async () => {
    const { cookie } = await signIn(t, { email: 'alan@example.com', password: PASSWORD });
    const created = await t.request('/v1/api-keys', {
      method: 'POST',
      headers: sameOrigin(cookie, true),
      body: JSON.stringify({ name: 'from the dashboard', scopes: ['jobs:read'] }),
    });
    assert.equal(created.status, 201);
    const invite = (idem: string, c: string) =>
      t.request('/v1/users/invite', {
        method: 'POST',
        headers: { ...sameOrigin(c, true), 'Idempotency-Key': idem },
        body: JSON.stringify({ email: 'grace@example.com', role: 'viewer' }),
      });
    const first = await invite('inv-1', cookie);
    assert.equal(first.status, 201);
    const firstBody = (await first.json()) as Obj;
    const replay = await invite('inv-1', cookie);
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await replay.json(), firstBody);
    const row = await t.deps.db.selectFrom('idempotency_keys').select('response').where('idem_key', '=', 'inv-1').executeTakeFirstOrThrow();
    assert.match(row.response ?? '', /^sealed:/, 'the stored invite token is sealed');
    // Another session of the same user has its own idempotency keys: the same key creates anew (here: 409, the email exists).
    const other = await signIn(t, { email: 'alan@example.com', password: PASSWORD });
    assert.equal((await invite('inv-1', other.cookie)).status, 409);
  });

  it('GET /v1/api-keys/current: 404 for a password session, the key for a key session', async () => {
    const { cookie } = await signIn(t, { email: 'ada@example.com', password: PASSWORD });
    const none = await errorOf(await t.request('/v1/api-keys/current', { headers: { Cookie: cookie } }));
    assert.deepEqual([none.status, none.code], [404, 'resource_not_found']);
    assert.match(none.message, /session signed in with a password, not with an API key/);
    const keyed = await signIn(t, { api_key: admin });
    const record = (await (await t.request('/v1/api-keys/current', { headers: { Cookie: keyed.cookie } })).json()) as Obj;
    assert.equal(record.id, keyed.session.key.id);
  });

  it('/v1/sessions/current: 404 with a key in the header, 401 invalid_session without credentials (not counted)', async () => {
    const keyed = await errorOf(await t.request('/v1/sessions/current', { headers: bearer(admin) }));
    assert.deepEqual([keyed.status, keyed.code], [404, 'resource_not_found']);
    assert.match(keyed.message, /^no session: this request was not made with a session/);
    const deleted = await t.request('/v1/sessions/current', { method: 'DELETE', headers: bearer(admin) });
    assert.equal(deleted.status, 404);

    t.clock.advance(FAILED_AUTH_WINDOW_MS);
    for (let i = 0; i <= FAILED_AUTH_LIMIT; i++) {
      const anonymous = await errorOf(await t.request('/v1/sessions/current'));
      assert.deepEqual([anonymous.status, anonymous.code], [401, 'invalid_session']);
      assert.match(anonymous.message, /^not signed in/);
    }
    // A signed-out dashboard asking whether it is signed in never locks its address out of signing in.
    await signIn(t, { email: 'ada@example.com', password: PASSWORD });
  });

  it('refuses wrong credentials with one wording, and they count toward the address lockout', async () => {
    t.clock.advance(FAILED_AUTH_WINDOW_MS);
    await activeUser(t, admin, 'pending-check@example.com', 'viewer');
    const invitedOnly = await t.request('/v1/users/invite', { method: 'POST', headers: bearer(admin, true), body: JSON.stringify({ email: 'invited@example.com', role: 'viewer' }) });
    assert.equal(invitedOnly.status, 201);
    const attempts = [
      { email: 'ada@example.com', password: 'wrong password here' },
      { email: 'nobody@example.com', password: PASSWORD },
      { email: 'invited@example.com', password: PASSWORD },
      { api_key: 'svc_live_' + 'A'.repeat(40) },
      { api_key: 'not a key' },
    ];
    const messages = new Set<string>();
    for (const body of attempts) {
      const res = await signInRequest(t, body);
      const err = await errorOf(res);
      assert.deepEqual([err.status, err.code], [401, 'invalid_credentials'], JSON.stringify(body));
      assert.equal(res.headers.getSetCookie().length, 0, 'no cookie');
      messages.add(err.message);
    }
    assert.deepEqual([...messages], ['sign-in failed: the email address and password, or the API key, are not valid']);
    for (let i = attempts.length; i < FAILED_AUTH_LIMIT; i++) {
      assert.equal((await signInRequest(t, { email: 'ada@example.com', password: `guess number ${i}` })).status, 401);
    }
    const locked = await errorOf(await signInRequest(t, { email: 'ada@example.com', password: PASSWORD }));
    assert.deepEqual([locked.status, locked.code], [429, 'rate_limit_exceeded'], 'even the right password waits');
    assert.equal((await t.request('/v1/auth/test', { headers: bearer(admin) })).status, 200, 'a valid key still works');
    t.clock.advance(FAILED_AUTH_WINDOW_MS);
    await signIn(t, { email: 'ada@example.com', password: PASSWORD });
  });

  it('a valid session cookie keeps working from a locked-out address', async () => {
    t.clock.advance(FAILED_AUTH_WINDOW_MS);
    const { cookie } = await signIn(t, { email: 'ada@example.com', password: PASSWORD });
    for (let i = 0; i < FAILED_AUTH_LIMIT; i++) await signInRequest(t, { email: 'ada@example.com', password: 'not the password' });
    assert.equal((await t.request('/v1/printers')).status, 429);
    assert.equal((await t.request('/v1/printers', { headers: { Cookie: cookie } })).status, 200);
    // ...but a valid credential does not let anyone go on guessing a password from there, nor an invitation token.
    const withCookie = await errorOf(await signInRequest(t, { email: 'ada@example.com', password: PASSWORD }, { Cookie: cookie }));
    assert.deepEqual([withCookie.status, withCookie.code], [429, 'rate_limit_exceeded']);
    const withKey = await errorOf(await signInRequest(t, { email: 'ada@example.com', password: PASSWORD }, bearer(admin)));
    assert.deepEqual([withKey.status, withKey.code], [429, 'rate_limit_exceeded']);
    const invite = await t.request('/v1/users/accept-invite', { method: 'POST', headers: bearer(admin, true), body: JSON.stringify({ token: 'x'.repeat(40), password: PASSWORD }) });
    assert.equal(invite.status, 429);
    t.clock.advance(FAILED_AUTH_WINDOW_MS);
  });

  it('says which form it wants: 400 for none, half of one, both, or an unknown field', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /^send either email and password, or api_key$/],
      [{ email: 'ada@example.com' }, /^password: required with email$/],
      [{ password: PASSWORD }, /^email: required with password$/],
      [{ email: 'ada@example.com', password: PASSWORD, api_key: admin }, /^send either email and password, or api_key, not both/],
      [{ email: 'ada@example.com', password: PASSWORD, remember: true }, /remember/],
      [{ email: 'not an address', password: PASSWORD }, /^email: /],
    ];
    for (const [body, message] of cases) {
      const err = await errorOf(await signInRequest(t, body));
      assert.deepEqual([err.status, err.code], [400, 'invalid_request'], JSON.stringify(body));
      assert.match(err.message, message);
    }
  });

  it('signs out: 204, the cookie cleared, the session refused from then on with "sign in again"', async () => {
    const { cookie, session } = await signIn(t, { email: 'ada@example.com', password: PASSWORD });
    const out = await t.request('/v1/sessions/current', { method: 'DELETE', headers: sameOrigin(cookie) });
    assert.equal(out.status, 204);
    assert.match(out.headers.getSetCookie()[0] ?? '', /^printfarm_session=; HttpOnly; SameSite=Strict; Path=\/; Max-Age=0/);
    assert.equal(await t.deps.db.selectFrom('sessions').select('id').where('id', '=', session.id).executeTakeFirst(), undefined);
    for (const path of ['/v1/sessions/current', '/v1/printers']) {
      const res = await t.request(path, { headers: { Cookie: cookie } });
      const err = await errorOf(res);
      assert.deepEqual([err.status, err.code], [401, 'invalid_session'], path);
      assert.match(err.message, /sign in again$/);
      assert.match(res.headers.getSetCookie()[0] ?? '', /Max-Age=0/, 'the stale cookie is cleared');
    }
    // A stale cookie does not stand in the way of public routes, signing in again above all.
    assert.equal((await t.request('/v1/openapi.json', { headers: { Cookie: cookie } })).status, 200);
    const again = await signInRequest(t, { email: 'ada@example.com', password: PASSWORD }, { Cookie: cookie });
    assert.equal(again.status, 201);
  });

  it('signing in again ends the session the browser had', async () => {
    const first = await signIn(t, { email: 'ada@example.com', password: PASSWORD });
    const second = await signInRequest(t, { email: 'vic@example.com', password: PASSWORD }, { Cookie: first.cookie });
    assert.equal(second.status, 201);
    assert.equal((await t.request('/v1/printers', { headers: { Cookie: first.cookie } })).status, 401);
    assert.equal((await t.request('/v1/printers', { headers: { Cookie: cookieOf(second) } })).status, 200);
  });

  it('an API-key session acts with the key and dies when the key is revoked', async () => {
    const narrow = await mintTestKey(t, ['jobs:read'], 'wall display');
    const { cookie, session } = await signIn(t, { api_key: narrow });
    assert.equal(session.user, null);
    assert.deepEqual(session.key, { id: session.key.id, name: 'wall display' });
    assert.match(session.key.id, /^key_/);
    assert.deepEqual(session.scopes, ['jobs:read']);
    assert.equal((await t.request('/v1/jobs', { headers: { Cookie: cookie } })).status, 200);
    assert.equal((await t.request('/v1/printers', { headers: { Cookie: cookie } })).status, 403);
    assert.equal((await t.request(`/v1/api-keys/${session.key.id}`, { method: 'DELETE', headers: bearer(admin) })).status, 200);
    const err = await errorOf(await t.request('/v1/jobs', { headers: { Cookie: cookie } }));
    assert.deepEqual([err.status, err.code], [401, 'invalid_session']);
    assert.match(err.message, /^your session has ended: the API key this session was signed in with was revoked at .+; sign in again$/);
    const retry = await errorOf(await signInRequest(t, { api_key: narrow }));
    assert.equal(retry.code, 'invalid_credentials', 'a revoked key cannot sign in');
  });

  it('a key session dies when a roll of its key runs out', async () => {
    const rolled = await mintTestKey(t, ['jobs:read'], 'to roll');
    const { cookie, session } = await signIn(t, { api_key: rolled });
    assert.equal((await t.request(`/v1/api-keys/${session.key.id}/roll`, { method: 'POST', headers: bearer(admin) })).status, 201);
    // Used every 8 hours, so the idle timeout (12 h) never ends it: only the key's expiry does.
    for (let hours = 0; hours < 24; hours += 8) {
      assert.equal((await t.request('/v1/jobs', { headers: { Cookie: cookie } })).status, 200, `inside the 24 h overlap (${hours} h)`);
      t.clock.advance(8 * 3_600_000);
    }
    const err = await errorOf(await t.request('/v1/jobs', { headers: { Cookie: cookie } }));
    assert.match(err.message, /expired at/);
  });

  it('a key in the Authorization header wins over the cookie', async () => {
    const viewer = await signIn(t, { email: 'vic@example.com', password: PASSWORD });
    const res = await t.request('/v1/users', { headers: { ...bearer(admin), Cookie: viewer.cookie } });
    assert.equal(res.status, 200);
  });
});
