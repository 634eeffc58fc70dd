// Settings › API keys › Connect a slicer in headless Chromium: one click makes a slicer:upload key, the dialog shows the
// server's setup values with Copy (the Clipboard API on a secure origin, the select-and-copy fallback on plain http).
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { browserSkip, SCREENSHOTS, startDashboard, type Dashboard } from './harness.js';

/** A name Chromium resolves to 127.0.0.1 (a switch below): its plain-http origin is not a secure context, like a LAN farm. */
const LAN_HOST = 'printfarm.local';
/** The dialog alone, for the README (copied by hand to docs/screenshots/ when the dialog changes, like the other shots). */
const DIALOG_SHOT = path.join(SCREENSHOTS, 'slicer-key-dialog.png');

interface Setup {
  slicer: string;
  host_type: string;
  fields: { label: string; value: string }[];
  note?: string;
}

/** Clicks "Connect a slicer" and returns what POST /v1/slicer/keys answered (the dialog must show exactly that). */
async function connect(page: Page): Promise<{ key: string; prefix: string; scopes: string[]; setup: Setup[] }> {
  const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/slicer/keys' && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Connect a slicer' }).click();
  const res = await answer;
  assert.equal(res.status(), 201);
  return ((await res.json()) as { data: { key: string; prefix: string; scopes: string[]; setup: Setup[] } }).data;
}

/** The setup entry and field that hold the key itself (the value a slicer's "API key" box takes). */
function keyField(setup: Setup[], key: string): { entry: Setup; label: string } {
  const entry = setup.find((s) => s.fields.some((f) => f.value === key));
  assert.ok(entry, 'some setup entry carries the key');
  return { entry, label: entry.fields.find((f) => f.value === key)!.label };
}

/**
 * The dialog's part for one setup entry, shown: its tab chosen when there are several (one tab per entry, named
 * "slicer: host type"), else the one region of that name.
 */
async function openEntry(dialog: Locator, setup: Setup[], entry: Setup): Promise<Locator> {
  const name = `${entry.slicer}: ${entry.host_type}`;
  if (setup.length > 1) {
    const tab = dialog.getByRole('tab', { name, exact: true });
    await tab.click();
    assert.equal(await tab.getAttribute('aria-selected'), 'true');
  }
  const part = dialog.getByRole(setup.length > 1 ? 'tabpanel' : 'region', { name, exact: true });
  await part.waitFor();
  return part;
}

describe('connect a slicer from the settings page', { skip: browserSkip }, () => {
  let d: Dashboard;
  let page: Page;

  before(async () => {
    d = await startDashboard({ chromiumArgs: [`--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1`] });
    page = await d.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.url });
    await d.signInWithKey(page);
  });
  afterEach(() => d?.checkPages());
  after(async () => d?.close());

  it('makes a slicer:upload key in one click and shows every setup value the server gave, with Copy', async () => {
    await page.goto(`${d.url}/#/settings/keys`);
    await page.getByRole('heading', { name: 'API keys', level: 2 }).waitFor();
    const made = await connect(page);
    assert.deepEqual(made.scopes, ['slicer:upload']);
    assert.ok(made.setup.length > 0, 'the server lists at least one way to connect');

    const dialog = page.getByRole('dialog', { name: 'Connect a slicer' });
    await dialog.waitFor();
    await dialog.getByText('The key is shown only in this window.').waitFor();
    assert.equal(await page.evaluate('document.activeElement?.closest("dialog.slicer-dialog") !== null'), true, 'focus is in the dialog');

    // Every value the server sent is on screen in its entry's tab, read-only, each with its Copy button.
    for (const entry of made.setup) {
      const section = await openEntry(dialog, made.setup, entry);
      if (entry.note) await section.getByText(entry.note).waitFor();
      for (const f of entry.fields) {
        const input = section.getByLabel(f.label, { exact: true });
        assert.equal(await input.inputValue(), f.value, `${entry.slicer} / ${entry.host_type} / ${f.label}`);
        assert.equal(await input.isEditable(), false, 'read-only');
        await section.getByRole('button', { name: `Copy ${f.label}`, exact: true }).waitFor();
      }
    }
    if (made.setup.length > 1) {
      // The tabs pattern's keys: Home goes to the first tab, End to the last, the arrows step.
      const tabName = (s: Setup) => `${s.slicer}: ${s.host_type}`;
      const selected = async (s: Setup) => dialog.getByRole('tab', { name: tabName(s), exact: true }).getAttribute('aria-selected');
      await dialog.getByRole('tab', { name: tabName(made.setup.at(-1)!), exact: true }).focus();
      await page.keyboard.press('Home');
      assert.equal(await selected(made.setup[0]!), 'true');
      await page.keyboard.press('ArrowDown');
      assert.equal(await selected(made.setup[1]!), 'true');
      await page.keyboard.press('End');
      assert.equal(await selected(made.setup.at(-1)!), 'true');
      assert.equal(await page.evaluate('document.activeElement?.getAttribute("role")'), 'tab', 'focus follows the chosen tab');
    }

    // Copy the key on the first entry that shows it: the clipboard holds exactly the key.
    const { entry, label } = keyField(made.setup, made.key);
    const section = await openEntry(dialog, made.setup, entry);
    await section.getByRole('button', { name: `Copy ${label}`, exact: true }).click();
    await dialog.getByText(`Copied “${label}” to the clipboard.`).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), made.key);

    // The key is real and can only upload: the OctoPrint-style header the slicers send works with it.
    const version = await fetch(`${d.url}/api/version`, { headers: { 'X-Api-Key': made.key } });
    assert.equal(version.status, 200, 'GET /api/version with the new key');
    const current = await fetch(`${d.url}/v1/api-keys/current`, { headers: { Authorization: `Bearer ${made.key}` } });
    assert.equal(current.status, 200);
    assert.deepEqual(((await current.json()) as { scopes: string[] }).scopes, ['slicer:upload']);

    await d.shoot(page, 'settings-slicer-dialog');
    await page.setViewportSize({ width: 390, height: 844 });
    assert.equal(await page.evaluate('document.documentElement.scrollWidth'), 390, 'the dialog fits a phone');
    await page.setViewportSize({ width: 1280, height: 800 });
    await d.checkA11y(page, 'the slicer dialog');

    // Escape closes it, focus goes back to the button, the key leaves the page; the list shows the new key.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate('document.activeElement?.id'), 'connect-slicer');
    const keyOnPage = `[...document.querySelectorAll('input')].some((i) => i.value === ${JSON.stringify(made.key)}) || document.body.innerText.includes(${JSON.stringify(made.key)})`;
    assert.equal(await page.evaluate(keyOnPage), false, 'the key is not on the page any more');
    await page.locator('table.keys tbody tr', { hasText: `${made.prefix}…` }).getByText('slicer:upload').waitFor();
  });

  it('on a plain-http address, Copy selects the value and copies it with the fallback', async () => {
    const port = new URL(d.url).port;
    const lan = await d.newPage();
    await lan.goto(`http://${LAN_HOST}:${port}/`);
    assert.equal(await lan.evaluate('window.isSecureContext'), false, 'a plain-http LAN origin');
    assert.equal(await lan.evaluate('typeof navigator.clipboard'), 'undefined', 'no Clipboard API there');
    await lan.locator('#signin-api-key').fill(d.adminKey);
    await lan.locator('#signin-key button[type=submit]').click();
    await lan.locator('#sign-out').waitFor({ state: 'visible' });
    await lan.goto(`http://${LAN_HOST}:${port}/#/settings/keys`);
    const made = await connect(lan);
    const dialog = lan.getByRole('dialog', { name: 'Connect a slicer' });
    const { entry, label } = keyField(made.setup, made.key);
    const section = await openEntry(dialog, made.setup, entry);
    await section.getByRole('button', { name: `Copy ${label}`, exact: true }).click();
    await dialog.getByText(`Copied “${label}” to the clipboard.`).waitFor();
    // The fallback's mark: the key's field has the focus and its whole value is selected...
    const selected = await lan.evaluate(
      '(() => { const el = document.activeElement; return el?.tagName === "INPUT" ? el.value.slice(el.selectionStart, el.selectionEnd) : null; })()',
    );
    assert.equal(selected, made.key);
    // ...and the browser's clipboard (read on the secure origin, where the API exists) holds it.
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), made.key);
    // The picture for the README: the first entry as a farm on the LAN shows it, after the key was copied.
    await lan.evaluate('(() => { const el = document.activeElement; el.setSelectionRange(0, 0); el.blur(); })()');
    await dialog.screenshot({ path: DIALOG_SHOT });
    await lan.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('says in words why no key was made', async () => {
    await page.goto(`${d.url}/#/settings/keys`);
    // A refusal as the server words it (the admin session here always may, so the answer is staged).
    await page.route('**/v1/slicer/keys', (route) =>
      route.fulfill({
        status: 403,
        contentType: 'application/json',
        body: JSON.stringify({ success: false, error: { code: 'insufficient_permissions', message: 'this key lacks the admin:* scope', details: null } }),
      }),
    );
    d.expectAnswers({ status: 403, path: '/v1/slicer/keys' });
    await page.getByRole('button', { name: 'Connect a slicer' }).click();
    const note = page.locator('.slicer-connect .note.error');
    await note.waitFor();
    assert.match(await note.innerText(), /this key lacks the admin:\* scope\. Ask an admin for a role or key that allows it\./);
    assert.equal(await page.getByRole('dialog', { name: 'Connect a slicer' }).count(), 0, 'no dialog without a key');
    await page.unroute('**/v1/slicer/keys');
  });
});
