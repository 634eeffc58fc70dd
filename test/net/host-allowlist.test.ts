// Allowed-hosts settings by table (webhook_allowed_hosts and file_url_hosts share them): names, wildcards, addresses and CIDR ranges of both families.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hasAddressPatterns, hostAllowed, invalidHostPattern, matchesHostList } from '../../src/net/host-allowlist.js';

describe('allowed hosts', () => {
  const table: Array<[string[], string, boolean]> = [
    [[], 'http://192.168.1.5/h', true],
    [['printers.lan'], 'http://printers.lan:8000/h', true],
    [['printers.lan'], 'http://PRINTERS.lan/h', true],
    [['printers.lan'], 'http://evil.lan/h', false],
    [['*.example.com'], 'https://hooks.example.com/x', true],
    [['*.example.com'], 'https://example.com/x', false],
    [['*.example.com'], 'https://badexample.com/x', false],
    [['10.0.0.0/8'], 'http://10.20.30.40/h', true],
    [['10.0.0.0/8'], 'http://11.0.0.1/h', false],
    [['10.0.0.0/8'], 'http://10.evil.com/h', false],
    [['192.168.1.20'], 'http://192.168.1.20/h', true],
    [['192.168.1.20'], 'http://3232235796/h', true],
    [['[::1]'], 'http://[::1]:9/h', true],
    [['[fd00:0:0::5]'], 'http://[fd00::5]/h', true],
    [['fd00::5'], 'http://[fd00::5]/h', true],
    [['fd00::/8'], 'http://[fd12:3456::1]/h', true],
    [['fd00::/8'], 'http://[fe80::1]/h', false],
    [['fd00::/8'], 'http://10.0.0.1/h', false],
    [['0.0.0.0/0'], 'http://[::1]/h', false],
    [['::/0'], 'http://[2001:db8::1]/h', true],
  ];
  for (const [allowed, url, ok] of table) {
    it(`${allowed.join(',') || '(any)'} ${ok ? 'allows' : 'refuses'} ${url}`, () => assert.equal(hostAllowed(allowed, url), ok));
  }

  it('matches a bare address (what a host name resolved to) against addresses and ranges only', () => {
    assert.equal(matchesHostList(['192.168.1.0/24'], '192.168.1.9'), true);
    assert.equal(matchesHostList(['192.168.1.0/24'], '192.168.2.9'), false);
    assert.equal(matchesHostList(['fd00::/8'], 'fd00::9'), true);
    assert.equal(matchesHostList(['nas.lan'], '192.168.1.9'), false);
  });

  it('tells lists that can match an address from lists of names', () => {
    assert.equal(hasAddressPatterns(['nas.lan', '*.example.com']), false);
    assert.equal(hasAddressPatterns(['nas.lan', '10.0.0.0/8']), true);
    assert.equal(hasAddressPatterns(['[::1]']), true);
  });

  it('validates patterns', () => {
    for (const good of ['printers.lan', '*.example.com', '10.0.0.0/8', '192.168.1.20', '[::1]', 'fd00::5', 'fd00::/8', '[fd00::]/8', '::/0', '0.0.0.0/0']) {
      assert.equal(invalidHostPattern(good), null, good);
    }
    for (const bad of ['http://x', 'a b', '10.0.0.0/33', '*', '300.1.1.1/8', 'fd00::/129', 'nas.lan/8', '10.0.0.0/', '10.0.0.0/x', '[nas.lan]', '*.*.com', '']) {
      assert.notEqual(invalidHostPattern(bad), null, bad);
    }
  });
});
