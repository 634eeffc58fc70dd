// Key strings, hashes and prefixes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { displayPrefix, hashesEqual, hashKey, keyEnvironment, mintKeyString } from '../../src/auth/api-key-format.js';

describe('API key format', () => {
  it('mints svc_<env>_ plus at least 32 base62 characters, different every time', () => {
    for (const env of ['live', 'test', 'dev'] as const) {
      const key = mintKeyString(env);
      assert.match(key, new RegExp(`^svc_${env}_[0-9A-Za-z]{32,}$`));
      assert.equal(keyEnvironment(key), env);
    }
    const many = new Set(Array.from({ length: 200 }, () => mintKeyString('live')));
    assert.equal(many.size, 200);
  });

  it('hashes with SHA-256 hex and never stores the key', () => {
    const key = mintKeyString('live');
    assert.equal(hashKey(key), createHash('sha256').update(key).digest('hex'));
    assert.match(hashKey(key), /^[0-9a-f]{64}$/);
    assert.ok(!hashKey(key).includes(key.slice(9, 20)));
  });

  it('the display prefix shows the environment and 6 characters, not enough to use the key', () => {
    const key = 'svc_test_' + 'Ab12Cd' + 'x'.repeat(34);
    assert.equal(displayPrefix(key), 'svc_test_Ab12Cd');
    assert.throws(() => displayPrefix('nope'));
  });

  it('rejects strings not shaped like a key', () => {
    for (const s of ['', 'svc_live_', 'svc_live_short', 'svc_prod_' + 'a'.repeat(40), 'svc_live_' + 'a'.repeat(31), 'svc_live_' + 'a'.repeat(39) + '!', 'sk_live_' + 'a'.repeat(40)]) {
      assert.equal(keyEnvironment(s), null, s);
    }
  });

  it('compares digests in constant time and by value', () => {
    const h = hashKey('a');
    assert.equal(hashesEqual(h, hashKey('a')), true);
    assert.equal(hashesEqual(h, hashKey('b')), false);
    assert.equal(hashesEqual(h, h.slice(0, 10)), false);
    assert.equal(hashesEqual('', ''), false);
  });
});
