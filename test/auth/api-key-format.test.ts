// Key strings, hashes and prefixes; Authorization header parsing; fixed-window counting.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { displayPrefix, hashesEqual, hashKey, keyEnvironment, mintKeyString } from '../../src/auth/api-key-format.js';
import { presentedKey, readCredentials } from '../../src/auth/credentials.js';
import { FixedWindowCounter } from '../../src/auth/fixed-window.js';

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

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

describe('Authorization header', () => {
  const key = 'svc_live_' + 'k'.repeat(40);
  it('takes Bearer (any case of the scheme) and Basic with the key as user and an empty password', () => {
    assert.equal(presentedKey(`Bearer ${key}`), key);
    assert.equal(presentedKey(`bearer ${key}`), key);
    assert.equal(presentedKey(basic(key, '')), key);
  });
  it('treats anything else as no credentials', () => {
    for (const h of [undefined, '', 'Bearer', 'Bearer  ', `Token ${key}`, basic(key, 'secret'), basic('', ''), 'Basic !!!notbase64', `Bearer ${key} extra`, key]) {
      assert.equal(presentedKey(h), null, String(h));
    }
  });
  it('words each unusable header its own way, naming what was sent but never a key', () => {
    const cases: [string | undefined, RegExp | null][] = [
      [undefined, null],
      ['', null],
      ['   ', null],
      ['Bearer', /^empty API key: the Authorization header says "Bearer" and nothing after it/],
      ['bearer   ', /^empty API key: the Authorization header says "bearer"/],
      ['Basic', /^empty API key: the Authorization header says "Basic"/],
      [`Bearer ${key} extra`, /^the Authorization header has 2 words after "Bearer"/],
      [key, /^the Authorization header has no scheme; send "Authorization: Bearer <key>"$/],
      [`Token ${key}`, /^unsupported Authorization scheme "Token": send "Authorization: Bearer <key>", or Basic/],
      [`${'X'.repeat(300)} abc`, /^unsupported Authorization scheme "X{100}…" \(300 characters\)/],
      ['Basic !!!notbase64', /^Basic credentials must be the key as user name and an empty password/],
      [basic(key, 'secret'), /^Basic credentials must be/],
    ];
    for (const [header, problem] of cases) {
      const c = readCredentials(header);
      if (problem === null) assert.equal(c.kind, 'none', String(header));
      else {
        assert.equal(c.kind, 'unusable', String(header));
        assert.match((c as { problem: string }).problem, problem);
        assert.ok(!(c as { problem: string }).problem.includes(key), 'never repeats the key');
      }
    }
  });
  it('returns a malformed Bearer token as given so it can be refused as invalid', () => {
    assert.equal(presentedKey('Bearer garbage'), 'garbage');
  });
});

describe('fixed windows', () => {
  it('counts per id inside aligned windows and resets at the boundary', () => {
    const c = new FixedWindowCounter(1000);
    assert.deepEqual(c.peek('a', 1500), { count: 0, resetAt: 2000 });
    assert.deepEqual(c.hit('a', 1500), { count: 1, resetAt: 2000 });
    assert.deepEqual(c.hit('a', 1999), { count: 2, resetAt: 2000 });
    assert.deepEqual(c.hit('b', 1999), { count: 1, resetAt: 2000 });
    assert.deepEqual(c.hit('a', 2000), { count: 1, resetAt: 3000 });
  });
  it('stays bounded under many ids', () => {
    const c = new FixedWindowCounter(1000, 10);
    for (let i = 0; i < 100; i++) c.hit(`id${i}`, 500);
    assert.ok((c as unknown as { windows: Map<string, unknown> }).windows.size <= 10);
    assert.equal(c.peek('id99', 500).count, 1);
  });
});
