// Pure parts of browser sessions: the role -> scopes table, the cookie header reader and writer, the request-origin verdict, the deadlines.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PasswordCheckGate } from '../../src/auth/password-check-gate.js';
import { READ_SCOPES, ROLE_SCOPES, scopesForRole } from '../../src/auth/role-scopes.js';
import { AppError } from '../../src/errors.js';
import { CONCRETE_SCOPES, covers, isKnownScope } from '../../src/auth/scopes.js';
import { endedBy, sessionDeadlines, sessionPolicy } from '../../src/auth/session-expiry.js';
import { requestOrigin } from '../../src/http/middleware/request-origin.js';
import { clearedSessionCookie, readSessionCookie, sessionCookie } from '../../src/http/middleware/session-cookie.js';

describe('role -> scopes', () => {
  it('is exactly this table', () => {
    assert.deepEqual(ROLE_SCOPES, {
      owner: ['admin:*'],
      admin: ['admin:*'],
      operator: ['printers:*', 'jobs:*', 'materials:*', 'analytics:read', 'metrics:read'],
      viewer: ['printers:read', 'jobs:read', 'materials:read', 'analytics:read', 'metrics:read'],
    });
  });

  it('names only known scopes, and a viewer holds every read scope there is', () => {
    for (const scopes of Object.values(ROLE_SCOPES)) for (const s of scopes) assert.ok(isKnownScope(s), s);
    assert.deepEqual([...READ_SCOPES], CONCRETE_SCOPES.filter((s) => s.endsWith(':read')));
  });

  it('gives what each role needs and nothing more', () => {
    const can = (role: keyof typeof ROLE_SCOPES, scope: string): boolean => covers(ROLE_SCOPES[role], scope);
    assert.ok(can('owner', 'webhooks:write') && can('admin', 'admin:*'));
    assert.ok(can('operator', 'printers:write') && can('operator', 'jobs:write') && can('operator', 'materials:write'));
    assert.ok(!can('operator', 'webhooks:write') && !can('operator', 'admin:*'));
    assert.ok(can('viewer', 'jobs:read') && !can('viewer', 'jobs:write') && !can('viewer', 'webhooks:write'));
    const copy = scopesForRole('viewer');
    copy.push('admin:*');
    assert.ok(!covers(ROLE_SCOPES.viewer, 'admin:*'), 'callers get a copy, never the table');
  });
});

describe('session cookie header', () => {
  it('reads the token among other cookies, the first one when repeated, and nothing from an empty value', () => {
    assert.equal(readSessionCookie('a=1; printfarm_session=tok; b=2'), 'tok');
    assert.equal(readSessionCookie('printfarm_session="tok"'), 'tok');
    assert.equal(readSessionCookie('printfarm_session=first; printfarm_session=second'), null, 'a planted second cookie: neither is used');
    assert.equal(readSessionCookie('printfarm_session=same; a=1; printfarm_session=same'), 'same');
    assert.equal(readSessionCookie('printfarm_session='), null);
    assert.equal(readSessionCookie('xprintfarm_session=tok; other=1'), null);
    assert.equal(readSessionCookie(undefined), null);
  });

  it('sets HttpOnly, SameSite=Strict, Path=/ and Max-Age, Secure only when asked; clearing sets Max-Age=0', () => {
    assert.equal(sessionCookie('abc', 3600, false), 'printfarm_session=abc; HttpOnly; SameSite=Strict; Path=/; Max-Age=3600');
    assert.equal(sessionCookie('abc', 60.7, true), 'printfarm_session=abc; HttpOnly; SameSite=Strict; Path=/; Max-Age=60; Secure');
    assert.match(clearedSessionCookie(false), /^printfarm_session=; HttpOnly; SameSite=Strict; Path=\/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT$/);
  });
});

describe('request origin', () => {
  const verdict = (secFetchSite: string, origin: string, host = 'farm.local:8080') => requestOrigin({ secFetchSite, origin, host });
  it('is same-origin by Sec-Fetch-Site or by an Origin of the same host and port', () => {
    assert.equal(verdict('same-origin', ''), 'same-origin');
    assert.equal(verdict('', 'http://farm.local:8080'), 'same-origin');
    assert.equal(verdict('', 'https://farm.local', 'farm.local:443'), 'same-origin');
    assert.equal(verdict('', 'http://FARM.local:8080'), 'same-origin');
  });
  it('is other when a browser says so, unstated when nothing is said', () => {
    assert.equal(verdict('cross-site', ''), 'other');
    assert.equal(verdict('same-site', ''), 'other');
    assert.equal(verdict('', 'http://farm.local:8081'), 'other');
    assert.equal(verdict('', 'http://evil.example'), 'other');
    assert.equal(verdict('', 'null'), 'other');
    assert.equal(verdict('', 'file:///index.html'), 'other');
    assert.equal(verdict('', ''), 'unstated');
  });
});

describe('session deadlines', () => {
  it('ends at the lifetime from sign-in or the idle timeout from the last use, whichever comes first', () => {
    const policy = sessionPolicy({ session_lifetime_hours: 2, session_idle_minutes: 30 });
    assert.deepEqual(policy, { lifetimeMs: 7_200_000, idleMs: 1_800_000 });
    assert.deepEqual(sessionPolicy(undefined), { lifetimeMs: 168 * 3_600_000, idleMs: 720 * 60_000 });
    const d = sessionDeadlines(0, 6_000_000, policy);
    assert.deepEqual(d, { expiresAtMs: 7_200_000, idleExpiresAtMs: 7_800_000 });
    assert.equal(endedBy(d, 7_199_999), null);
    assert.equal(endedBy(d, 7_200_000), 'lifetime');
    assert.equal(endedBy(sessionDeadlines(0, 0, policy), 1_800_000), 'idle');
  });
});

describe('password check gate', () => {
  it('runs at most `max` checks at once, refuses the next with 429 at once, and frees a slot when one ends (even by throwing)', async () => {
    const gate = new PasswordCheckGate(2);
    const releases: (() => void)[] = [];
    const held = () => gate.run(() => new Promise<string>((resolve) => releases.push(() => resolve('done'))));
    const first = held();
    const second = held();
    await assert.rejects(gate.run(async () => 'third'), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.deepEqual([err.status, err.code, err.headers['Retry-After']], [429, 'rate_limit_exceeded', '1']);
      assert.match(err.message, /^too many sign-ins at once/);
      return true;
    });
    releases[0]!();
    assert.equal(await first, 'done');
    await assert.rejects(gate.run(async () => Promise.reject(new Error('scrypt failed'))), /scrypt failed/);
    assert.equal(await gate.run(async () => 'fits again'), 'fits again');
    releases[1]!();
    assert.equal(await second, 'done');
  });
});
