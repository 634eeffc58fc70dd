// CSRF defence of cookie sessions over real HTTP: unsafe methods need a same-origin proof, keys are unaffected, no login from other sites, Secure behind https.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { activeUser, cookieOf, errorOf, PASSWORD, signIn, signInRequest } from './sessions-harness.js';

describe('sessions: CSRF', () => {
  let t: TestApp;
  let admin: string;
  let cookie: string;
  let host: string;
  before(async () => {
    t = await startTestApp();
    admin = await mintTestKey(t);
    await activeUser(t, admin, 'alan@example.com', 'admin');
    cookie = (await signIn(t, { email: 'alan@example.com', password: PASSWORD })).cookie;
    host = new URL(t.baseUrl).host;
  });
  after(async () => {
    await t.close();
  });

  const patch = (headers: Record<string, string>): Promise<Response> =>
    t.request('/v1/organization', {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ name: 'Basement farm' }),
    });

  it('refuses a cookie request that changes something without proof it comes from this origin', async () => {
    const refused: Record<string, string>[] = [
      {},
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site' },
      { 'Sec-Fetch-Site': 'none' },
      { Origin: 'http://evil.example' },
      { Origin: `http://${host}.evil.example` },
      { Origin: 'null' },
      { Origin: `ftp://${host}` },
      { Origin: `http://${host.split(':')[0]}:1` },
    ];
    for (const headers of refused) {
      const err = await errorOf(await patch({ Cookie: cookie, ...headers }));
      assert.deepEqual([err.status, err.code], [403, 'csrf_rejected'], JSON.stringify(headers));
      assert.match(err.message, /^refused: this PATCH request /);
      assert.match(err.details, /API key in the Authorization header/);
    }
    const org = (await (await t.request('/v1/organization', { headers: bearer(admin) })).json()) as { name: string };
    assert.equal(org.name, 'My print farm', 'nothing changed');
  });

  it('accepts Sec-Fetch-Site: same-origin or an Origin whose host is the Host', async () => {
    assert.equal((await patch({ Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' })).status, 200);
    assert.equal((await patch({ Cookie: cookie, Origin: `http://${host}` })).status, 200);
    assert.equal((await patch({ Cookie: cookie, Origin: `http://${host.toUpperCase()}` })).status, 200, 'host names compare case-insensitively');
  });

  it('lets safe methods through from anywhere (they change nothing), and leaves key requests alone', async () => {
    const read = await t.request('/v1/organization', { headers: { Cookie: cookie, 'Sec-Fetch-Site': 'cross-site', Origin: 'http://evil.example' } });
    assert.equal(read.status, 200);
    const keyed = await patch({ ...bearer(admin), Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' });
    assert.equal(keyed.status, 200, 'a key in the header is no ambient credential');
  });

  it('signing out from another site is refused too; the session keeps working', async () => {
    const out = await errorOf(await t.request('/v1/sessions/current', { method: 'DELETE', headers: { Cookie: cookie, Origin: 'http://evil.example' } }));
    assert.deepEqual([out.status, out.code], [403, 'csrf_rejected']);
    assert.equal((await t.request('/v1/sessions/current', { headers: { Cookie: cookie } })).status, 200);
  });

  it('refuses sign-in from another site (login CSRF) but not from clients that send no browser headers', async () => {
    const body = JSON.stringify({ email: 'alan@example.com', password: PASSWORD });
    const post = (headers: Record<string, string>) =>
      t.request('/v1/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
    const crossSite: Record<string, string>[] = [{ Origin: 'http://evil.example' }, { 'Sec-Fetch-Site': 'cross-site' }, { 'Sec-Fetch-Site': 'same-site' }];
    for (const headers of crossSite) {
      const res = await post(headers);
      const err = await errorOf(res);
      assert.deepEqual([err.status, err.code], [403, 'csrf_rejected'], JSON.stringify(headers));
      assert.match(err.message, /^refused: sign-in from another site's page/);
      assert.equal(res.headers.getSetCookie().length, 0);
    }
    assert.equal((await post({})).status, 201, 'curl');
    assert.equal((await post({ Origin: `http://${host}` })).status, 201);
    assert.equal((await post({ 'Sec-Fetch-Site': 'same-origin' })).status, 201);
  });
});

describe('sessions: behind an https reverse proxy', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ trustProxy: true });
    const admin = await mintTestKey(t);
    await activeUser(t, admin, 'ada@example.com', 'operator');
  });
  after(async () => {
    await t.close();
  });

  const proxied = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'farm.example.com', 'X-Forwarded-For': '10.0.0.7' };

  it('marks the cookie Secure and compares the Origin with the forwarded host', async () => {
    const res = await signInRequest(t, { email: 'ada@example.com', password: PASSWORD }, { ...proxied, Origin: 'https://farm.example.com' });
    assert.equal(res.status, 201);
    assert.match(res.headers.getSetCookie()[0] ?? '', /; Max-Age=604800; Secure$/);
    const cookie = cookieOf(res);
    const create = (origin: string) =>
      t.request('/v1/printers', {
        method: 'POST',
        headers: { ...proxied, Cookie: cookie, Origin: origin, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `p ${origin.length}`, connection_url: `sim://csrf-${origin.length}` }),
      });
    assert.equal((await create('https://farm.example.com')).status, 201);
    assert.equal((await create('https://farm.example.com:443')).status, 201, 'the default port is the same origin');
    assert.equal((await create('https://other.example.com')).status, 403);
    const out = await t.request('/v1/sessions/current', { method: 'DELETE', headers: { ...proxied, Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' } });
    assert.equal(out.status, 204);
    assert.match(out.headers.getSetCookie()[0] ?? '', /Max-Age=0.*; Secure$/);
  });
});
