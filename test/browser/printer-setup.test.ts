// Adding a printer from the farm page, a bad connection URL explained with the input kept, changing and removing it, in headless Chromium.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSkip, startDashboard, type Dashboard } from './harness.js';

describe('adding, changing and removing a printer', { skip: browserSkip }, () => {
  let d: Dashboard;
  let page: Page;
  let newId = '';

  before(async () => {
    d = await startDashboard({ printers: 0 });
    page = await d.newPage();
    await d.signInWithKey(page);
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
  });

  it('an empty farm says how to add a printer; the form explains a bad URL and keeps what was typed', async () => {
    await page.locator('.empty').waitFor();
    assert.match(await page.locator('.empty').innerText(), /No printers yet/);
    await page.getByRole('link', { name: 'Add printer' }).click();
    await page.getByRole('heading', { name: 'Add a printer' }).waitFor();
    // No USB printer on this machine: the port list says so (pseudo-terminals never appear).
    await page.getByText('No USB printer is plugged in').waitFor();
    await page.getByLabel('Name').fill('Bench MK3');
    await page.getByLabel('Connection URL').fill('http://printer.local');
    d.expectAnswers({ status: 400, path: '/v1/printers' });
    await page.getByLabel('Group').fill('bench');
    await page.getByLabel('Tags').fill('pla, small');
    await page.getByRole('button', { name: 'Add printer' }).click();
    const error = page.locator('.note.error');
    await error.waitFor();
    assert.match(await error.innerText(), /connection_url/);
    assert.match(await error.innerText(), /Correct that value and try again; nothing was changed/);
    assert.equal(await page.getByLabel('Name').inputValue(), 'Bench MK3', 'the form keeps its input');
    assert.equal((await d.api<{ data: unknown[] }>('GET', '/v1/printers')).data.length, 0, 'nothing was created');
    await d.shoot(page, 'add-printer');
    await d.checkA11y(page, 'add-printer');
  });

  it('adds the printer, which connects and shows on its page and the farm grid', async () => {
    await page.getByLabel('Connection URL').fill('sim://bench-mk3?speed=20');
    await page.getByLabel('Material type').fill('PETG');
    await page.getByLabel('Average power while printing (W)').fill('120');
    await page.getByRole('button', { name: 'Add printer' }).click();
    await page.waitForURL(/#\/printers\/prt_/);
    newId = decodeURIComponent(page.url().split('#/printers/')[1] ?? '');
    const p = await d.api<{ name: string; group: string; tags: string[]; material_type: string; power_watts: number }>('GET', `/v1/printers/${newId}`);
    assert.deepEqual([p.name, p.group, p.tags, p.material_type, p.power_watts], ['Bench MK3', 'bench', ['pla', 'small'], 'PETG', 120]);
    await d.until('the new printer is online', async () => (await d.api<{ status: string }>('GET', `/v1/printers/${newId}`)).status === 'idle');
    await page.goto(`${d.url}/#/`);
    await page.locator(`article.printer-card[data-printer-id="${newId}"]`).waitFor();
  });

  it('changes only what was edited, clears an emptied field, then removes the printer after confirmation', async () => {
    await page.goto(`${d.url}/#/printers/${newId}`);
    await page.getByRole('link', { name: 'Printer settings' }).click();
    await page.getByRole('heading', { name: 'Settings of Bench MK3' }).waitFor();
    assert.equal(await page.getByLabel('Tags').inputValue(), 'pla, small');
    await page.getByLabel('Material type').fill('');
    await page.getByLabel('Model').fill('Original Prusa MK3S+');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    const p = await d.api<{ model: string; material_type: string | null; name: string }>('GET', `/v1/printers/${newId}`);
    assert.deepEqual([p.model, p.material_type, p.name], ['Original Prusa MK3S+', null, 'Bench MK3']);
    await d.shoot(page, 'printer-settings');
    await d.checkA11y(page, 'printer-settings');

    // The farm page it lands on may still hear the removed printer's last events and ask for it once: that 404 is
    // how the grid learns it is gone (farm-data.ts refetchPrinter), not a fault.
    d.expectAnswers({ status: 404, path: `/v1/printers/${newId}` });
    await page.getByRole('button', { name: 'Remove printer' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Remove Bench MK3\?/);
    await dialog.getByRole('button', { name: 'Remove printer' }).click();
    await page.waitForURL(/#\/$/);
    assert.equal((await d.apiRaw('GET', `/v1/printers/${newId}`)).status, 404);
    assert.deepEqual(await d.pageErrors(page), []);
  });
});
