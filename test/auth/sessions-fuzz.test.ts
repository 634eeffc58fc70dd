// Fuzz with session cookies: seeded random and mutated requests over every route, authenticated by cookies good, stale and broken; none may answer 5xx.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FAILED_AUTH_WINDOW_MS } from '../../src/http/middleware/failed-auth-guard.middleware.js';
import type { RouteDef } from '../../src/http/route.js';
import { allRoutes } from '../../src/app/routes-index.js';
import { mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { brokenJson, Dice, mutateBody, routePath, sample, seededRandom } from '../http/fuzz-cases.js';
import { activeUser, PASSWORD, signIn } from './sessions-harness.js';
import { sendRaw } from '../helpers/raw-request.js';

const SEED = 20260101;
const REQUESTS = 3000;

describe('fuzz: session cookies across every route', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await startTestApp();
    admin = await mintTestKey(t);
    await activeUser(t, admin, 'alan@example.com', 'admin');
    await activeUser(t, admin, 'vic@example.com', 'viewer');
  });
  after(async () => {
    await t.close();
  });

  it(`${REQUESTS} requests, zero 5xx`, async () => {
    const d = new Dice(seededRandom(SEED));
    const routes = allRoutes();
    let cookies: string[] = [];
    const freshCookies = async (): Promise<void> => {
      cookies = [
        (await signIn(t, { email: 'alan@example.com', password: PASSWORD })).cookie,
        (await signIn(t, { email: 'vic@example.com', password: PASSWORD })).cookie,
        (await signIn(t, { api_key: admin })).cookie,
      ];
    };
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    for (let i = 0; i < REQUESTS; i++) {
      // Requests may sign out, change the session settings or run into the failed-auth budget: start over now and then.
      if (i % 50 === 0) {
        t.clock.advance(FAILED_AUTH_WINDOW_MS);
        await freshCookies();
      }
      const route = routes[i % routes.length] as RouteDef<any, any>;
      const cookie = d.chance(0.8)
        ? d.pick(cookies)
        : `printfarm_session=${d.pick(['', 'x', 'A'.repeat(43), '%00', '"', 'a;b', 'é'.repeat(43), 'A'.repeat(5000)])}`;
      const headers: Record<string, string> = { Cookie: d.chance(0.1) ? `${cookie}; ${cookie}` : cookie };
      const origin = d.next();
      if (origin < 0.5) headers['Sec-Fetch-Site'] = 'same-origin';
      else if (origin < 0.6) headers['Sec-Fetch-Site'] = d.pick(['cross-site', 'same-site', 'none', '', 'SAME-ORIGIN', 'x'.repeat(300)]);
      else if (origin < 0.8) headers.Origin = d.pick([t.baseUrl, 'http://evil.example', 'null', '', 'http://[::1', 'x'.repeat(3000), `${t.baseUrl}/path`]);
      if (d.chance(0.05)) headers.Authorization = d.pick(['Bearer', 'Basic !!!', `Bearer ${admin}`, 'Token x']);
      const method = d.chance(0.9) ? route.method : d.pick(['GET', 'POST', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
      let body: Buffer | undefined;
      if (method !== 'GET' && method !== 'HEAD') {
        const valid = sample(route.body, d);
        body = d.chance(0.4) ? Buffer.from(JSON.stringify(valid) ?? '') : d.chance(0.8) ? Buffer.from(JSON.stringify(mutateBody(valid, route.body, d)) ?? 'null') : brokenJson(valid, d);
        headers['Content-Type'] = 'application/json';
      }
      const req = { method, path: routePath(route, [], d), headers, ...(body ? { body } : {}) };
      let res: { status: number; text: string };
      try {
        res = await sendRaw(t.baseUrl, req);
      } catch (err) {
        failures.push(`${req.method} ${req.path.slice(0, 100)}: ${String(err)}`);
        continue;
      }
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500 && failures.length < 15) {
        failures.push(`${res.status} ${req.method} ${req.path.slice(0, 100)} ${JSON.stringify(req.headers).slice(0, 200)} -> ${res.text.slice(0, 300)}`);
      }
    }
    const histogram = [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}:${n}`).join(' ');
    console.log(`sessions fuzz: ${REQUESTS} requests over ${routes.length} routes; statuses ${histogram}`);
    assert.deepEqual(failures, []);
    assert.ok((statuses.get(200) ?? 0) > 100, 'cookies did authenticate');
    assert.ok((statuses.get(403) ?? 0) > 10, 'some were refused as cross-site or out of scope');
  });
});
