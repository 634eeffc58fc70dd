// The API reference page (/docs) in headless Chromium: rendered offline from the bundled renderer, searchable, an example copied, accessible at both sizes, linked from the menu.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { browserSkip, startDashboard, type Dashboard } from './harness.js';

describe('the API reference page', { skip: browserSkip }, () => {
  let d: Dashboard;

  before(async () => {
    d = await startDashboard();
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
  });

  it('renders every route from the appliance alone: no request leaves 127.0.0.1', async () => {
    const page = await d.newPage();
    const requested: string[] = [];
    page.on('request', (req) => requested.push(req.url()));
    await page.goto(`${d.url}/docs`);
    await page.getByRole('heading', { name: 'Create an API key' }).first().waitFor({ timeout: 30_000 });
    const own = new URL(d.url).origin;
    const elsewhere = requested.filter((u) => !u.startsWith(own) && !u.startsWith('blob:') && !u.startsWith('data:'));
    assert.deepEqual(elsewhere, [], 'every request goes to the appliance');
    assert.ok(requested.some((u) => u.endsWith('/v1/openapi.json')), 'the page reads the server\'s own document');
    // axe reads the whole reference (some 27,000 elements): minutes per size on a loaded machine, but nothing less covers it.
    await d.checkA11y(page, 'api docs');
    await d.shoot(page, 'api-docs');
    await page.setViewportSize({ width: 390, height: 844 });
    await d.checkA11y(page, 'api docs on a phone');
    assert.deepEqual(d.pageErrors(page), []);
  });

  it('finds a route by searching', async () => {
    const page = await d.newPage();
    await page.goto(`${d.url}/docs`);
    const search = page.getByPlaceholder('Search...');
    await search.waitFor({ timeout: 30_000 });
    await search.fill('forecast');
    const results = page.locator('[data-role="search:results"]');
    await results.waitFor({ timeout: 10_000 });
    assert.match(await results.innerText(), /forecast/i);
    await d.shoot(page, 'api-docs-search');
  });

  it('copies a route\'s example answer as the JSON the document holds', async () => {
    const page = await d.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.url });
    await page.goto(`${d.url}/#/`);
    await page.goto(`${d.url}/docs#tag/Health/operation/getHealthz`);
    const op = page.locator('[data-section-id="tag/Health/operation/getHealthz"]');
    await op.waitFor({ timeout: 30_000 });
    await op.getByRole('button', { name: 'Copy' }).first().click();
    const copied = (await page.evaluate('navigator.clipboard.readText()')) as string;
    const doc = (await d.api<any>('GET', '/v1/openapi.json')).paths['/healthz'].get.responses['200'].content['application/json'].schema.examples[0];
    assert.deepEqual(JSON.parse(copied), doc);
  });

  it('is linked from the dashboard\'s menu', async () => {
    const page = await d.newPage();
    await d.signInWithKey(page);
    const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API reference' });
    assert.equal(await link.getAttribute('href'), '/docs');
    await link.click();
    await page.waitForURL(/\/docs$/);
  });
});
