// Signing in and out in headless Chromium: API key (good and bad), invitation acceptance, email and password, sign-out.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSkip, startDashboard, type Dashboard } from './harness.js';

describe('dashboard sign-in', { skip: browserSkip }, () => {
  let d: Dashboard;
  let keyName: string;

  before(async () => {
    d = await startDashboard();
    keyName = (await d.api<{ name: string }>('GET', '/v1/api-keys/current')).name;
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
  });

  const signedOutPage = async (page: Page) => {
    await page.locator('#signin-key').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#sign-out').count(), 0);
  };

  it('shows both sign-in forms, accessible, and explains a wrong key keeping what was typed', async () => {
    const page = await d.newPage();
    await page.goto(d.url);
    await signedOutPage(page);
    assert.equal(await page.title(), 'printfarm');
    await d.checkA11y(page, 'sign-in');
    await d.shoot(page, 'sign-in');

    const wrong = `svc_live_${'x'.repeat(40)}`;
    d.expectAnswers({ status: 401, path: '/v1/sessions' });
    await page.locator('#signin-api-key').fill(wrong);
    await page.locator('#signin-key button[type=submit]').click();
    const error = page.locator('#signin-key .note.error');
    await error.waitFor({ state: 'visible' });
    assert.match(await error.innerText(), /try again/i);
    assert.equal(await page.locator('#signin-api-key').inputValue(), wrong, 'the form keeps its input');
    assert.equal(await page.locator('#signin-api-key').isEnabled(), true);
    await d.checkA11y(page, 'sign-in with an error');
    assert.deepEqual(d.pageErrors(page), []);
  });

  it('signs in with the admin key, names the key in the bar, and survives a reload', async () => {
    const page = await d.newPage();
    await d.signInWithKey(page);
    assert.match(await page.locator('.topbar .who').innerText(), new RegExp(keyName));
    assert.equal(await page.locator('a.skip-link').getAttribute('href'), '#main');
    // The live stream connects with the session cookie alone.
    await page.locator('.live.open').waitFor();
    await page.reload();
    await page.locator('#sign-out').waitFor({ state: 'visible' });
    assert.deepEqual(d.pageErrors(page), []);
  });

  it('says "page not found" for an unknown address, with a way home', async () => {
    const page = await d.newPage();
    await d.signInWithKey(page);
    await page.goto(`${d.url}/#/no-such-page`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await page.getByRole('link', { name: 'Go to the farm overview' }).click();
    assert.equal(new URL(page.url()).hash, '#/');
  });

  it('the skip link moves focus to the page content, and the phone layout folds the navigation into a menu', async () => {
    const page = await d.newPage({ mobile: true });
    await d.signInWithKey(page);
    const nav = page.locator('#main-nav');
    assert.equal(await nav.isVisible(), false, 'the navigation is folded on a phone');
    const toggle = page.locator('.menu-toggle');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    await nav.waitFor({ state: 'visible' });
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    await d.checkA11y(page, 'menu open on a phone');
    await d.shoot(page, 'menu-open');

    await page.keyboard.press('Tab');
    await page.reload();
    await page.locator('#sign-out').waitFor({ state: 'visible' });
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.className'), 'skip-link');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate('document.activeElement.id'), 'main');
    assert.equal(new URL(page.url()).hash, '', 'the skip link leaves the route alone');
  });

  it('works from the keyboard alone: sign in, follow a navigation link, focus lands on the new page', async () => {
    const page = await d.newPage();
    await page.goto(d.url);
    await page.locator('#signin-api-key').waitFor();
    await page.locator('#signin-api-key').focus();
    await page.keyboard.type(d.adminKey);
    await page.keyboard.press('Enter');
    await page.locator('#sign-out').waitFor({ state: 'visible' });
    // Tab from the top of the page to the Queue link and follow it with Enter.
    await page.locator('body').focus();
    let onQueue = false;
    for (let i = 0; i < 12 && !onQueue; i++) {
      await page.keyboard.press('Tab');
      onQueue = (await page.evaluate('document.activeElement.textContent.trim()')) === 'Queue';
    }
    assert.ok(onQueue, 'the Queue link is reachable with Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Queue', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).hash, '#/queue');
    assert.equal(await page.evaluate('document.activeElement.id'), 'main', 'focus moves to the new page content');
    assert.deepEqual(d.pageErrors(page), []);
  });

  it('signs out: the sign-in page comes back and stays after a reload', async () => {
    const page = await d.newPage();
    await d.signInWithKey(page);
    await page.locator('#sign-out').click();
    await signedOutPage(page);
    await page.reload();
    await signedOutPage(page);
    const current = await page.evaluate('fetch("/v1/sessions/current").then((r) => r.status)');
    assert.equal(current, 401);
  });

  it('accepts an invitation on its page, signs in with the new password, and signs in again with email and password', async () => {
    const invited = await d.api<{ email: string; invite_token: string }>('POST', '/v1/users/invite', {
      email: 'ada@example.com',
      role: 'operator',
      name: 'Ada Lovelace',
    });
    const password = 'correct horse battery staple';
    const page = await d.newPage();
    await page.goto(`${d.url}/#/accept-invite?token=${encodeURIComponent(invited.invite_token)}`);
    await page.locator('#accept-invite').waitFor();
    await d.checkA11y(page, 'accept-invite');
    await d.shoot(page, 'accept-invite');

    await page.locator('#invite-password').fill(password);
    await page.locator('#invite-repeat').fill(`${password}!`);
    await page.locator('#accept-invite button[type=submit]').click();
    assert.match(await page.locator('#accept-invite .note.error').innerText(), /differ/);
    assert.equal(await page.locator('#invite-password').inputValue(), password, 'kept');

    await page.locator('#invite-repeat').fill(password);
    await page.locator('#accept-invite button[type=submit]').click();
    await page.locator('#sign-out').waitFor({ state: 'visible' });
    assert.equal(new URL(page.url()).hash, '#/');
    assert.equal(await page.locator('.topbar .who').innerText(), 'Ada Lovelace');
    assert.equal((await d.api<{ data: Array<{ status: string }> }>('GET', '/v1/users?email=ada@example.com')).data[0]!.status, 'active');

    await page.locator('#sign-out').click();
    await signedOutPage(page);
    await page.locator('#signin-email').fill(invited.email);
    await page.locator('#signin-pass').fill('wrong password, surely');
    d.expectAnswers({ status: 401, path: '/v1/sessions' });
    await page.locator('#signin-password button[type=submit]').click();
    const error = page.locator('#signin-password .note.error');
    await error.waitFor({ state: 'visible' });
    assert.match(await error.innerText(), /email and password/i);
    assert.equal(await page.locator('#signin-email').inputValue(), invited.email, 'the email stays');

    await page.locator('#signin-pass').fill(password);
    await page.locator('#signin-password button[type=submit]').click();
    await page.locator('#sign-out').waitFor({ state: 'visible' });
    assert.equal(await page.locator('.topbar .who').innerText(), 'Ada Lovelace');
    assert.deepEqual(d.pageErrors(page), []);
  });

  it('explains an invitation link without a token, and a used token', async () => {
    const page = await d.newPage();
    await page.goto(`${d.url}/#/accept-invite`);
    assert.match(await page.locator('.note.error').innerText(), /no invitation token/);
    await page.goto(`${d.url}/#/accept-invite?token=inv_${'A'.repeat(40)}`);
    d.expectAnswers({ status: 400, path: '/v1/users/accept-invite' });
    await page.locator('#invite-password').fill('another long password');
    await page.locator('#invite-repeat').fill('another long password');
    await page.locator('#accept-invite button[type=submit]').click();
    const error = page.locator('#accept-invite .note.error');
    await error.waitFor({ state: 'visible' });
    assert.match(await error.innerText(), /token/i);
    assert.equal(await page.locator('#invite-password').inputValue(), 'another long password');
  });
});
