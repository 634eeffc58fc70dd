// The HTTP platform's shared behaviour: health, request ids, the one error shape for unknown routes, methods, bodies.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';

describe('http platform basics', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('GET /healthz answers without authentication', async () => {
    const res = await t.request('/healthz');
    assert.equal(res.status, 200);
    const body = (await res.json()) as { status: string };
    assert.equal(body.status, 'ok');
    assert.match(res.headers.get('x-request-id') ?? '', /^req_/);
  });

  it('echoes a sane client request id and replaces a hostile one', async () => {
    const ok = await t.request('/healthz', { headers: { 'X-Request-Id': 'abc-123' } });
    assert.equal(ok.headers.get('x-request-id'), 'abc-123');
    const bad = await t.request('/healthz', { headers: { 'X-Request-Id': 'a b<script>' } });
    assert.match(bad.headers.get('x-request-id') ?? '', /^req_/);
  });

  it('every answer carries a Date header read from the app\'s clock (the dashboard follows it), errors too', async () => {
    t.clock.set(Date.parse('2026-11-30T23:59:58.750Z'));
    const key = await mintTestKey(t);
    for (const [urlPath, headers, status] of [
      ['/healthz', {}, 200],
      ['/v1/sessions/current', {}, 401],
      ['/v1/does-not-exist', bearer(key), 404],
    ] as const) {
      const res = await t.request(urlPath, { headers });
      assert.equal(res.status, status, urlPath);
      assert.equal(res.headers.get('date'), 'Mon, 30 Nov 2026 23:59:58 GMT', urlPath);
    }
    t.clock.advance(1_500);
    assert.equal((await t.request('/healthz')).headers.get('date'), 'Tue, 01 Dec 2026 00:00:00 GMT');
  });

  it('unknown routes get 404 resource_not_found in shape B', async () => {
    const res = await t.request('/v1/does-not-exist', { headers: bearer(await mintTestKey(t)) });
    assert.equal(res.status, 404);
    assert.ok(res.headers.get('x-request-id'));
    const body = (await res.json()) as { success: boolean; error: { code: string; message: string; details: string } };
    assert.equal(body.success, false);
    assert.equal(body.error.code, 'resource_not_found');
    assert.equal(typeof body.error.details, 'string');
  });

  it('a wrong method on a known path gets 405 invalid_request', async () => {
    const res = await t.request('/healthz', { method: 'DELETE' });
    assert.equal(res.status, 405);
    const body = (await res.json()) as { error: { code: string } };
    assert.equal(body.error.code, 'invalid_request');
  });
});
