// Session lifetime and idle timeout over real HTTP with the app's manual clock: sliding idle, coalesced writes, settings applied at once, ended rows deleted, streams ended.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { eventually, openStream } from '../webhooks/webhook-harness.js';
import { activeUser, errorOf, PASSWORD, sameOrigin, signIn, type Obj } from './sessions-harness.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('sessions: lifetime and idle timeout', () => {
  let t: TestApp;
  let admin: string;
  const ada = { email: 'ada@example.com', password: PASSWORD };
  before(async () => {
    t = await startTestApp();
    admin = await mintTestKey(t);
    await activeUser(t, admin, ada.email, 'operator');
  });
  afterEach(async () => {
    await setOrg({ session_lifetime_hours: 168, session_idle_minutes: 720 });
  });
  after(async () => {
    await t.close();
  });

  async function setOrg(fields: Obj): Promise<Obj> {
    const res = await t.request('/v1/organization', { method: 'PATCH', headers: bearer(admin, true), body: JSON.stringify(fields) });
    assert.equal(res.status, 200);
    return (await res.json()) as Obj;
  }
  const use = (cookie: string): Promise<Response> => t.request('/v1/jobs', { headers: { Cookie: cookie } });
  const storedLastSeen = async (id: string): Promise<string | undefined> =>
    (await t.deps.db.selectFrom('sessions').select('last_seen_at').where('id', '=', id).executeTakeFirst())?.last_seen_at;

  it('GET and PATCH /v1/organization carry the two settings, with defaults and bounds', async () => {
    const org = (await (await t.request('/v1/organization', { headers: bearer(admin) })).json()) as Obj;
    assert.equal(org.session_lifetime_hours, 168);
    assert.equal(org.session_idle_minutes, 720);
    const patched = await setOrg({ session_lifetime_hours: 8760, session_idle_minutes: 5 });
    assert.deepEqual([patched.session_lifetime_hours, patched.session_idle_minutes], [8760, 5]);
    const bad: [Obj, RegExp][] = [
      [{ session_lifetime_hours: 0 }, /^session_lifetime_hours: must be >= 1/],
      [{ session_lifetime_hours: 8761 }, /^session_lifetime_hours: must be <= 8760/],
      [{ session_idle_minutes: 4 }, /^session_idle_minutes: must be >= 5/],
      [{ session_idle_minutes: 525601 }, /^session_idle_minutes: must be <= 525600/],
      [{ session_idle_minutes: 7.5 }, /^session_idle_minutes: /],
    ];
    for (const [body, message] of bad) {
      const err = await errorOf(await t.request('/v1/organization', { method: 'PATCH', headers: bearer(admin, true), body: JSON.stringify(body) }));
      assert.equal(err.status, 400, JSON.stringify(body));
      assert.match(err.message, message);
    }
  });

  it('the idle timeout slides with use and ends a session left alone', async () => {
    const { cookie, session } = await signIn(t, ada);
    // Three uses 719 minutes apart: far past 720 minutes from sign-in, never 720 without use.
    for (let i = 0; i < 3; i++) {
      t.clock.advance(719 * MINUTE);
      assert.equal((await use(cookie)).status, 200, `use ${i + 1}`);
    }
    const current = (await (await t.request('/v1/sessions/current', { headers: { Cookie: cookie } })).json()) as Obj;
    assert.equal(current.session.idle_expires_at, new Date(t.clock.now() + 720 * MINUTE).toISOString());
    t.clock.advance(720 * MINUTE);
    const res = await use(cookie);
    const err = await errorOf(res);
    assert.deepEqual([err.status, err.code], [401, 'invalid_session']);
    assert.match(err.message, /^your session ended at \S+ after 720 minutes without use; sign in again$/);
    assert.match(res.headers.getSetCookie()[0] ?? '', /^printfarm_session=; .*Max-Age=0/);
    assert.equal(await storedLastSeen(session.id), undefined, 'the ended session is deleted');
  });

  it('writes last use at most once a minute, yet counts idle time from the newest use', async () => {
    await setOrg({ session_idle_minutes: 5 });
    const { cookie, session } = await signIn(t, ada);
    const signedInAt = t.clock.now();
    t.clock.advance(10_000);
    assert.equal((await use(cookie)).status, 200);
    assert.equal(await storedLastSeen(session.id), new Date(signedInAt + 10_000).toISOString(), 'the first use is written');
    t.clock.advance(40_000);
    assert.equal((await use(cookie)).status, 200);
    assert.equal(await storedLastSeen(session.id), new Date(signedInAt + 10_000).toISOString(), 'a use 40 s later is held back');
    // 5 min 20 s after sign-in: past 5 minutes from the stored use, inside 5 minutes from the held-back one.
    t.clock.set(signedInAt + 5 * MINUTE + 20_000);
    assert.equal((await use(cookie)).status, 200);
    assert.equal(await storedLastSeen(session.id), new Date(t.clock.now()).toISOString(), 'written again after a minute');
  });

  it('ends a session at its lifetime however busy it is; Max-Age follows the setting', async () => {
    await setOrg({ session_lifetime_hours: 1 });
    const { cookie, session, res } = await signIn(t, ada);
    assert.match(res.headers.getSetCookie()[0] ?? '', /; Max-Age=3600$/);
    assert.equal(session.expires_at, new Date(t.clock.now() + HOUR).toISOString());
    t.clock.advance(30 * MINUTE);
    assert.equal((await use(cookie)).status, 200);
    t.clock.advance(30 * MINUTE - 1);
    assert.equal((await use(cookie)).status, 200);
    t.clock.advance(1);
    const err = await errorOf(await use(cookie));
    assert.deepEqual([err.status, err.code], [401, 'invalid_session']);
    assert.match(err.message, /^your session expired at \S+ \(sessions last 1 hours from sign-in\); sign in again$/);
  });

  it('lowering either setting applies to existing sessions at once', async () => {
    const long = await signIn(t, ada);
    t.clock.advance(2 * HOUR);
    assert.equal((await use(long.cookie)).status, 200);
    await setOrg({ session_lifetime_hours: 1 });
    assert.equal((await use(long.cookie)).status, 401, 'signed in 2 h ago, lifetime now 1 h');

    await setOrg({ session_lifetime_hours: 168 });
    const idle = await signIn(t, ada);
    t.clock.advance(10 * MINUTE);
    await setOrg({ session_idle_minutes: 5 });
    assert.equal((await use(idle.cookie)).status, 401, 'unused for 10 minutes, idle timeout now 5');
  });

  it('deletes ended sessions when someone signs in', async () => {
    await setOrg({ session_idle_minutes: 5 });
    const stale = await signIn(t, ada);
    const live = await signIn(t, ada);
    t.clock.advance(4 * MINUTE);
    assert.equal((await use(live.cookie)).status, 200);
    t.clock.advance(2 * MINUTE);
    await signIn(t, ada);
    const ids = (await t.deps.db.selectFrom('sessions').select('id').execute()).map((r) => r.id);
    assert.ok(!ids.includes(stale.session.id), 'the session unused for 6 minutes is gone');
    assert.ok(ids.includes(live.session.id), 'the one used 2 minutes ago stays');
  });

  it('an open event stream (a wall screen) keeps its session from going idle', async () => {
    const s = await startTestApp({ events: { sse: { heartbeatMs: 20 } } });
    try {
      const key = await mintTestKey(s);
      await activeUser(s, key, ada.email, 'viewer');
      const { cookie } = await signIn(s, ada);
      const stream = await openStream(s.baseUrl, '/v1/events', { Cookie: cookie });
      try {
        // Three times 11 idle hours with no request, only the stream's heartbeats (every 20 ms): 33 hours, never 12 without use.
        for (let i = 0; i < 3; i++) {
          s.clock.advance(11 * HOUR);
          await new Promise((r) => setTimeout(r, 150));
        }
        assert.equal(stream.messages.length, 0, 'the stream is still open');
        assert.equal((await s.request('/v1/jobs', { headers: { Cookie: cookie } })).status, 200);
      } finally {
        await stream.close();
      }
    } finally {
      await s.close();
    }
  });

  it('the event stream takes the cookie and ends when the session is signed out', async () => {
    const s = await startTestApp({ events: { sse: { heartbeatMs: 30 } } });
    try {
      const key = await mintTestKey(s);
      await activeUser(s, key, ada.email, 'viewer');
      const { cookie } = await signIn(s, ada);
      const stream = await openStream(s.baseUrl, '/v1/events', { Cookie: cookie });
      try {
        assert.equal(stream.status, 200);
        await s.deps.events.recordNow('job.created', { id: 'job_1' });
        await eventually(() => stream.messages.length === 1, 'the event reaches the session stream');
        assert.equal((await s.request('/v1/sessions/current', { method: 'DELETE', headers: sameOrigin(cookie) })).status, 204);
        await stream.ended;
        assert.equal(stream.messages.at(-1)?.event, 'end');
        assert.match(stream.messages.at(-1)?.data ?? '', /unauthorized/);
      } finally {
        await stream.close();
      }
    } finally {
      await s.close();
    }
  });
});
