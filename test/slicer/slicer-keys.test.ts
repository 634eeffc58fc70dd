// POST /v1/slicer/keys with bad input: a clear 400 or 403 and no key made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, mintTestKey, startTestApp } from '../helpers/test-app.js';

test('POST /v1/slicer/keys refuses malformed JSON, a wrong type, an unknown field and a non-admin caller, making no key', async () => {
  const app = await startTestApp();
  try {
    const admin = await mintTestKey(app);
    const reader = await mintTestKey(app, ['jobs:read'], 'reader');
    const keys = async () => Number((await app.deps.db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await keys();
    const post = (key: string, body: string) => app.request('/v1/slicer/keys', { method: 'POST', headers: bearer(key, true), body });
    for (const [body, word] of [['{"name":', /JSON/i], ['{"name": 7}', /name/], ['{"name": "x", "scopes": ["admin:*"]}', /scopes/], ['{"name": ""}', /name/]] as const) {
      const res = await post(admin, body);
      assert.equal(res.status, 400, body);
      assert.match(await res.text(), word);
    }
    const denied = await post(reader, '{}');
    assert.equal(denied.status, 403);
    assert.match(await denied.text(), /admin/);
    assert.equal(await keys(), before, 'no key made');
  } finally {
    await app.close();
  }
});
