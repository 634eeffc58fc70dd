// The HTTP edges every endpoint shares: 413, 415, malformed and non-object JSON, 405 with Allow, unknown routes; all shape B with X-Request-Id.
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import assert from 'node:assert/strict';
import { defineRoute } from '../../src/http/route.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';

interface ErrorBody {
  success: boolean;
  error: { code: string; message: string; details: string };
}

// A body-taking route open to all, so these tests reach the content-type and schema checks without a key.
const echoRoute = defineRoute<{ name: string }>({
  method: 'POST',
  path: '/v1/test-echo',
  summary: 'test only',
  tag: 'Test',
  auth: 'none',
  body: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string' } } },
  responses: { 200: { description: 'echo' } },
  handle(ctx, input) {
    ctx.body = { echoed: input.body.name };
  },
});

// A query-validated route: ajv messages for query parameters say "query parameter" and the rule.
const queryRoute = defineRoute<unknown, { group?: string }>({
  method: 'GET',
  path: '/v1/test-query',
  summary: 'test only',
  tag: 'Test',
  auth: 'none',
  query: { type: 'object', additionalProperties: false, properties: { group: { type: 'string', maxLength: 5 } } },
  responses: { 200: { description: 'echo' } },
  handle(ctx, input) {
    ctx.body = { group: input.query.group ?? null };
  },
});

async function expectError(res: Response, status: number, code: string, message?: RegExp): Promise<ErrorBody> {
  assert.equal(res.status, status);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  assert.ok(res.headers.get('x-request-id'), 'X-Request-Id on an error');
  const body = (await res.json()) as ErrorBody;
  assert.equal(body.success, false);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.equal(typeof body.error.details, 'string');
  assert.doesNotMatch(JSON.stringify(body), /at .*\.ts:\d+/, 'no stack trace');
  if (message) assert.match(body.error.message, message);
  return body;
}

describe('http error edges', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ extraRoutes: [echoRoute, queryRoute] });
  });
  after(async () => {
    await t.close();
  });

  const post = (path: string, body: string, type = 'application/json') =>
    t.request(path, { method: 'POST', headers: { 'Content-Type': type }, body });

  it('the test route answers a good body (the edges below are not a broken route)', async () => {
    const res = await post('/v1/test-echo', JSON.stringify({ name: 'x' }));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { echoed: 'x' });
  });

  it('a JSON body over 1 MB gets 413 invalid_request', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    await expectError(await post('/v1/test-echo', big), 413, 'invalid_request', /too large.*1048576 bytes/);
  });

  it('a body of the wrong content type gets 415 naming what to send', async () => {
    await expectError(await post('/v1/test-echo', 'name=x', 'text/plain'), 415, 'invalid_request', /text\/plain.*application\/json/);
    await expectError(await post('/v1/test-echo', '<name/>', 'application/xml'), 415, 'invalid_request');
  });

  it('malformed JSON gets 400 saying so', async () => {
    await expectError(await post('/v1/test-echo', '{"name": "x",'), 400, 'invalid_request', /malformed JSON/);
    await expectError(await post('/v1/test-echo', "{'name': 1}"), 400, 'invalid_request', /malformed JSON/);
  });

  it('JSON that is not an object gets 400 in one wording that names what was sent, never the parser\'s own', async () => {
    const cases: [string, string][] = [
      ['"just a string"', 'a string'],
      ['42', 'a number'],
      ['null', 'null'],
      [' true', 'a boolean'],
      ['[{"name":"x"}]', 'an array'],
    ];
    for (const [body, kind] of cases) {
      const err = await expectError(await post('/v1/test-echo', body), 400, 'invalid_request');
      assert.equal(err.error.message, `body: must be a JSON object, not ${kind}`, body);
      assert.equal(err.error.details, '', 'no parser wording in details');
    }
  });

  it('malformed JSON is described by position, without quoting the parser or the input', async () => {
    const at = await expectError(await post('/v1/test-echo', '{\n  "name": x}'), 400, 'invalid_request');
    assert.equal(at.error.message, 'malformed JSON body: unexpected "x" at line 2, column 11');
    const early = await expectError(await post('/v1/test-echo', '{"name": "abc'), 400, 'invalid_request');
    assert.match(early.error.message, /^malformed JSON body: it ends too early/);
    const proto = await expectError(await post('/v1/test-echo', '{"__proto__": {"x": 1}}'), 400, 'invalid_request');
    assert.equal(proto.error.message, 'body: the field name "__proto__" is not allowed');
  });

  it('a compressed body is read when it decompresses, 400 naming the encoding when not, 415 for an unknown encoding', async () => {
    const json = Buffer.from(JSON.stringify({ name: 'zipped' }));
    const send = (body: Buffer, encoding: string) =>
      t.request('/v1/test-echo', { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding }, body });
    for (const [encoding, packed] of [
      ['gzip', gzipSync(json)],
      ['GZIP', gzipSync(json)],
      ['deflate', deflateSync(json)],
      ['br', brotliCompressSync(json)],
    ] as const) {
      const res = await send(packed, encoding);
      assert.equal(res.status, 200, encoding);
      assert.deepEqual(await res.json(), { echoed: 'zipped' });
    }
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const garbage = Buffer.from('{"name": "this is not compressed at all, whatever the header says"}');
      const err = await expectError(await send(garbage, encoding), 400, 'invalid_request');
      assert.equal(err.error.message, `body: cannot be decompressed: it is not valid ${encoding} data (Content-Encoding: ${encoding})`);
    }
    const truncated = gzipSync(json).subarray(0, 12);
    await expectError(await send(truncated, 'gzip'), 400, 'invalid_request', /not valid gzip data/);
    await expectError(await send(json, 'compress'), 415, 'invalid_request', /^unsupported Content-Encoding "compress": send gzip, deflate, br or none$/);
    await expectError(await send(json, 'gzip, br'), 415, 'invalid_request');
  });

  it('schema violations name the field and the rule', async () => {
    await expectError(await post('/v1/test-echo', '{}'), 400, 'invalid_request', /^name: is required$/);
    await expectError(await post('/v1/test-echo', '{"name":1}'), 400, 'invalid_request', /^name: must be a string, not a number$/);
    await expectError(await post('/v1/test-echo', '{"name":"x","colour":1}'), 400, 'invalid_request', /unknown field "colour"/);
  });

  it('query validation names the parameter and the rule', async () => {
    assert.deepEqual(await (await t.request('/v1/test-query?group=a')).json(), { group: 'a' });
    await expectError(await t.request('/v1/test-query?grp=a'), 400, 'invalid_request', /unknown query parameter "grp"/);
    await expectError(await t.request('/v1/test-query?group=a&group=b'), 400, 'invalid_request', /query parameter group: must be a string/);
    await expectError(await t.request('/v1/test-query?group=abcdef'), 400, 'invalid_request', /query parameter group: must be at most 5 characters/);
  });

  it('a wrong method gets 405 with an Allow header (after authentication under /v1)', async () => {
    const res = await t.request('/v1/test-echo', { method: 'DELETE', headers: bearer(await mintTestKey(t)) });
    await expectError(res, 405, 'invalid_request', /DELETE.*allowed: POST/);
    assert.equal(res.headers.get('allow'), 'POST');
    const health = await t.request('/healthz', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    await expectError(health, 405, 'invalid_request');
    assert.match(health.headers.get('allow') ?? '', /\bGET\b/);
  });

  it('a method the router does not know at all is also 405 in shape B', async () => {
    await expectError(await t.request('/healthz', { method: 'PROPFIND' }), 405, 'invalid_request');
    const nowhere = await t.request('/v1/nothing', { method: 'PROPFIND', headers: bearer(await mintTestKey(t)) });
    await expectError(nowhere, 404, 'resource_not_found');
    assert.equal(nowhere.headers.get('allow'), null);
  });

  it('a real creating endpoint (POST /v1/api-keys) shows the same edges behind authentication', async () => {
    const admin = await mintTestKey(t);
    const send = (body: string, type: string) =>
      t.request('/v1/api-keys', { method: 'POST', headers: { ...bearer(admin), 'Content-Type': type }, body });
    await expectError(await send('name=x', 'application/x-www-form-urlencoded'), 415, 'invalid_request');
    await expectError(await send('{"name":', 'application/json'), 400, 'invalid_request', /malformed JSON/);
    await expectError(await send('[]', 'application/json'), 400, 'invalid_request', /body: must be a JSON object, not an array/);
    await expectError(await send(JSON.stringify({ name: 'x'.repeat(1_100_000), scopes: [] }), 'application/json'), 413, 'invalid_request');
    await expectError(await send('{"name":"x","scopes":["jobs:read"],"extra":1}', 'application/json'), 400, 'invalid_request', /unknown field "extra"/);
  });

  it('an unknown route gets 404 resource_not_found naming it; keyless under /v1 it is 401 first', async () => {
    const key = bearer(await mintTestKey(t));
    await expectError(await t.request('/v1/nothing/here', { headers: key }), 404, 'resource_not_found', /no route for GET "\/v1\/nothing\/here"/);
    await expectError(await t.request('/nothing/here'), 404, 'resource_not_found', /no route for GET "\/nothing\/here"/);
    await expectError(await post('/v1/nothing', '{}'), 401, 'invalid_api_key', /missing API key/);
    // A malformed body on an unknown route is never read: the answer is about the route (or the key), not the body.
    const bad = await t.request('/v1/nothing', { method: 'POST', headers: { ...key, 'Content-Type': 'application/json' }, body: '{"x":' });
    await expectError(bad, 404, 'resource_not_found');
  });

  it('a 5,000-character path is echoed cut to 100 characters', async () => {
    const long = '/v1/' + 'a'.repeat(5000);
    const err = await expectError(await t.request(long, { headers: bearer(await mintTestKey(t)) }), 404, 'resource_not_found');
    assert.equal(err.error.message, `no route for GET "${long.slice(0, 100)}…" (5004 characters)`);
  });
});
