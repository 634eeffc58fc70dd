// /v1/webhooks over HTTP: validation, write-only secrets, scopes, the test delivery, secret rotation, allowed hosts, OpenAPI.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { verifySignature } from '../../src/webhooks/signature.js';
import { createWebhook, MAX_WEBHOOKS } from '../../src/webhooks/webhooks.service.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { startReceiver, type Receiver, type Obj } from './webhook-harness.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

async function setup(): Promise<{ t: TestApp; key: string; rx: Receiver }> {
  const t = await startTestApp();
  const rx = await startReceiver(() => ({ status: 200, body: 'thanks' }));
  open.push(t, rx);
  return { t, key: await mintTestKey(t), rx };
}

const send = (t: TestApp, key: string, method: string, path: string, body?: unknown) =>
  t.request(path, { method, headers: bearer(key, body !== undefined), ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });

describe('webhooks API', () => {
  it('creates with a generated secret shown once, lists, reads, updates and deletes', async () => {
    const { t, key, rx } = await setup();
    const res = await send(t, key, 'POST', '/v1/webhooks', { url: rx.url, events: ['job.*', 'printer.offline'] });
    assert.equal(res.status, 201);
    const created = await res.json() as Obj;
    assert.match(created.id, /^wh_/);
    assert.match(created.secret, /^whsec_[A-Za-z0-9]{32}$/);
    assert.equal(created.enabled, true);
    assert.equal(created.has_secret, true);
    assert.deepEqual(created.events, ['job.*', 'printer.offline']);

    const got = await (await send(t, key, 'GET', `/v1/webhooks/${created.id}`)).json() as Obj;
    assert.equal(got.secret, undefined, 'the secret is write-only');
    const list = await (await send(t, key, 'GET', '/v1/webhooks?enabled=true')).json() as Obj;
    assert.equal(list.pagination.total, 1);
    assert.equal(list.data[0].secret, undefined);

    const patched = await (await send(t, key, 'PATCH', `/v1/webhooks/${created.id}`, { enabled: false, events: ['*'] })).json() as Obj;
    assert.equal(patched.enabled, false);
    assert.deepEqual(patched.events, ['*']);
    // A client-supplied secret is never echoed.
    const second = await (await send(t, key, 'POST', '/v1/webhooks', { url: rx.url, events: ['*'], secret: 'my-own-secret-123456' })).json() as Obj;
    assert.equal(second.secret, undefined);

    assert.equal((await send(t, key, 'DELETE', `/v1/webhooks/${created.id}`)).status, 204);
    assert.equal((await send(t, key, 'GET', `/v1/webhooks/${created.id}`)).status, 404);
    assert.equal((await send(t, key, 'DELETE', `/v1/webhooks/${created.id}`)).status, 404);
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const { t, key, rx } = await setup();
    const cases: Array<[unknown, RegExp]> = [
      [{ url: 'ftp://x.example/h', events: ['*'] }, /url/],
      [{ url: 'not a url', events: ['*'] }, /url/],
      [{ url: 'http://user:pw@x.example/h', events: ['*'] }, /url: must not carry/],
      [{ url: rx.url, events: ['job.exploded'] }, /events\[0\]/],
      [{ url: rx.url, events: [] }, /events/],
      [{ url: rx.url, events: ['*'], secret: 'short' }, /secret/],
      [{ url: rx.url, events: ['*'], colour: 'red' }, /colour/],
      [{ events: ['*'] }, /url/],
    ];
    for (const [body, message] of cases) {
      const res = await send(t, key, 'POST', '/v1/webhooks', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const err = (await res.json() as Obj).error;
      assert.equal(err.code, 'invalid_request');
      assert.match(err.message, message, JSON.stringify(body));
    }
    const created = await (await send(t, key, 'POST', '/v1/webhooks', { url: rx.url, events: ['*'] })).json() as Obj;
    assert.equal((await send(t, key, 'PATCH', `/v1/webhooks/${created.id}`, {})).status, 400);
    assert.equal((await send(t, key, 'PATCH', `/v1/webhooks/${created.id}`, { id: 'wh_x' })).status, 400);
  });

  it('needs webhooks:write, also to list', async () => {
    const { t } = await setup();
    const reader = await mintTestKey(t, ['jobs:read', 'printers:*']);
    const res = await send(t, reader, 'GET', '/v1/webhooks');
    assert.equal(res.status, 403);
    assert.match((await res.json() as Obj).error.message, /webhooks:write/);
    const writer = await mintTestKey(t, ['webhooks:write']);
    assert.equal((await send(t, writer, 'GET', '/v1/webhooks')).status, 200);
  });

  it('the test endpoint sends a signed webhook.test now and reports the outcome', async () => {
    const { t, key, rx } = await setup();
    const created = await (await send(t, key, 'POST', '/v1/webhooks', { url: rx.url, events: ['job.created'] })).json() as Obj;
    const res = await send(t, key, 'POST', `/v1/webhooks/${created.id}/test`);
    assert.equal(res.status, 200);
    const outcome = await res.json() as Obj;
    assert.equal(outcome.delivered, true);
    assert.equal(outcome.status_code, 200);
    assert.equal(outcome.response_excerpt, 'thanks');
    assert.equal(typeof outcome.duration_ms, 'number');
    assert.equal(rx.received.length, 1);
    const got = rx.received[0]!;
    assert.equal(got.headers['x-event-type'], 'webhook.test');
    assert.equal(got.headers['x-event-id'], outcome.event_id);
    assert.ok(verifySignature(String(got.headers['x-signature']), created.secret, got.body, t.clock.now() / 1000));
    assert.equal(JSON.parse(got.body).data.object.id, created.id);

    // A receiver that is down: reported, and not retried by the worker.
    await rx.close();
    const down = await (await send(t, key, 'POST', `/v1/webhooks/${created.id}/test`)).json() as Obj;
    assert.equal(down.delivered, false);
    assert.equal(down.status_code, null);
    // A kept-alive socket the receiver closed may show as a hang-up rather than a refusal.
    assert.match(down.error, /ECONNREFUSED|socket hang up|ECONNRESET/);
    const history = await (await send(t, key, 'GET', `/v1/webhooks/${created.id}/deliveries?status=failed`)).json() as Obj;
    assert.equal(history.data.length, 1);
    assert.equal(history.data[0].id, down.delivery_id);
  });

  it('a new secret signs beside the old one for 24 hours', async () => {
    const { t, key, rx } = await setup();
    const created = await (await send(t, key, 'POST', '/v1/webhooks', { url: rx.url, events: ['*'], secret: 'old-secret-0123456789' })).json() as Obj;
    const patched = await (await send(t, key, 'PATCH', `/v1/webhooks/${created.id}`, { secret: 'new-secret-0123456789' })).json() as Obj;
    assert.ok(patched.secret_rotation_ends_at);
    await send(t, key, 'POST', `/v1/webhooks/${created.id}/test`);
    const header = String(rx.received[0]!.headers['x-signature']);
    assert.equal(header.match(/v1=/g)?.length, 2);
    const nowS = t.clock.now() / 1000;
    assert.ok(verifySignature(header, 'old-secret-0123456789', rx.received[0]!.body, nowS));
    assert.ok(verifySignature(header, 'new-secret-0123456789', rx.received[0]!.body, nowS));

    t.clock.advance(24 * 3600 * 1000);
    await send(t, key, 'POST', `/v1/webhooks/${created.id}/test`);
    const later = String(rx.received[1]!.headers['x-signature']);
    assert.equal(later.match(/v1=/g)?.length, 1);
    assert.equal(verifySignature(later, 'old-secret-0123456789', rx.received[1]!.body, t.clock.now() / 1000), false);
    assert.equal((await (await send(t, key, 'GET', `/v1/webhooks/${created.id}`)).json() as Obj).secret_rotation_ends_at, null);
  });

  it('the organization can restrict receiver hosts', async () => {
    const { t, key, rx } = await setup();
    const hook = await (await send(t, key, 'POST', '/v1/webhooks', { url: rx.url, events: ['*'] })).json() as Obj;
    const bad = await send(t, key, 'PATCH', '/v1/organization', { webhook_allowed_hosts: ['http://nope'] });
    assert.equal(bad.status, 400);
    assert.match((await bad.json() as Obj).error.message, /webhook_allowed_hosts\[0\]/);
    const org = await (await send(t, key, 'PATCH', '/v1/organization', { webhook_allowed_hosts: ['*.example.com', '10.0.0.0/8'] })).json() as Obj;
    assert.deepEqual(org.webhook_allowed_hosts, ['*.example.com', '10.0.0.0/8']);

    const refused = await send(t, key, 'POST', '/v1/webhooks', { url: rx.url, events: ['*'] });
    assert.equal(refused.status, 400);
    assert.match((await refused.json() as Obj).error.message, /url: host "127.0.0.1" is not in the organization's webhook_allowed_hosts/);
    // An existing webhook to a host no longer allowed is not contacted.
    const outcome = await (await send(t, key, 'POST', `/v1/webhooks/${hook.id}/test`)).json() as Obj;
    assert.equal(outcome.delivered, false);
    assert.match(outcome.error, /webhook_allowed_hosts/);
    assert.equal(rx.received.length, 0);

    await send(t, key, 'PATCH', '/v1/organization', { webhook_allowed_hosts: ['127.0.0.0/8'] });
    assert.equal((await send(t, key, 'POST', '/v1/webhooks', { url: rx.url, events: ['*'] })).status, 201);
  });

  it('is documented in OpenAPI', async () => {
    const { t, key } = await setup();
    const doc = await (await send(t, key, 'GET', '/v1/openapi.json')).json() as Obj;
    for (const path of ['/v1/webhooks', '/v1/webhooks/{id}', '/v1/webhooks/{id}/test', '/v1/webhooks/{id}/deliveries', '/v1/events']) assert.ok(doc.paths[path], path);
  });

  it('allows at most 100 webhooks (403 quota_exceeded)', async () => {
    const { t, key, rx } = await setup();
    for (let i = 0; i < MAX_WEBHOOKS; i++) await createWebhook(t.deps, { url: rx.url, events: ['*'] });
    const res = await send(t, key, 'POST', '/v1/webhooks', { url: rx.url, events: ['*'] });
    assert.equal(res.status, 403);
    assert.equal((await res.json() as Obj).error.code, 'quota_exceeded');
  });

  it('a retry of an unknown delivery is a 404', async () => {
    const { t, key, rx } = await setup();
    const hook = await (await send(t, key, 'POST', '/v1/webhooks', { url: rx.url, events: ['*'] })).json() as Obj;
    assert.equal((await send(t, key, 'POST', `/v1/webhooks/${hook.id}/deliveries/dlv_nope/retry`)).status, 404);
  });
});
