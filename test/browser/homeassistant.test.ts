// Settings › Home Assistant in headless Chromium against a real Mosquitto: set the broker with its password, see the
// farm connect (and come online on the broker, read with mosquitto_sub), the password never shown, turn it off.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSkip, startDashboard, type Dashboard } from './harness.js';
import { brokerMissing, PASSWORD, startBroker, USER, Watcher, type TestBroker } from '../homeassistant/broker-harness.js';

describe('settings › Home Assistant', { skip: browserSkip || brokerMissing }, () => {
  let d: Dashboard;
  let page: Page;
  let broker: TestBroker;

  before(async () => {
    broker = await startBroker({ tls: false });
    d = await startDashboard();
    page = await d.newPage();
    await d.signInWithKey(page);
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
    await broker?.close();
  });

  it('sets the broker, shows the connection, keeps the password hidden, and turns it off', async () => {
    await page.goto(`${d.url}/#/settings/homeassistant`);
    await page.getByRole('heading', { name: 'Home Assistant', level: 2 }).waitFor();
    await page.getByText('Not publishing: no broker is set.').waitFor();

    await page.getByLabel('Broker URL').fill('http://wrong');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.field.invalid .field-error', { hasText: 'Expected mqtt://' }).waitFor();

    const watch = new Watcher(broker, ['printfarm/node/+/availability']);
    try {
      await page.getByLabel('Broker URL').fill(`mqtt://${USER}@127.0.0.1:${broker.port}`);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('.note.success', { hasText: 'Saved.' }).waitFor();
      await watch.until('the farm online on the broker', (w) => w.messages.some((m) => m.payload === 'online'));
      assert.equal(await page.getByLabel('Password').inputValue(), '', 'the password is not kept in the form');
      await page.getByText('A password is stored (it is never shown).').waitFor();
      for (let i = 0; i < 50 && !(await page.locator('.ha-connection .badge', { hasText: 'connected' }).filter({ hasNotText: 'not' }).count()); i++) {
        await page.getByRole('button', { name: 'Refresh' }).click();
        await page.waitForTimeout(100);
      }
      await page.locator('.ha-connection .badge', { hasText: /^. connected$/ }).waitFor();
      assert.ok(!(await page.content()).includes(PASSWORD));
      await d.shoot(page, 'settings-homeassistant');
      await d.checkA11y(page, 'settings home assistant connected');

      await page.getByRole('button', { name: 'Turn off' }).click();
      await page.locator('.note.success', { hasText: 'Publishing turned off' }).waitFor();
      await page.getByText('Not publishing: no broker is set.').waitFor();
      await watch.until('the farm offline on the broker', (w) => w.messages.at(-1)?.payload === 'offline');
    } finally {
      watch.close();
    }
  });
});
