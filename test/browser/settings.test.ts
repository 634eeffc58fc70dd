// The Settings pages in headless Chromium: organization form, invitations, API keys (shown once, copy, revoke), webhooks.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { browserSkip, startDashboard, type Dashboard } from './harness.js';

interface Received {
  type: string;
  eventId: string;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that records each POST and answers 204. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ type: String(req.headers['x-event-type']), eventId: String(req.headers['x-event-id']), body: Buffer.concat(chunks).toString() });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((r) => server.close(() => r())) };
}

describe('settings pages', { skip: browserSkip }, () => {
  let d: Dashboard;
  let page: Page;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    d = await startDashboard();
    receiver = await startReceiver();
    page = await d.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.url });
    await d.signInWithKey(page);
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
    await receiver?.close();
  });

  it('saves organization settings, and a bad value is explained with the input kept', async () => {
    await page.goto(`${d.url}/#/settings`);
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Organization', level: 2 }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Organization' }).getAttribute('aria-current'), 'page');
    await page.getByLabel('Name', { exact: true }).fill('Basement farm');
    await page.getByLabel('Machine cost per print hour').fill('1.5');
    await page.getByLabel('Power budget (W)').fill('900');
    await page.getByLabel('Currency').fill('usd');
    await page.getByLabel('Hosts jobs may download files from').fill('NAS.lan\n10.0.0.0/8');
    await page.getByLabel('Disk space kept for the database (MB)').fill('500');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.note.success', { hasText: 'Saved.' }).waitFor();
    const org = await d.api('GET', '/v1/organization');
    assert.equal(org.name, 'Basement farm');
    assert.equal(org.hourly_rate, 1.5);
    assert.equal(org.power_budget_watts, 900);
    assert.equal(org.currency, 'USD');
    assert.deepEqual(org.file_url_hosts, ['nas.lan', '10.0.0.0/8']);
    assert.equal(org.storage_reserve_mb, 500);
    assert.equal(await page.getByLabel('Currency').inputValue(), 'USD');

    await page.getByLabel('Energy cost per kWh').fill('5000');
    d.expectAnswers({ status: 400, path: '/v1/organization' });
    await page.getByLabel('Name', { exact: true }).fill('Basement farm 2');
    await page.getByRole('button', { name: 'Save' }).click();
    const fieldError = page.locator('.field.invalid .field-error');
    await fieldError.waitFor();
    assert.match(await fieldError.innerText(), /price of one kWh, a number from 0 to 1,000.*must be <= 1000/);
    await page.locator('.org-form .note.error').waitFor();
    assert.equal(await page.getByLabel('Energy cost per kWh').inputValue(), '5000', 'the bad value stays to be corrected');
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Basement farm 2', 'other input stays too');
    assert.equal(await page.getByLabel('Energy cost per kWh').getAttribute('aria-invalid'), 'true');
    assert.equal((await d.api('GET', '/v1/organization')).name, 'Basement farm', 'nothing was saved');
    await page.evaluate('window.scrollTo(0, 0)');
    await d.shoot(page, 'settings-organization', { fullPage: true });
    await d.checkA11y(page, 'settings organization with an error');
    await page.getByLabel('Energy cost per kWh').fill('0.3');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.note.success', { hasText: 'Saved.' }).waitFor();
    assert.equal((await d.api('GET', '/v1/organization')).energy_cost_per_kwh, 0.3);
    // Emptied, the reserve is the default again.
    await page.getByLabel('Disk space kept for the database (MB)').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.note.success', { hasText: 'Saved.' }).waitFor();
    assert.equal((await d.api('GET', '/v1/organization')).storage_reserve_mb, null);
  });

  it('invites a user and shows the invitation link once', async () => {
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users', level: 2 }).waitFor();
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Name (optional)').fill('Ada');
    await page.getByLabel('Role').selectOption('operator');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    const link = page.getByLabel('Invitation link');
    await link.waitFor();
    const value = await link.inputValue();
    assert.match(value, new RegExp(`^${d.url.replace(/[.]/g, '\\.')}/#/accept-invite\\?token=inv_[A-Za-z0-9]+$`));
    assert.equal(await link.isEditable(), false, 'read-only');
    await page.locator('table.users tbody tr', { hasText: 'ada@example.com' }).getByText('invited').waitFor();
    const users = await d.api('GET', '/v1/users?email=ada@example.com');
    assert.equal(users.data[0].status, 'invited');
    assert.equal(users.data[0].role, 'operator');
    // The token in the link is the real one: it accepts the invitation.
    const token = new URL(value.replace('/#/', '/')).searchParams.get('token');
    const accepted = await d.apiRaw('POST', '/v1/users/accept-invite', { token, password: 'correct horse battery staple' });
    assert.equal(accepted.status, 200);
    await d.shoot(page, 'settings-users');
    await d.checkA11y(page, 'settings users');
  });

  it('creates a key with chosen scopes, shows it once with Copy, and revokes it', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 2 }).waitFor();
    await page.getByLabel('What is it for?').fill('label printer');
    const picker = page.locator('fieldset#key-scopes');
    await picker.getByLabel(/read printers:read/).check();
    await picker.getByLabel(/all jobs:\*/).check();
    // A wildcard covers its members: they show ticked and cannot be unticked alone.
    assert.equal(await picker.getByLabel(/write jobs:write/).isChecked(), true);
    assert.equal(await picker.getByLabel(/write jobs:write/).isDisabled(), true);
    await page.getByRole('button', { name: 'Create key' }).click();
    const field = page.getByLabel('API key', { exact: true });
    await field.waitFor();
    const key = await field.inputValue();
    assert.match(key, /^svc_live_[A-Za-z0-9]{40}$/);
    await page.getByText('you will not see it again').waitFor();
    await page.locator('.key-once').getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), key);
    await page.evaluate('window.scrollTo(0, 0)');
    await d.shoot(page, 'settings-keys', { fullPage: true });
    await d.checkA11y(page, 'settings keys with a new key');

    const works = await fetch(`${d.url}/v1/auth/test`, { headers: { Authorization: `Bearer ${key}` } });
    assert.equal(works.status, 200);
    assert.deepEqual(((await works.json()) as { scopes: string[] }).scopes.sort(), ['jobs:*', 'printers:read']);

    await page.locator('.key-once').getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await page.locator('.key-once').count(), 0);
    assert.equal(await page.locator(`input[value="${key}"]`).count(), 0, 'the key is not on the page any more');

    const row = page.locator('table.keys tbody tr', { hasText: 'label printer' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.locator('dialog.confirm[open]');
    await dialog.getByText('refused from now on').waitFor();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await row.getByText('revoked').waitFor();
    const refused = await fetch(`${d.url}/v1/auth/test`, { headers: { Authorization: `Bearer ${key}` } });
    assert.equal(refused.status, 401);
  });

  it('rolls a key: the new one is shown once and the old one keeps working for now', async () => {
    const created = await d.api('POST', '/v1/api-keys', { name: 'nightly export', scopes: ['analytics:read'] });
    await page.reload();
    const row = page.locator('table.keys tbody tr', { hasText: 'nightly export' });
    await row.getByRole('button', { name: 'Roll' }).click();
    const dialog = page.locator('dialog.confirm[open]');
    await dialog.getByText('keeps working for 24 hours').waitFor();
    await dialog.getByRole('button', { name: 'Roll key' }).click();
    const shown = page.locator('.key-once');
    await shown.getByText('keeps working for 24 hours').waitFor();
    const fresh = await shown.getByLabel('API key', { exact: true }).inputValue();
    assert.notEqual(fresh, created.key);
    for (const k of [created.key, fresh]) {
      const res = await fetch(`${d.url}/v1/auth/test`, { headers: { Authorization: `Bearer ${k}` } });
      assert.equal(res.status, 200);
    }
    await page.locator('table.keys tbody tr', { hasText: 'nightly export' }).filter({ hasText: /expiring/ }).waitFor();
  });

  it('adds a webhook, sends a test to a receiver, and shows and retries the delivery', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 2 }).waitFor();
    await page.getByText('No webhooks yet.').waitFor();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const form = page.locator('form.webhook-form');
    await form.getByLabel('Receiver URL').fill(receiver.url);
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await form.getByText('Choose at least one event.').waitFor();
    await form.getByLabel(/all job\.\*/).check();
    await form.getByLabel(/low material\.low/).check();
    await d.checkA11y(page, 'settings webhook form');
    await form.getByRole('button', { name: 'Add webhook' }).click();
    const secret = page.getByLabel('Signing secret');
    await secret.waitFor();
    assert.match(await secret.inputValue(), /^whsec_/);
    const hooks = await d.api('GET', '/v1/webhooks');
    assert.equal(hooks.data.length, 1);
    assert.deepEqual(hooks.data[0].events, ['job.*', 'material.low']);
    const hookId = hooks.data[0].id as string;

    const card = page.locator(`li.webhook[data-id="${hookId}"]`);
    await card.getByRole('button', { name: 'Send test' }).click();
    await card.getByText(/Test delivered: the receiver answered 204/).waitFor();
    assert.equal(receiver.received.length, 1);
    assert.equal(receiver.received[0]?.type, 'webhook.test');

    await card.getByRole('link', { name: 'Deliveries' }).click();
    const delivery = card.locator('table.deliveries tbody tr').first();
    await delivery.waitFor();
    const text = await delivery.innerText();
    assert.match(text, /webhook\.test/);
    assert.match(text, /delivered/i);
    assert.match(text, /204/);
    await page.evaluate('window.scrollTo(0, 0)');
    await d.shoot(page, 'settings-webhooks', { fullPage: true });
    await d.checkA11y(page, 'settings webhooks with a delivery log');

    await delivery.getByRole('button', { name: /Retry/ }).click();
    await d.until('the retried delivery to arrive', () => receiver.received.length === 2);
    assert.equal(receiver.received[1]?.eventId, receiver.received[0]?.eventId, 'the same event again');
    await card.locator('table.deliveries tbody tr').first().locator('td:nth-child(4)', { hasText: '2' }).waitFor();

    // Edit: switch it off; the card says so in words.
    await card.getByRole('button', { name: 'Edit' }).click();
    await card.getByRole('switch', { name: /Enabled/ }).uncheck();
    await card.getByRole('button', { name: 'Save webhook' }).click();
    await card.locator('.badge', { hasText: /^\W*disabled$/ }).waitFor();
    assert.equal((await d.api('GET', `/v1/webhooks/${hookId}`)).enabled, false);

    await card.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.locator('dialog.confirm[open]');
    await dialog.getByText('gets no more events').waitFor();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No webhooks yet.').waitFor();
    assert.equal((await d.apiRaw('GET', `/v1/webhooks/${hookId}`)).status, 404);
    assert.deepEqual(d.pageErrors(page), []);
  });

  it('fits a phone: every part without sideways scrolling', async () => {
    const phone = await d.newPage({ mobile: true });
    await d.signInWithKey(phone);
    const loaded: Record<string, string> = { organization: 'form.org-form', users: 'table.users', keys: 'table.keys', webhooks: '.webhooks-settings .empty' };
    for (const [part, selector] of Object.entries(loaded)) {
      await phone.goto(`${d.url}/#/settings/${part}`);
      await phone.locator(selector).first().waitFor();
      assert.equal(await phone.evaluate('document.documentElement.scrollWidth'), 390, `${part} fits 390 px`);
      await d.checkA11y(phone, `settings ${part} on a phone`);
    }
    assert.deepEqual(d.pageErrors(phone), []);
  });

  it('shows a sentence instead of admin controls to a session without admin:*', async () => {
    const limited = await d.api('POST', '/v1/api-keys', { name: 'viewer', scopes: ['printers:read', 'analytics:read'] });
    const other = await d.newPage({ mobile: true });
    await d.signInWithKey(other, limited.key);
    await other.goto(`${d.url}/#/settings/keys`);
    await other.getByText(/Managing API keys needs the admin:\* permission/).waitFor();
    assert.equal(await other.getByRole('button', { name: 'Create key' }).count(), 0);
    await other.goto(`${d.url}/#/settings/organization`);
    await other.getByText(/Changing the organization settings needs/).waitFor();
    assert.equal(await other.getByRole('button', { name: 'Save' }).count(), 0);
    await d.checkA11y(other, 'settings without admin');
    assert.deepEqual(d.pageErrors(other), []);
  });
});
