// A Bambu Lab printer on the dashboard, in headless Chromium against the stand-in (Mosquitto + vsftpd + our virtual
// printer) on 127.0.0.1: added through the kind picker, its AMS trays and matched spool, its certificate pinned on first
// contact, a refused access code fixed in its settings, a changed certificate re-pinned on its page, a print started on
// its screen with layer x of y, time left and the tray in use, and an HMS error in words (on a wall screen too). Both
// sizes, axe, no console errors.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { bambuStandInUnavailable, startBambuStandIn, type BambuStandIn } from '../../src/simulator/bambu/bambu-standin.js';
import { shownFingerprint } from '../../web/src/lib/bambu.js';
import { gcodeText } from '../network/bambu/bambu-harness.js';
import { browserSkip, startDashboard, type Dashboard } from './harness.js';

const skip = browserSkip || bambuStandInUnavailable() || false;

describe('a Bambu Lab printer on the dashboard', { skip }, () => {
  let d: Dashboard;
  let page: Page;
  let standIn: BambuStandIn;
  let id = '';

  const record = () => d.api<Record<string, any>>('GET', `/v1/printers/${id}`);
  const card = () => page.locator(`article.printer-card[data-printer-id="${id}"]`);
  const textOf = async (selector: string) => page.locator(selector).innerText();
  const tray = (label: string) => page.locator(`.bambu-state li.ams-tray[data-tray="${label}"]`);

  before(async () => {
    // Speed 5: a 3000-move print lasts about two minutes, so the printer's own "time left" reads in whole minutes.
    standIn = await startBambuStandIn({ reportMs: 200, simulator: { speed: 5 } });
    d = await startDashboard({ printers: 0 });
    page = await d.newPage();
    await d.signInWithKey(page);
  });
  afterEach(() => d?.checkPages());
  // The dashboard first (it checks its pages as it closes), then the printer's servers.
  after(() => d?.close().finally(() => standIn?.close()));

  it('the picker asks for the host, serial number, LAN access code and pin, and builds the bambu:// URL', async () => {
    await page.goto(`${d.url}/#/add-printer`);
    await page.getByRole('heading', { name: 'Add a printer' }).waitFor();
    await page.getByLabel('Bambu Lab (LAN mode)').check();
    assert.match(await textOf('#printer-connection_url-hint'), /bambu:\/\/HOST\[:PORT\]\?serial=SERIAL.*8883.*FTPS on 990.*pinned on first contact/);
    assert.equal(await page.getByLabel('Use HTTPS').count(), 0, 'a Bambu printer is always TLS');
    assert.match(await textOf('#printer-fingerprint-hint'), /on first contact is pinned.*re-pin/);
    const code = page.getByLabel('LAN access code');
    assert.equal(await code.getAttribute('type'), 'password');
    assert.match(await textOf('#printer-api_key-hint'), /access code on the printer’s screen.*never shown/);

    await page.getByLabel('Name').fill('P1S left');
    await page.getByLabel('Host or IP address').fill('127.0.0.1');
    await page.getByLabel('Port', { exact: true }).fill(String(standIn.mqttPort));
    await page.getByLabel('Serial number').fill(standIn.serial);
    await page.getByLabel('Files port (FTPS)').fill(String(standIn.ftpPort));
    assert.equal(await page.getByLabel('Connection URL').inputValue(), standIn.url);
    await code.fill(standIn.accessCode);
    await d.shoot(page, 'bambu-add', { fullPage: true });
    await d.checkA11y(page, 'bambu-add');

    await page.getByRole('button', { name: 'Add printer' }).click();
    await page.waitForURL(/#\/printers\/prt_/);
    id = decodeURIComponent(page.url().split('#/printers/')[1] ?? '');
    const p = await record();
    // The URL as built (the server may already have added the certificate it pinned on first contact).
    assert.deepEqual([p.kind, p.connection_url.replace(/&fingerprint=[0-9a-f]{64}$/, ''), p.has_api_key], ['bambu', standIn.url, true]);
    assert.equal(JSON.stringify(p).includes(standIn.accessCode), false, 'the access code is never returned');
  });

  it('the printer page shows the AMS trays with the matched spool and the certificate pinned on first contact', async () => {
    await d.until('the Bambu printer to be idle', async () => (await record()).status === 'idle');
    const spool = await d.api<{ id: string }>('POST', '/v1/materials', { type: 'PLA', color: 'red', spool_weight: 1000 });
    await d.api('PATCH', `/v1/materials/${spool.id}`, { printer_id: id, tool: 0 });
    await page.reload();
    await page.locator('.bambu-state').waitFor();
    assert.equal(await page.locator('.bambu-state li.ams-tray').count(), 4);
    assert.match(await tray('A1').innerText(), /A1\s+PLA #FF0000\s+90 % left[\s\S]*Spool: PLA red \(1000 g left\)/);
    assert.match(await tray('A3').innerText(), /PETG #FFFFFF\s+amount unknown[\s\S]*no spool matched/);
    assert.match(await page.locator('[data-bambu="no-hms"]').innerText(), /None/);
    assert.equal(await textOf('[data-bambu="fan"]'), 'off');

    // The server pinned the certificate on first contact and wrote it into the URL: the page shows it.
    const pin = page.locator('[data-bambu="pin"]');
    await pin.getByText('in the connection URL: another certificate is refused').waitFor();
    assert.equal(await pin.locator('code[data-fingerprint]').innerText(), shownFingerprint(standIn.fingerprint));
    assert.match((await record()).connection_url, new RegExp(`[?&]fingerprint=${standIn.fingerprint}(&|$)`));
    await d.shoot(page, 'bambu-printer', { fullPage: true });
    await d.checkA11y(page, 'bambu-printer');
  });

  it('a refused access code says what to do; the right one in the settings brings it back, never shown', async () => {
    await page.goto(`${d.url}/#/printer-settings/${id}`);
    await page.getByRole('heading', { name: 'Settings of P1S left' }).waitFor();
    assert.equal(await page.getByLabel('Bambu Lab (LAN mode)').isChecked(), true);
    assert.equal(await page.getByLabel('Serial number').inputValue(), standIn.serial);
    assert.equal(await page.getByLabel('Certificate fingerprint (SHA-256)').inputValue(), standIn.fingerprint);
    const code = page.getByLabel('Replace the LAN access code');
    assert.equal(await code.inputValue(), '', 'the stored code is never shown');
    await code.fill('00000000');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    await d.until('the printer to refuse the code', async () => (await record()).offline_reason === 'auth_failed');
    await page.goto(`${d.url}/#/`);
    await card().locator('.pc-error', { hasText: 'The LAN access code was refused' }).waitFor();
    await d.shoot(page, 'bambu-farm-refused');
    await d.checkA11y(page, 'bambu-farm-refused');

    await page.goto(`${d.url}/#/printer-settings/${id}`);
    await page.getByLabel('Replace the LAN access code').fill(standIn.accessCode);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    await d.until('the printer to be idle with the right code', async () => (await record()).status === 'idle');
  });

  it('a changed certificate is refused, shown with the new fingerprint, and re-pinned on the owner’s word', async () => {
    await page.goto(`${d.url}/#/printers/${id}`);
    await page.locator('.bambu-state').waitFor();
    const old = standIn.fingerprint;
    await standIn.changeCertificate();
    await d.until('the printer to refuse the new certificate', async () => (await record()).offline_reason === 'tls_error', 30_000);
    await page.locator('.note.warning', { hasText: 'certificate is not the pinned one' }).waitFor();
    const presented = page.locator('[data-bambu="presented"]');
    await presented.waitFor();
    assert.match(await presented.innerText(), new RegExp(shownFingerprint(standIn.fingerprint)));
    assert.notEqual(standIn.fingerprint, old);
    assert.match(await textOf('[data-bambu="stale"]'), /last reported/);
    await d.shoot(page, 'bambu-printer-tls', { fullPage: true });
    await d.checkA11y(page, 'bambu-printer-tls');

    await page.getByRole('button', { name: 'Re-pin to the new certificate' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Only if you reset this printer/);
    await dialog.getByRole('button', { name: 'Re-pin' }).click();
    await d.until('the printer to be idle on the new pin', async () => (await record()).status === 'idle', 30_000);
    assert.match((await record()).connection_url, new RegExp(`fingerprint=${standIn.fingerprint}`));
    await page.locator('[data-bambu="pin"]', { hasText: 'in the connection URL' }).waitFor();
    await d.until('the warning to go', async () => (await page.locator('[data-bambu="presented"]').count()) === 0);
  });
  it('a print started on the printer shows layer x of y, time left and the tray in use on its card and page', async () => {
    await page.goto(`${d.url}/#/`);
    await card().waitFor();
    assert.equal(await card().locator('.ams-trays.compact li').count(), 4);
    standIn.printer.startExternalPrint('cube.gcode', Buffer.from(gcodeText(3000)), 1);
    const line = card().locator('[data-bambu="line"]');
    await line.waitFor({ timeout: 20_000 });
    await d.until('the card to show the layer and time left', async () => /^Layer \d+ of 150 · \d+ min left$/.test(await line.innerText()), 20_000);
    assert.match(await card().locator('.ams-tray.active').innerText(), /A2[\s\S]*in use/i);
    await d.shoot(page, 'bambu-farm-printing');
    await d.checkA11y(page, 'bambu-farm-printing');

    await page.goto(`${d.url}/#/printers/${id}`);
    await page.locator('.current-job .external-job-name', { hasText: 'printing cube' }).waitFor();
    await d.until('the page to show the layer', async () => /^Layer \d+ of 150$/.test(await textOf('[data-bambu="layer"]')));
    assert.match(await textOf('[data-bambu="time-left"]'), /^\d+ min left$/);
    assert.match(await tray('A2').innerText(), /in use/i);
    await d.shoot(page, 'bambu-printer-printing', { fullPage: true });
    await d.checkA11y(page, 'bambu-printer-printing');
  });

  it('an HMS error shows in words with its link on the card and the page, and goes when the printer clears it', async () => {
    // AMS (module 0x07), severity common (3): a warning that does not stop the printer.
    standIn.printer.hms = [{ attr: 0x07000300, code: 0x00030001 }];
    await page.goto(`${d.url}/#/`);
    const hms = card().locator('.hms-list li.hms');
    await hms.waitFor({ timeout: 15_000 });
    assert.match(await hms.innerText(), /Warning\s+The AMS reports error 0700_0300_0003_0001/i);
    assert.equal(await hms.locator('a.hms-link').getAttribute('href'), 'https://wiki.bambulab.com/en/hms/home');
    await d.shoot(page, 'bambu-farm-hms');
    await d.checkA11y(page, 'bambu-farm-hms');
    // Wall mode shows the code without the link (a wall screen has nothing to click).
    await page.goto(`${d.url}/#/wall`);
    const onWall = page.locator(`.wall-grid article.printer-card[data-printer-id="${id}"] .hms-list li.hms`);
    await onWall.waitFor();
    assert.deepEqual([await onWall.locator('a').count(), await onWall.locator('code.hms-code').innerText()], [0, 'HMS_0700_0300_0003_0001']);
    await page.goto(`${d.url}/#/printers/${id}`);
    const onPage = page.locator('.bambu-state .hms-list li.hms-common');
    await onPage.waitFor();
    assert.match(await onPage.innerText(), /What to do: HMS_0700_0300_0003_0001/);
    await d.shoot(page, 'bambu-printer-hms', { fullPage: true });
    await d.checkA11y(page, 'bambu-printer-hms');
    standIn.printer.hms = [];
    await page.locator('[data-bambu="no-hms"]').waitFor({ timeout: 15_000 });
  });
});
