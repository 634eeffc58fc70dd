// Organization settings (GET any key, PATCH admin:*, strict validation) and users (list, get, invite, duplicates).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { dbRow, dbRows } from '../helpers/test-database.js';

interface ErrorBody {
  error: { code: string; message: string };
}
interface Org {
  name: string;
  plan: string;
  rate_limit_per_hour: number;
  currency: string;
  hourly_rate: number;
  energy_cost_per_kwh: number;
  timezone: string;
  auto_start: boolean;
  created_at: string;
  updated_at: string;
}
interface User {
  id: string;
  email: string;
  name: string;
  role: string;
  status: string;
  invited_by: string | null;
  invite_token?: string;
}

describe('organization', () => {
  let t: TestApp;
  let admin: string;
  let reader: string;
  before(async () => {
    t = await startTestApp();
    admin = await mintTestKey(t);
    reader = await mintTestKey(t, ['printers:read']);
  });
  after(async () => {
    await t.close();
  });
  const patch = (body: unknown, key = admin): Promise<Response> =>
    t.request('/v1/organization', { method: 'PATCH', headers: bearer(key, true), body: typeof body === 'string' ? body : JSON.stringify(body) });

  it('any valid key reads it, with every documented field', async () => {
    const res = await t.request('/v1/organization', { headers: bearer(reader) });
    assert.equal(res.status, 200);
    const org = (await res.json()) as Org;
    assert.deepEqual(
      { ...org, created_at: undefined, updated_at: undefined, id: undefined },
      {
        id: undefined,
        name: 'My print farm',
        plan: 'enterprise',
        rate_limit_per_hour: 100000,
        currency: 'USD',
        hourly_rate: 0,
        energy_cost_per_kwh: 0,
        timezone: 'UTC',
        auto_start: true,
        cool_on_pause: false,
        webhook_allowed_hosts: [],
        file_url_hosts: [],
        power_budget_watts: null,
        session_lifetime_hours: 168,
        session_idle_minutes: 720,
        storage_reserve_mb: null,
        backup_time: '03:30',
        backup_keep: 7,
        backup_with_files: false,
        file_retention_days: 30,
        file_store_max_gb: null,
        created_at: undefined,
        updated_at: undefined,
      },
    );
  });

  it('PATCH needs admin:*', async () => {
    const res = await patch({ name: 'x' }, reader);
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as ErrorBody).error.message, 'missing scope: admin:*');
  });

  it('PATCH updates the given fields and returns the whole organization', async () => {
    t.clock.advance(5000);
    const res = await patch({ name: ' Farm A ', currency: 'EUR', hourly_rate: 1.5, energy_cost_per_kwh: 0.31, timezone: 'Europe/Berlin', auto_start: false });
    assert.equal(res.status, 200);
    const org = (await res.json()) as Org;
    assert.equal(org.name, 'Farm A');
    assert.equal(org.currency, 'EUR');
    assert.equal(org.hourly_rate, 1.5);
    assert.equal(org.energy_cost_per_kwh, 0.31);
    assert.equal(org.timezone, 'Europe/Berlin');
    assert.equal(org.auto_start, false);
    assert.equal(org.updated_at, new Date(t.clock.now()).toISOString());
    assert.notEqual(org.created_at, org.updated_at);
    const test = (await (await t.request('/v1/auth/test', { headers: bearer(reader) })).json()) as { organization: string };
    assert.equal(test.organization, 'Farm A');
  });

  it('refuses bad input naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      ['{"name":', /malformed JSON/],
      [{}, /body: must have at least 1 field/],
      [{ colour: 'red' }, /unknown field "colour"/],
      [{ created_at: '2020-01-01T00:00:00Z' }, /field "created_at" is read-only/],
      [{ id: 'org_x' }, /field "id" is read-only/],
      [{ plan: 'gold' }, /plan: must be one of "free", "pro", "enterprise"/],
      [{ currency: 'usd' }, /currency: must match/],
      [{ currency: 'XYZ' }, /currency: "XYZ" is not an ISO 4217 currency code/],
      [{ timezone: 'Mars/Olympus' }, /timezone: "Mars\/Olympus" is not an IANA time zone/],
      [{ rate_limit_per_hour: 0 }, /rate_limit_per_hour: must be >= 1/],
      [{ rate_limit_per_hour: 1.5 }, /rate_limit_per_hour: must be an integer/],
      [{ plan: 'free', rate_limit_per_hour: 500 }, /rate_limit_per_hour: can only be set on the enterprise plan/],
      [{ hourly_rate: -1 }, /hourly_rate: must be >= 0/],
      [{ auto_start: 'yes' }, /auto_start: must be a boolean/],
      [{ name: 'x'.repeat(101) }, /name: must be at most 100/],
      [{ name: '  ' }, /name: must not be blank/],
    ];
    for (const [body, message] of cases) {
      const res = await patch(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const err = (await res.json()) as ErrorBody;
      assert.equal(err.error.code, 'invalid_request');
      assert.match(err.error.message, message, JSON.stringify(body));
    }
    // Nothing was changed by the refused requests.
    const org = (await (await t.request('/v1/organization', { headers: bearer(admin) })).json()) as Org;
    assert.equal(org.plan, 'enterprise');
    assert.equal(org.currency, 'EUR');
  });
});

describe('users', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await startTestApp();
    admin = await mintTestKey(t);
  });
  after(async () => {
    await t.close();
  });
  const invite = (body: unknown, key = admin): Promise<Response> =>
    t.request('/v1/users/invite', { method: 'POST', headers: bearer(key, true), body: JSON.stringify(body) });

  it('the owner exists from the start; list is { data, pagination }', async () => {
    const res = await t.request('/v1/users', { headers: bearer(admin) });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { data: User[]; pagination: { total: number; page: number; per_page: number } };
    assert.equal(body.pagination.total, 1);
    assert.equal(body.data[0]?.role, 'owner');
    assert.equal(body.data[0]?.status, 'active');
  });

  it('invite: 201, invited status, the token once (stored only as a hash), readable by id', async () => {
    const owner = ((await (await t.request('/v1/users', { headers: bearer(admin) })).json()) as { data: User[] }).data[0]!;
    const res = await invite({ email: 'ada@example.com', name: 'Ada', role: 'operator' });
    assert.equal(res.status, 201);
    const user = (await res.json()) as User;
    assert.match(user.id, /^usr_/);
    assert.equal(user.status, 'invited');
    assert.equal(user.role, 'operator');
    assert.equal(user.invited_by, owner.id);
    assert.match(user.invite_token as string, /^inv_[0-9A-Za-z]{40}$/);
    const row = (await dbRow<{ invite_token_hash: string }>(t.handle, 'SELECT * FROM users WHERE id = ?', user.id))!;
    assert.match(row.invite_token_hash, /^[0-9a-f]{64}$/);
    assert.ok(!JSON.stringify(row).includes(user.invite_token as string));

    const one = await t.request(`/v1/users/${user.id}`, { headers: bearer(admin) });
    assert.equal(one.status, 200);
    const fetched = (await one.json()) as User;
    assert.equal(fetched.email, 'ada@example.com');
    assert.equal(fetched.invite_token, undefined);
    assert.equal((await t.request('/v1/users/usr_nobody', { headers: bearer(admin) })).status, 404);
  });

  it('name defaults to the local part; duplicate email (any case) is 409 invalid_request', async () => {
    const res = await invite({ email: 'grace@example.com', role: 'viewer' });
    assert.equal(res.status, 201);
    assert.equal(((await res.json()) as User).name, 'grace');
    const dup = await invite({ email: 'GRACE@example.com', role: 'admin' });
    assert.equal(dup.status, 409);
    const err = (await dup.json()) as ErrorBody;
    assert.equal(err.error.code, 'invalid_request');
    assert.match(err.error.message, /already exists/);
  });

  it('invite honours Idempotency-Key', async () => {
    const send = (): Promise<Response> =>
      t.request('/v1/users/invite', {
        method: 'POST',
        headers: { ...bearer(admin, true), 'Idempotency-Key': 'invite-linus' },
        body: JSON.stringify({ email: 'linus@example.com', role: 'viewer' }),
      });
    const first = (await (await send()).json()) as User;
    const again = await send();
    assert.equal(again.status, 201, 'a replay, not a 409 duplicate');
    assert.equal(((await again.json()) as User).id, first.id);
  });

  it('list filters and sorts; unknown parameters are 400', async () => {
    const viewers = (await (await t.request('/v1/users?role=viewer&sort=email', { headers: bearer(admin) })).json()) as { data: User[] };
    assert.deepEqual(
      viewers.data.map((u) => u.email),
      ['grace@example.com', 'linus@example.com'],
    );
    const sorted = (await (await t.request('/v1/users?sort=email&fields=email', { headers: bearer(admin) })).json()) as { data: User[] };
    assert.deepEqual(sorted.data, [{ email: 'ada@example.com' }, { email: 'grace@example.com' }, { email: 'linus@example.com' }, { email: 'owner@printfarm.local' }]);
    assert.equal((await t.request('/v1/users?role=king', { headers: bearer(admin) })).status, 400);
    assert.equal((await t.request('/v1/users?password=x', { headers: bearer(admin) })).status, 400);
  });

  it('refuses bad invites naming the field, and non-admin keys', async () => {
    const cases: [unknown, RegExp][] = [
      [{ email: 'not-an-email', role: 'viewer' }, /email: must be a valid email/],
      [{ email: 'a@example.com', role: 'emperor' }, /role: must be one of/],
      [{ email: 'a@example.com' }, /role: is required/],
      [{ email: 'a@example.com', role: 'viewer', name: 'x'.repeat(101) }, /name: must be at most 100/],
      [{ email: 'a@example.com', role: 'viewer', admin: true }, /unknown field "admin"/],
      [{ email: 7, role: 'viewer' }, /email: must be a string/],
    ];
    for (const [body, message] of cases) {
      const res = await invite(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(((await res.json()) as ErrorBody).error.message, message);
    }
    const jobs = await mintTestKey(t, ['jobs:*']);
    assert.equal((await invite({ email: 'b@example.com', role: 'viewer' }, jobs)).status, 403);
    assert.equal((await t.request('/v1/users', { headers: bearer(jobs) })).status, 403);
  });
});
