// X-Api-Key, the header OctoPrint and Moonraker clients send, works on /v1 as Bearer does; Authorization wins when both come.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mintTestKey, startTestApp } from '../helpers/test-app.js';

test('X-Api-Key authenticates on /v1, a wrong one is a 401, and an Authorization header is the one used', async () => {
  const app = await startTestApp();
  try {
    const key = await mintTestKey(app, ['jobs:read']);
    const ok = await app.request('/v1/api-keys/current', { headers: { 'X-Api-Key': key } });
    assert.equal(ok.status, 200);
    assert.deepEqual(((await ok.json()) as { scopes: string[] }).scopes, ['jobs:read']);
    const wrong = await app.request('/v1/jobs', { headers: { 'X-Api-Key': `svc_live_${'a'.repeat(40)}` } });
    assert.equal(wrong.status, 401);
    assert.match(await wrong.text(), /invalid API key/);
    const blank = await app.request('/v1/jobs', { headers: { 'X-Api-Key': 'two words' } });
    assert.equal(blank.status, 401);
    assert.match(await blank.text(), /X-Api-Key header must hold the key as one word/);
    const both = await app.request('/v1/jobs', { headers: { 'X-Api-Key': key, Authorization: `Bearer svc_live_${'b'.repeat(40)}` } });
    assert.equal(both.status, 401, 'the Authorization header is the explicit choice');
  } finally {
    await app.close();
  }
});
