// Network printers in headless Chromium against the Moonraker and OctoPrint stand-ins on 127.0.0.1: adding each kind
// through the picker, a refused key shown in words and fixed in the settings, a print started on the printer shown live,
// and a PrusaLink address where nothing answers.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startMoonrakerStandIn, type MoonrakerStandIn } from '../../src/simulator/moonraker/moonraker-standin.js';
import { startOctoPrintStandIn, type OctoPrintStandIn } from '../../src/simulator/octoprint/octoprint-standin.js';
import { freeTcpPort } from '../helpers/free-tcp-port.js';
import { browserSkip, startDashboard, testGcode, type Dashboard } from './harness.js';

const MOONRAKER_KEY = 'moonraker-key-0123456789';
const OCTOPRINT_KEY = 'octoprint-key-0123456789';

describe('network printers on the dashboard', { skip: browserSkip }, () => {
  let d: Dashboard;
  let page: Page;
  let moonraker: MoonrakerStandIn;
  let octoprint: OctoPrintStandIn;
  const ids = { moonraker: '', octoprint: '', prusalink: '' };

  const record = (id: string) => d.api<Record<string, any>>('GET', `/v1/printers/${id}`);
  const card = (id: string) => page.locator(`article.printer-card[data-printer-id="${id}"]`);
  const textOf = async (selector: string) => page.locator(selector).innerText();
  /** Submits the add form and returns the new printer's id from the page it lands on. */
  const addAndLand = async () => {
    await page.getByRole('button', { name: 'Add printer' }).click();
    await page.waitForURL(/#\/printers\/prt_/);
    return decodeURIComponent(page.url().split('#/printers/')[1] ?? '');
  };
  const openAddForm = async () => {
    await page.goto(`${d.url}/#/add-printer`);
    await page.getByRole('heading', { name: 'Add a printer' }).waitFor();
  };

  before(async () => {
    moonraker = await startMoonrakerStandIn({ host: '127.0.0.1', apiKey: MOONRAKER_KEY, simulator: { speed: 20 }, statusIntervalMs: 100 });
    octoprint = await startOctoPrintStandIn({ host: '127.0.0.1', port: 0, apiKey: OCTOPRINT_KEY, simulator: { speed: 20 }, pushIntervalMs: 200 });
    d = await startDashboard({ printers: 0 });
    page = await d.newPage();
    await d.signInWithKey(page);
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
    await moonraker?.close();
    await octoprint?.close();
  });

  it('the picker explains each kind’s URL and key, builds the URL from the address, and a refused URL is shown at its field', async () => {
    await openAddForm();
    // USB stays the default with its port list.
    assert.equal(await page.getByLabel('USB / serial').isChecked(), true);
    await page.getByText('No USB printer is plugged in').waitFor();

    await page.getByLabel('PrusaLink').check();
    assert.match(await textOf('#printer-connection_url-hint'), /prusalink:\/\/HOST\[:PORT\].*port 80.*443 with HTTPS.*fingerprint/);
    await page.getByLabel('user:password or API key').waitFor();
    await page.getByLabel('OctoPrint').check();
    assert.match(await textOf('#printer-connection_url-hint'), /octoprint:\/\/HOST\[:PORT\]\[\/PATH\]/);
    await page.getByLabel('Path prefix').waitFor();
    await page.getByLabel('Moonraker (Klipper)').check();
    assert.match(await textOf('#printer-connection_url-hint'), /7125 unless given \(7130 with HTTPS\).*\?fingerprint=/);
    assert.equal(await page.getByLabel('API key').count(), 1);
    // mDNS is off on test servers: the list says so instead of searching.
    await page.getByText('does not look for printers on the network').waitFor();

    await page.getByLabel('Name').fill('Voron');
    await page.getByLabel('Host or IP address').fill('127.0.0.1');
    await page.getByLabel('Port', { exact: true }).fill(String(moonraker.port));
    assert.equal(await page.getByLabel('Connection URL').inputValue(), `moonraker://127.0.0.1:${moonraker.port}`);
    await page.getByLabel('Use HTTPS').check();
    await page.getByLabel('Certificate fingerprint (SHA-256)').fill('abc');
    assert.equal(await page.getByLabel('Connection URL').inputValue(), `moonraker+https://127.0.0.1:${moonraker.port}?fingerprint=abc`);
    await page.getByLabel('API key').fill(MOONRAKER_KEY);

    d.expectAnswers({ status: 400, path: '/v1/printers' });
    await page.getByRole('button', { name: 'Add printer' }).click();
    const error = page.locator('.field:has(#printer-connection_url) + .note.error');
    await error.waitFor();
    assert.match(await error.innerText(), /fingerprint must be the certificate's SHA-256: 64 hex digits/);
    assert.equal(await page.getByLabel('Name').inputValue(), 'Voron', 'the form keeps its input');
    assert.equal(await page.getByLabel('API key').inputValue(), MOONRAKER_KEY, 'the key is kept too');
    assert.equal((await d.api<{ data: unknown[] }>('GET', '/v1/printers')).data.length, 0, 'nothing was created');
    await d.shoot(page, 'network-add-picker', { fullPage: true });
    await d.checkA11y(page, 'network-add-picker');
  });

  it('adds the Moonraker printer, which connects and shows idle with its kind on its page and the farm', async () => {
    await page.getByLabel('Use HTTPS').uncheck();
    assert.equal(await page.getByLabel('Connection URL').inputValue(), `moonraker://127.0.0.1:${moonraker.port}`);
    ids.moonraker = await addAndLand();
    const p = await record(ids.moonraker);
    assert.deepEqual([p.kind, p.connection_url, p.has_api_key], ['moonraker', `moonraker://127.0.0.1:${moonraker.port}`, true]);
    await d.until('the Moonraker printer to be idle', async () => (await record(ids.moonraker)).status === 'idle');
    await d.until('the page to show it idle', async () => /idle/i.test(await textOf('.printer-head .badge')));
    assert.equal(await textOf('.printer-head .kind-badge'), 'Moonraker (Klipper)');
    assert.match(await textOf('.printer-connection'), /API key\s*a key is stored/);

    await page.goto(`${d.url}/#/`);
    await card(ids.moonraker).waitFor();
    assert.match(await card(ids.moonraker).locator('.kind-badge').innerText(), /Moonraker \(Klipper\)/);
    assert.match(await card(ids.moonraker).locator('.badge').first().innerText(), /idle/i);
  });

  it('an OctoPrint printer with a wrong key says the key was refused; a new key in its settings brings it online', async () => {
    await openAddForm();
    await page.getByLabel('Name').fill('Ender OctoPi');
    // A pasted URL picks the kind and fills the address fields.
    await page.getByLabel('Connection URL').fill(`octoprint://127.0.0.1:${octoprint.port}`);
    assert.equal(await page.getByLabel('OctoPrint').isChecked(), true);
    assert.equal(await page.getByLabel('Host or IP address').inputValue(), '127.0.0.1');
    assert.equal(await page.getByLabel('Port', { exact: true }).inputValue(), String(octoprint.port));
    await page.getByLabel('API key').fill('not-the-key');
    ids.octoprint = await addAndLand();
    await d.until('OctoPrint to refuse the key', async () => (await record(ids.octoprint)).offline_reason === 'auth_failed');
    await page.locator('.note.warning', { hasText: 'The API key was refused' }).waitFor();
    assert.equal(await textOf('.printer-head .kind-badge'), 'OctoPrint');
    await page.goto(`${d.url}/#/`);
    await card(ids.octoprint).locator('.pc-error', { hasText: 'The API key was refused' }).waitFor();
    await d.shoot(page, 'network-farm-refused');

    await page.goto(`${d.url}/#/printer-settings/${ids.octoprint}`);
    await page.getByRole('heading', { name: 'Settings of Ender OctoPi' }).waitFor();
    assert.equal(await page.getByLabel('OctoPrint').isChecked(), true);
    await page.getByText('A key is stored.').waitFor();
    assert.equal(await page.getByLabel('Replace the API key').inputValue(), '', 'the stored key is never shown');
    await page.getByLabel('Replace the API key').fill(OCTOPRINT_KEY);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    assert.equal(await page.getByLabel('Replace the API key').inputValue(), '', 'the field empties once the key is stored');
    await d.shoot(page, 'network-settings', { fullPage: true });
    await d.checkA11y(page, 'network-settings');
    await d.until('the OctoPrint printer to be idle with the right key', async () => (await record(ids.octoprint)).status === 'idle');
    await page.goto(`${d.url}/#/printers/${ids.octoprint}`);
    await d.until('the page to show it idle', async () => /idle/i.test(await textOf('.printer-head .badge')));
    assert.equal(await page.locator('.note.warning').count(), 0, 'no problem left to show');
  });

  it('a print started on the Moonraker printer itself shows live on its card and page, without our job controls', async () => {
    await page.goto(`${d.url}/#/`);
    await card(ids.moonraker).waitFor();
    moonraker.startExternalPrint('outside.gcode', testGcode({ moves: 3000 }));
    const ext = card(ids.moonraker).locator('.external-job-name');
    await ext.waitFor({ timeout: 15_000 });
    assert.match(await ext.innerText(), /printing outside\.gcode \(started on the printer\) — \d+ %/);
    const percent = async () => Number(/— (\d+) %/.exec(await ext.innerText())?.[1] ?? -1);
    const first = await percent();
    await d.until('the card to move on without a reload', async () => (await percent()) > first, 20_000);
    assert.match(await card(ids.moonraker).locator('.badge').first().innerText(), /printing/i);
    await d.shoot(page, 'network-farm-external');
    await d.checkA11y(page, 'network-farm-external');

    await page.goto(`${d.url}/#/printers/${ids.moonraker}`);
    await page.locator('.current-job .external-job-name', { hasText: 'outside.gcode' }).waitFor();
    assert.equal(await page.locator('#action-pause').isDisabled(), true);
    assert.match(await textOf('#action-pause-why'), /started on the printer itself/);
    await d.shoot(page, 'network-printer-external');
    await d.checkA11y(page, 'network-printer-external');
    assert.equal((await record(ids.moonraker)).current_job, null, 'no job of ours');
  });

  it('a PrusaLink printer where nothing answers shows as unreachable', async () => {
    const port = await freeTcpPort(); // nothing listens there
    await openAddForm();
    await page.getByLabel('PrusaLink').check();
    await page.getByLabel('Name').fill('MK4 bench');
    await page.getByLabel('Host or IP address').fill('127.0.0.1');
    await page.getByLabel('Port', { exact: true }).fill(String(port));
    await page.getByLabel('user:password or API key').fill('maker:secret');
    ids.prusalink = await addAndLand();
    await d.until('the PrusaLink printer to be unreachable', async () => (await record(ids.prusalink)).offline_reason === 'unreachable');
    await page.locator('.note.warning', { hasText: 'Unreachable — nothing answers at the address' }).waitFor();
    await page.goto(`${d.url}/#/`);
    await card(ids.prusalink).locator('.pc-error', { hasText: 'Unreachable — nothing answers at the address' }).waitFor();
    assert.match(await card(ids.prusalink).locator('.kind-badge').innerText(), /PrusaLink/);
    await d.shoot(page, 'network-farm');
    await d.checkA11y(page, 'network-farm');
  });
});
