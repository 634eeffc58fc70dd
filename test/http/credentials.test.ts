// The auth middleware's pure parts: Authorization header parsing and wording, fixed-window counting.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { presentedKey, readCredentials } from '../../src/http/middleware/credentials.js';
import { FixedWindowCounter } from '../../src/http/middleware/fixed-window.js';

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

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
