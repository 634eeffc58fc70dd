// Rate limits: per key per hour by plan, the three headers on every /v1 response (errors too), 429 with Retry-After,
// and the per-address limit on failed authentication.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { useAdminApp } from './admin-app.js';

const HOUR = 3_600_000;

function limits(res: Response): { limit: number; remaining: number; reset: number } {
  const get = (h: string): number => {
    const v = res.headers.get(h);
    assert.ok(v !== null, `${h} missing on ${res.status} ${res.url}`);
    return Number(v);
  };
  return { limit: get('x-ratelimit-limit'), remaining: get('x-ratelimit-remaining'), reset: get('x-ratelimit-reset') };
}

const patchOrgAs = (t: TestApp, key: string, body: object): Promise<Response> =>
  t.request('/v1/organization', { method: 'PATCH', headers: bearer(key, true), body: JSON.stringify(body) });
const startNextHour = (t: TestApp): void => t.clock.set((Math.floor(t.clock.now() / HOUR) + 1) * HOUR);

describe('rate limit per key', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await startTestApp();
    admin = await mintTestKey(t);
  });
  after(async () => {
    await t.close();
  });

  const patchOrg = (body: object): Promise<Response> => patchOrgAs(t, admin, body);
  const nextHour = (): void => startNextHour(t);

  it('a new install is enterprise with 100000 per hour; headers on success, 400, 403 and unknown-route 404', async () => {
    nextHour();
    const ok = await t.request('/v1/auth/test', { headers: bearer(admin) });
    assert.deepEqual(limits(ok), { limit: 100000, remaining: 99999, reset: (t.clock.now() + HOUR) / 1000 });
    const notFound = await t.request('/v1/no-such-thing', { headers: bearer(admin) });
    assert.equal(notFound.status, 404);
    assert.equal(limits(notFound).remaining, 99998);
    const bad = await patchOrg({ plan: 'platinum' });
    assert.equal(bad.status, 400);
    assert.equal(limits(bad).remaining, 99997);
    const narrow = await mintTestKey(t, ['jobs:read']);
    const forbidden = await t.request('/v1/users', { headers: bearer(narrow) });
    assert.equal(forbidden.status, 403);
    assert.equal(limits(forbidden).limit, 100000);
    assert.equal(limits(forbidden).remaining, 99999, 'each key has its own window');
  });

  it('free plan: 100 requests, the 100th shows remaining 0, the 101st is 429 with Retry-After', async () => {
    const patched = await patchOrg({ plan: 'free' });
    assert.equal(patched.status, 200);
    assert.equal(((await patched.json()) as { rate_limit_per_hour: number }).rate_limit_per_hour, 100);
    nextHour();
    const key = await mintTestKey(t, ['jobs:read'], 'free');
    let last: Response | undefined;
    for (let i = 1; i <= 100; i++) {
      last = await t.request('/v1/auth/test', { headers: bearer(key) });
      assert.equal(last.status, 200, `request ${i}`);
      assert.equal(limits(last).remaining, 100 - i);
    }
    assert.equal(limits(last!).limit, 100);
    t.clock.advance(15 * 60_000);
    const over = await t.request('/v1/auth/test', { headers: bearer(key) });
    assert.equal(over.status, 429);
    assert.equal(over.headers.get('retry-after'), String(45 * 60));
    assert.deepEqual(limits(over), { limit: 100, remaining: 0, reset: (Math.floor(t.clock.now() / HOUR) + 1) * 3600 });
    const body = (await over.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'rate_limit_exceeded');
    assert.match(body.error.message, /retry after 2700 seconds/);
    // Another key is unaffected; the next hour starts afresh.
    assert.equal((await t.request('/v1/auth/test', { headers: bearer(admin) })).status, 200);
    nextHour();
    const fresh = await t.request('/v1/auth/test', { headers: bearer(key) });
    assert.equal(fresh.status, 200);
    assert.equal(limits(fresh).remaining, 99);
  });

  it('a plan change applies at once: pro 1000, enterprise its own number', async () => {
    assert.equal((await patchOrg({ plan: 'pro' })).status, 200);
    assert.equal(limits(await t.request('/v1/auth/test', { headers: bearer(admin) })).limit, 1000);
    const ent = await patchOrg({ plan: 'enterprise', rate_limit_per_hour: 3 });
    assert.equal(ent.status, 200);
    nextHour();
    const key = await mintTestKey(t, ['jobs:read'], 'ent');
    for (let i = 0; i < 3; i++) assert.equal((await t.request('/v1/auth/test', { headers: bearer(key) })).status, 200);
    const over = await t.request('/v1/auth/test', { headers: bearer(key) });
    assert.equal(over.status, 429);
    assert.equal(limits(over).limit, 3);
    // Raising the limit lets the same key through in the same hour.
    nextHour();
    assert.equal((await patchOrg({ rate_limit_per_hour: 50 })).status, 200);
    assert.equal(limits(await t.request('/v1/auth/test', { headers: bearer(key) })).limit, 50);
  });
});

describe('failed authentication per client address', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await startTestApp();
    admin = await mintTestKey(t);
    t.clock.set(Math.ceil(t.clock.now() / (15 * 60_000)) * 15 * 60_000);
  });
  after(async () => {
    await t.close();
  });

  it('401s and keyless responses carry the address budget; after 20 failures keyless and wrong-key requests are 429 until the window ends, valid keys still work', async () => {
    const anonPublic = await t.request('/v1/openapi.json');
    assert.equal(anonPublic.status, 200);
    assert.equal(limits(anonPublic).limit, 20);
    assert.equal(limits(anonPublic).remaining, 20, 'a keyless request that is not an auth failure costs nothing');

    for (let i = 1; i <= 20; i++) {
      const res = await t.request('/v1/auth/test', { headers: bearer(i % 2 ? 'garbage' : 'svc_live_' + 'Z'.repeat(40)) });
      assert.equal(res.status, 401);
      assert.equal(limits(res).remaining, 20 - i);
    }
    const blocked = await t.request('/v1/auth/test', { headers: bearer('svc_live_' + 'Y'.repeat(40)) });
    assert.equal(blocked.status, 429);
    assert.equal(blocked.headers.get('retry-after'), String(15 * 60));
    assert.match(((await blocked.json()) as { error: { message: string } }).error.message, /failed authentications.*retry after 900 seconds/);
    // Keyless requests from the blocked address are refused too...
    assert.equal((await t.request('/v1/auth/test')).status, 429);
    // ...but a valid key keeps working: a stale script must not lock the owner out of the farm.
    const owner = await t.request('/v1/auth/test', { headers: bearer(admin) });
    assert.equal(owner.status, 200);
    // The health check and the dashboard are not behind the API limits.
    const health = await t.request('/healthz');
    assert.equal(health.status, 200);
    assert.equal(health.headers.get('x-ratelimit-limit'), null);

    t.clock.advance(15 * 60_000);
    const again = await t.request('/v1/auth/test', { headers: bearer(admin) });
    assert.equal(again.status, 200);
    assert.equal(limits(again).limit, 100000);
  });
});

describe('a limit set too low never locks out the admin', () => {
  const app = useAdminApp();
  let t: TestApp;
  let admin: string;
  before(() => {
    ({ t, admin } = app);
  });
  const patchOrg = (body: object): Promise<Response> => patchOrgAs(t, admin, body);
  const nextHour = (): void => startNextHour(t);

  it('rate_limit_per_hour 1: other keys stop after 1, admin keys keep 1000 and can undo it even past those', async () => {
    nextHour();
    const script = await mintTestKey(t, ['jobs:read'], 'script');
    const lowered = await patchOrg({ rate_limit_per_hour: 1 });
    assert.equal(lowered.status, 200);
    const body = (await lowered.json()) as { rate_limit_per_hour: number; warnings?: string[] };
    assert.equal(body.rate_limit_per_hour, 1);
    assert.equal(body.warnings?.length, 1, 'the response warns what the change does');
    assert.match(body.warnings![0]!, /lowered from 100000 to 1 requests per API key per hour.*429 until .*admin:\* keys keep 1000/);

    assert.equal((await t.request('/v1/auth/test', { headers: bearer(script) })).status, 200);
    assert.equal((await t.request('/v1/auth/test', { headers: bearer(script) })).status, 429);
    for (let i = 0; i < 5; i++) {
      const res = await t.request('/v1/api-keys', { headers: bearer(admin) });
      assert.equal(res.status, 200, `admin request ${i}`);
      assert.equal(limits(res).limit, 1000);
    }
    // Even an admin key that used up its floor can still read and repair the organization.
    const used = limits(await t.request('/v1/auth/test', { headers: bearer(admin) }));
    for (let i = used.limit - used.remaining; i < 1000; i++) await t.request('/v1/auth/test', { headers: bearer(admin) });
    assert.equal((await t.request('/v1/auth/test', { headers: bearer(admin) })).status, 429);
    assert.equal((await t.request('/v1/organization', { headers: bearer(admin) })).status, 200);
    const repaired = await patchOrg({ rate_limit_per_hour: 5000 });
    assert.equal(repaired.status, 200);
    assert.equal(((await repaired.json()) as { warnings?: string[] }).warnings, undefined, 'raising the limit warns nothing');
    assert.equal((await t.request('/v1/auth/test', { headers: bearer(script) })).status, 200);
  });

  it('plan free: the admin key keeps working past 100 requests', async () => {
    nextHour();
    const res = await patchOrg({ plan: 'free' });
    assert.equal(res.status, 200);
    assert.match(((await res.json()) as { warnings: string[] }).warnings[0]!, /lowered from 5000 to 100/);
    for (let i = 0; i < 120; i++) assert.equal((await t.request('/v1/auth/test', { headers: bearer(admin) })).status, 200);
    assert.equal((await patchOrg({ plan: 'enterprise' })).status, 200);
  });
});
