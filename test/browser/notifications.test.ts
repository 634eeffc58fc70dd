// Settings › Notifications in headless Chromium: the dashboard address, adding a channel (kind fields, events, quiet
// hours), Send test against a stand-in service, the delivery log, a paused channel with its reason and Resume.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startStandIns, TELEGRAM_TOKEN, type StandIns } from '../notifications/service-stand-ins.js';
import { browserSkip, startDashboard, type Dashboard } from './harness.js';

describe('notification settings', { skip: browserSkip }, () => {
  let d: Dashboard;
  let page: Page;
  let s: StandIns;

  before(async () => {
    d = await startDashboard({ notifications: { groupMs: 300, timeoutMs: 3000 } });
    s = await startStandIns();
    page = await d.newPage();
    await d.signInWithKey(page);
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
    await s?.close();
  });

  it('sets the dashboard address, adds an ntfy channel, sends a test and shows it in the delivery log', async () => {
    await page.goto(`${d.url}/#/settings/notifications`);
    await page.getByRole('heading', { name: 'Notifications', level: 2 }).waitFor();
    await page.getByText('No channels yet.').waitFor();
    await page.getByLabel('Dashboard address').fill('https://farm.example.com');
    await page.getByRole('button', { name: 'Save address' }).click();
    await d.until('the address saved', async () => (await d.api('GET', '/v1/notifications/settings')).dashboard_url === 'https://farm.example.com');

    await page.getByRole('button', { name: 'Add channel' }).click();
    const form = page.locator('form.channel-form');
    await form.getByLabel('Kind').selectOption('ntfy');
    await form.getByRole('button', { name: 'Add channel' }).click();
    await form.getByText('Give the channel a name').waitFor();
    await form.getByLabel('Name').fill('Workshop phone');
    await form.getByLabel(/^Server/).fill(`${s.baseUrl}/ntfy`);
    await form.getByLabel(/^Topic/).fill('farm-alerts');
    await form.getByRole('switch', { name: /Quiet hours/ }).check();
    await form.getByLabel('From').fill('23:00');
    await d.checkA11y(page, 'notification channel form');
    await d.shoot(page, 'settings-notifications-form', { fullPage: true });
    await form.getByRole('button', { name: 'Add channel' }).click();

    await d.until('the channel created', async () => (await d.api('GET', '/v1/notifications/channels')).data.length === 1);
    const ch = (await d.api('GET', '/v1/notifications/channels')).data[0];
    assert.equal(ch.kind, 'ntfy');
    assert.deepEqual(ch.settings, { server_url: `${s.baseUrl}/ntfy`, topic: 'farm-alerts' });
    assert.deepEqual(ch.quiet_hours, { start: '23:00', end: '07:00' });
    assert.deepEqual(ch.events, ['job.failed', 'printer.offline', 'printer.error', 'material.empty']);

    const card = page.locator(`li.channel[data-id="${ch.id}"]`);
    await card.getByRole('heading', { name: /Workshop phone/ }).waitFor();
    await card.getByRole('button', { name: 'Send test' }).click();
    await card.getByText('Test sent: the service answered HTTP 200.').waitFor();
    assert.equal(s.of('ntfy').length, 1);
    assert.equal(s.of('ntfy')[0]!.body.click, 'https://farm.example.com/#/');

    await card.getByRole('link', { name: 'Delivery log' }).click();
    const row = card.locator('table.deliveries tbody tr').first();
    await row.waitFor();
    const text = await row.innerText();
    assert.match(text, /Test message from your print farm/);
    assert.match(text, /delivered/i);
    assert.match(text, /HTTP 200/);
    await page.evaluate('window.scrollTo(0, 0)');
    await d.shoot(page, 'settings-notifications', { fullPage: true });
    await d.checkA11y(page, 'notification channels with a delivery log');
    assert.deepEqual(d.pageErrors(page), []);
  });

  it('shows a channel the service refused as paused with the reason; Resume sends the waiting message', async () => {
    const ch = await d.api('POST', '/v1/notifications/channels', {
      kind: 'telegram',
      name: 'Team chat',
      events: ['job.failed'],
      settings: { chat_id: '-100200', api_url: s.baseUrl },
      secrets: { bot_token: '1:wrong-token' },
    });
    await d.server.deps.events.recordNow('job.failed', { id: 'job_1', name: 'gear.gcode', printer_id: 'prt_1', progress: 63 });
    await d.until('the channel paused', async () => (await d.api('GET', `/v1/notifications/channels/${ch.id}`)).status === 'paused');
    await page.goto(`${d.url}/#/settings/notifications/${ch.id}`);
    await page.reload();
    const card = page.locator(`li.channel[data-id="${ch.id}"]`);
    await card.getByText(/Paused: the service refused: telegram answered 401/).waitFor();
    await card.locator('table.deliveries tbody tr').first().getByText('pending').waitFor();
    await card.locator('table.deliveries tbody tr').first().getByText('after Resume').waitFor();
    await d.shoot(page, 'settings-notifications-paused', { fullPage: true });
    await d.checkA11y(page, 'a paused notification channel');

    await d.api('PATCH', `/v1/notifications/channels/${ch.id}`, { secrets: { bot_token: TELEGRAM_TOKEN } });
    await card.getByRole('button', { name: 'Resume' }).click();
    await card.locator('.badge', { hasText: 'working' }).waitFor();
    await d.until('the waiting message sent', () => s.of('telegram').some((r) => String(r.body.text).includes('gear.gcode')));
    await d.until('logged as delivered', async () => (await d.api('GET', `/v1/notifications/channels/${ch.id}/deliveries`)).data[0].status === 'delivered');
    assert.deepEqual(d.pageErrors(page), []);
  });

  it('fits a phone without sideways scrolling', async () => {
    const phone = await d.newPage({ mobile: true });
    await d.signInWithKey(phone);
    await phone.goto(`${d.url}/#/settings/notifications`);
    await phone.locator('li.channel').first().waitFor();
    assert.equal(await phone.evaluate('document.documentElement.scrollWidth'), 390, 'no sideways scrolling');
    await d.checkA11y(phone, 'notifications on a phone');
    assert.deepEqual(d.pageErrors(phone), []);
  });
});
