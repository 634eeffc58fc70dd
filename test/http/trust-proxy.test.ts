// The failed-auth block per client address, with and without PRINTFARM_TRUST_PROXY: which address counts, and spoofing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FAILED_AUTH_LIMIT } from '../../src/http/middleware/failed-auth-guard.middleware.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** A request with a wrong key, as a reverse proxy forwards it: the client's own X-Forwarded-For, then the proxy's entry. */
function failFrom(t: TestApp, forwardedFor: string): Promise<Response> {
  return t.request('/v1/auth/test', {
    headers: { Authorization: `Bearer svc_live_${'x'.repeat(40)}`, 'X-Forwarded-For': forwardedFor },
  });
}

async function useUpFailures(t: TestApp, addressOf: (i: number) => string): Promise<void> {
  for (let i = 0; i < FAILED_AUTH_LIMIT; i++) assert.equal((await failFrom(t, addressOf(i))).status, 401);
}

const messageOf = async (res: Response): Promise<string> => ((await res.json()) as { error: { message: string } }).error.message;

describe('failed-auth block behind a reverse proxy', { concurrency: true }, () => {
  it('PRINTFARM_TRUST_PROXY=1: blocks the forwarded client, whatever it puts in front of the proxy entry', async (t) => {
    const app = await startTestApp({ trustProxy: true });
    t.after(() => app.close());
    // A guesser rotating a fake first entry; the proxy appends the real address, which is the one that counts.
    await useUpFailures(app, (i) => `10.9.${i}.1, 203.0.113.7`);
    const blocked = await failFrom(app, '10.99.99.99, 203.0.113.7');
    assert.equal(blocked.status, 429);
    assert.match(await messageOf(blocked), /from 203\.0\.113\.7;/);
    // Another client behind the same proxy (same socket address 127.0.0.1) is not punished for it.
    assert.equal((await failFrom(app, '198.51.100.9')).status, 401);
  });

  it('without it: X-Forwarded-For is ignored and every client of the proxy shares the proxy address', async (t) => {
    const app = await startTestApp();
    t.after(() => app.close());
    await useUpFailures(app, (i) => `203.0.113.${i}`);
    const blocked = await failFrom(app, '198.51.100.9');
    assert.equal(blocked.status, 429);
    assert.match(await messageOf(blocked), /from (::ffff:)?127\.0\.0\.1;/);
  });
});
