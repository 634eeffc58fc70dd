// POST /v1/users/accept-invite on the real app: single use, 7-day expiry, password policy, scrypt hash, failed-attempt limit.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FAILED_AUTH_LIMIT } from '../../src/http/middleware/failed-auth-guard.middleware.js';
import { findPasswordHash } from '../../src/auth/invitations.repository.js';
import { INVITE_VALID_MS } from '../../src/auth/invitations.service.js';
import { verifyPassword } from '../../src/auth/password-hash.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';

const GOOD_PASSWORD = 'correct horse battery';

interface Invited {
  id: string;
  invite_token: string;
}

async function invite(t: TestApp, admin: string, email: string): Promise<Invited> {
  const res = await t.request('/v1/users/invite', {
    method: 'POST',
    headers: bearer(admin, true),
    body: JSON.stringify({ email, role: 'operator' }),
  });
  assert.equal(res.status, 201);
  return (await res.json()) as Invited;
}

/** No Authorization header: the token is the credential. */
const accept = (t: TestApp, body: unknown): Promise<Response> =>
  t.request('/v1/users/accept-invite', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

async function errorOf(res: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await res.json()) as { error: { code: string; message: string } };
  return { status: res.status, code: body.error.code, message: body.error.message };
}

describe('POST /v1/users/accept-invite', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await startTestApp();
    admin = await mintTestKey(t);
  });
  after(async () => {
    await t.close();
  });

  it('activates the invited user, stores a scrypt hash with its parameters, and works only once', async () => {
    const invited = await invite(t, admin, 'ada@example.com');
    const res = await accept(t, { token: invited.invite_token, password: GOOD_PASSWORD });
    assert.equal(res.status, 200);
    const user = (await res.json()) as { id: string; status: string; email: string };
    assert.deepEqual([user.id, user.status, user.email], [invited.id, 'active', 'ada@example.com']);
    assert.ok(!('password' in user) && !('password_hash' in user), 'no secret comes back');

    const read = await t.request(`/v1/users/${invited.id}`, { headers: bearer(admin) });
    assert.equal(((await read.json()) as { status: string }).status, 'active');

    const stored = await findPasswordHash(t.deps.db, invited.id);
    assert.match(stored ?? '', /^scrypt\$N=32768,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/);
    assert.equal(await verifyPassword(GOOD_PASSWORD, stored!), true);
    assert.equal(await verifyPassword('correct horse battery!', stored!), false);

    const again = await errorOf(await accept(t, { token: invited.invite_token, password: 'another good password' }));
    assert.deepEqual([again.status, again.code], [400, 'invalid_request']);
    assert.match(again.message, /^token: this invitation is unknown or was already used/);
    assert.equal(await verifyPassword(GOOD_PASSWORD, (await findPasswordHash(t.deps.db, invited.id))!), true, 'unchanged');
  });

  it('expires 7 days after the invite', async () => {
    const early = await invite(t, admin, 'early@example.com');
    const late = await invite(t, admin, 'late@example.com');
    t.clock.advance(INVITE_VALID_MS - 1);
    assert.equal((await accept(t, { token: early.invite_token, password: GOOD_PASSWORD })).status, 200);
    t.clock.advance(1);
    const expired = await errorOf(await accept(t, { token: late.invite_token, password: GOOD_PASSWORD }));
    assert.equal(expired.status, 400);
    assert.match(expired.message, /^token: this invitation expired at \d{4}-\d\d-\d\dT[\d:.]+Z; ask an admin to invite you again$/);
  });

  it('refuses a weak password with a message naming the rule, and the token stays usable', async () => {
    const invited = await invite(t, admin, 'grace.hopper@example.com');
    const cases: Array<[unknown, RegExp]> = [
      ['short', /^password: must be at least 12 characters long$/],
      ['x'.repeat(257), /^password: must be at most 256 characters long$/],
      [' '.repeat(12), /^password: must not be only spaces$/],
      ['abababababab', /^password: must use at least 4 different characters$/],
      ['Grace.Hopper@example.com', /^password: must not be your email address$/],
      [123456789012, /^password: must be a string, not a number$/],
    ];
    for (const [password, message] of cases) {
      const err = await errorOf(await accept(t, { token: invited.invite_token, password }));
      assert.equal(err.status, 400, String(password));
      assert.match(err.message, message);
    }
    assert.equal((await accept(t, { token: invited.invite_token, password: GOOD_PASSWORD })).status, 200);
  });

  it('names a missing or unknown field', async () => {
    assert.match((await errorOf(await accept(t, { token: 'inv_x' }))).message, /^password: is required$/);
    assert.match((await errorOf(await accept(t, { password: GOOD_PASSWORD }))).message, /^token: is required$/);
    const extra = await errorOf(await accept(t, { token: 'inv_x', password: GOOD_PASSWORD, role: 'owner' }));
    assert.match(extra.message, /^unknown field "role"$/);
  });
});

describe('accept-invite failed-attempt limit', () => {
  it('counts bad tokens like failed authentications: after the limit even a good token gets 429', async (t) => {
    const app = await startTestApp();
    t.after(() => app.close());
    const admin = await mintTestKey(app);
    const invited = await invite(app, admin, 'target@example.com');
    for (let i = 0; i < FAILED_AUTH_LIMIT; i++) {
      assert.equal((await accept(app, { token: `inv_guess${i}`, password: GOOD_PASSWORD })).status, 400);
    }
    const blocked = await accept(app, { token: invited.invite_token, password: GOOD_PASSWORD });
    assert.equal(blocked.status, 429);
    assert.ok(blocked.headers.get('retry-after'));
  });
});
