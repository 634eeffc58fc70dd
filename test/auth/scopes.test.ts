// Scope rules as tables: known scopes, wildcard coverage, no escalation, and the scope list parser.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { covers, firstUncovered, firstUnknownScope, isKnownScope, KNOWN_SCOPES, parseScopeList, scopeCovers } from '../../src/auth/scopes.js';

describe('scopes', () => {
  it('knows the spec scopes, the materials extension scopes, resource wildcards and admin:*', () => {
    for (const s of ['printers:read', 'printers:write', 'jobs:read', 'jobs:write', 'analytics:read', 'webhooks:write', 'admin:*']) {
      assert.ok(isKnownScope(s), s);
    }
    for (const s of ['materials:read', 'materials:write', 'printers:*', 'jobs:*', 'materials:*', 'webhooks:*', 'analytics:*']) {
      assert.ok(isKnownScope(s), s);
    }
    for (const s of ['*', 'admin', 'admin:read', 'printers', 'printers:delete', 'PRINTERS:READ', 'foo:*', ' jobs:read', '']) {
      assert.equal(isKnownScope(s), false, JSON.stringify(s));
    }
    assert.equal(new Set(KNOWN_SCOPES).size, KNOWN_SCOPES.length);
  });

  const table: [granted: string, required: string, expected: boolean][] = [
    ['printers:read', 'printers:read', true],
    ['printers:read', 'printers:write', false],
    ['printers:*', 'printers:read', true],
    ['printers:*', 'printers:write', true],
    ['printers:*', 'printers:*', true],
    ['printers:*', 'jobs:read', false],
    ['jobs:*', 'admin:*', false],
    ['admin:*', 'jobs:write', true],
    ['admin:*', 'materials:*', true],
    ['admin:*', 'admin:*', true],
    // A concrete scope never covers a wildcard: the wildcard would also grant later actions.
    ['printers:read', 'printers:*', false],
    ['printers:write', 'printers:*', false],
    ['webhooks:write', 'webhooks:*', false],
    // Prefix tricks do not match.
    ['print:*', 'printers:read', false],
  ];
  for (const [granted, required, expected] of table) {
    it(`${granted} ${expected ? 'covers' : 'does not cover'} ${required}`, () => {
      assert.equal(scopeCovers(granted, required), expected);
    });
  }

  it('a set covers a scope when any member does', () => {
    assert.equal(covers(['jobs:read', 'printers:*'], 'printers:write'), true);
    assert.equal(covers(['jobs:read', 'printers:read'], 'printers:write'), false);
    assert.equal(covers([], 'jobs:read'), false);
  });

  it('no escalation: the first requested scope the granter lacks is named', () => {
    assert.equal(firstUncovered(['jobs:*'], ['jobs:read', 'jobs:write']), null);
    assert.equal(firstUncovered(['jobs:*'], ['jobs:read', 'printers:read']), 'printers:read');
    assert.equal(firstUncovered(['printers:read', 'printers:write'], ['printers:*']), 'printers:*');
    assert.equal(firstUncovered(['printers:*'], ['admin:*']), 'admin:*');
    assert.equal(firstUncovered(['admin:*'], ['admin:*', 'jobs:read']), null);
  });

  it('finds the first unknown scope with its index', () => {
    assert.equal(firstUnknownScope(['jobs:read', 'printers:*']), null);
    assert.deepEqual(firstUnknownScope(['jobs:read', 'jobs:delete', 'x']), { index: 1, scope: 'jobs:delete' });
  });

  it('parses a command-line scope list', () => {
    assert.deepEqual(parseScopeList('a, b,,a ,c'), ['a', 'b', 'c']);
    assert.deepEqual(parseScopeList(' , '), []);
  });
});
