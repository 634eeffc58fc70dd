// The dashboard home page in headless Chromium (Debian's, via playwright-core): bad key error, organization shown, remember, forget.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { silentLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** The key the page keeps in localStorage (evaluated in the page, so no DOM types are needed here). */
const storedKey = (page: Page): Promise<string | null> => page.evaluate('localStorage.getItem("printfarm.apiKey")');

const SCREENSHOTS = path.join(process.cwd(), 'test-output', 'browser');

// CI installs chromium in .ci/run, so there a missing browser is a failure, not a skip.
const skip = !existsSync(CHROMIUM) && !process.env.CI ? `${CHROMIUM} is not installed (apt-get install chromium)` : false;

describe('dashboard home page', { skip }, () => {
  let server: RunningServer;
  let adminKey: string;
  let dataDir: string;
  let profileDir: string;
  let context: BrowserContext;
  let page: Page;
  let organization: Record<string, unknown>;
  let keyName: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'printfarm-home-data-'));
    profileDir = await mkdtemp(path.join(tmpdir(), 'printfarm-home-chromium-'));
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startServer({ host: '127.0.0.1', port: 0, dataDir, env: 'live' }, { logger: silentLogger });
    assert.ok(server.initialAdminKey, 'a fresh data dir gets an admin key');
    adminKey = server.initialAdminKey;
    const res = await fetch(`${server.url}/v1/organization`, { headers: { Authorization: `Bearer ${adminKey}` } });
    assert.equal(res.status, 200);
    organization = (await res.json()) as Record<string, unknown>;
    const current = await fetch(`${server.url}/v1/api-keys/current`, { headers: { Authorization: `Bearer ${adminKey}` } });
    keyName = ((await current.json()) as { name: string }).name;
    assert.ok(keyName);

    // A persistent context on a fresh temp dir is how playwright takes a --user-data-dir.
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1000, height: 700 },
    });
    page = context.pages()[0] ?? (await context.newPage());
  });

  after(async () => {
    await context?.close();
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
    await rm(profileDir, { recursive: true, force: true });
  });

  it('asks for a key and explains a wrong one', async () => {
    await page.goto(server.url);
    await page.locator('#connect').waitFor({ state: 'visible' });
    assert.equal(await page.title(), 'printfarm');

    await page.fill('#key', `svc_live_${'x'.repeat(40)}`);
    await page.click('#connect-button');
    const message = page.locator('#message.error');
    await message.waitFor({ state: 'visible' });
    assert.match(await message.innerText(), /That API key was not accepted/);
    assert.equal(await page.locator('#org').isVisible(), false);
    assert.equal(await storedKey(page), null, 'a refused key is not stored');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'home-bad-key.png') });
  });

  it('shows the organization for a good key and remembers the key', async () => {
    await page.fill('#key', adminKey);
    await page.click('#connect-button');
    await page.locator('#org').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#org-name').innerText(), organization.name);
    assert.equal(await page.locator('#message').isVisible(), false, 'the earlier error is gone');
    assert.equal(await page.locator('#org-fields dd[data-field="plan"]').innerText(), organization.plan);
    assert.equal(await page.locator('#who').innerText(), `signed in with ${keyName}`, 'the key by its name, not its id');
    assert.equal(await storedKey(page), adminKey);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'home-organization.png') });

    await page.reload();
    await page.locator('#org').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#org-name').innerText(), organization.name, 'a reload reuses the stored key');
  });

  it('forgets the key on request', async () => {
    await page.click('#forget');
    await page.locator('#connect').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#org').isVisible(), false);
    assert.equal(await storedKey(page), null);
    await page.reload();
    await page.locator('#connect').waitFor({ state: 'visible' });
  });
});
