// A session ended elsewhere (its key revoked, or signed out in another tab) while a page only listens to the live
// stream: the page notices at the stream's next heartbeat and shows the sign-in page, saying why, with no click.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { browserSkip, startDashboard, type Dashboard } from './harness.js';

describe('a session that ends while the page is open', { skip: browserSkip }, () => {
  let d: Dashboard;

  before(async () => {
    // A short heartbeat: the stream checks its session at each one.
    d = await startDashboard({ printers: 1, heartbeatMs: 300 });
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
  });

  it('a wall screen signed in with a key returns to sign-in when the key is revoked', async () => {
    const key = await d.api<{ id: string; key: string }>('POST', '/v1/api-keys', { name: 'wall screen', scopes: ['printers:read', 'jobs:read'] });
    const page = await d.newPage();
    await d.signInWithKey(page, key.key);
    await page.goto(`${d.url}/#/wall`);
    await page.locator('article.printer-card').first().waitFor();
    // A printer update racing the revocation may fetch with the dead key: that 401 is how a page learns it, not a fault.
    d.expectAnswers({ status: 401, path: /^\/v1\// });
    await d.api('DELETE', `/v1/api-keys/${key.id}`);
    // No request from the page but its live stream: the sign-in page comes back by itself, with the reason.
    await page.locator('#signin-api-key').waitFor({ timeout: 10_000 });
    assert.match(await page.locator('body').innerText(), /sign in again/i);
    assert.deepEqual(d.pageErrors(page), []);
  });

  it('signing out in one tab ends the other tab of the same session', async () => {
    const first = await d.newPage();
    await d.signInWithKey(first);
    const second = await first.context().newPage();
    await second.goto(`${d.url}/#/`);
    await second.locator('#sign-out').waitFor();
    // The other tab may be fetching a printer the live stream announced when the cookie goes: its 401 ends that tab too.
    d.expectAnswers({ status: 401, path: /^\/v1\// });
    await first.locator('#sign-out').click();
    await first.locator('#signin-api-key').waitFor();
    await second.locator('#signin-api-key').waitFor({ timeout: 10_000 });
  });
});
