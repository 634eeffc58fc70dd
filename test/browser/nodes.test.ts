// The Nodes page and the farm page on a farm of two boxes, in headless Chromium: each box with its address, version,
// state (a lost one "lost since"), its printers and what they print; the farm page names the lost box, and each
// printer card says which box drives it. The second box is a row in the shared database marked lost, as the other
// boxes leave a box that stopped beating; its printer was created for it through this box's API.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { isoTime } from '../../src/clock.js';
import { browserSkip, startDashboard, testGcode, type Dashboard } from './harness.js';

const LOST_ID = 'nod_room2room2room2room2r';

describe('the Nodes page', { skip: browserSkip }, () => {
  let d: Dashboard;
  let page: Page;
  let here: string;
  let there: string;
  let selfName: string;
  let jobId: string;

  before(async () => {
    // Slow enough that the first printer is still printing while the pages are looked at.
    d = await startDashboard({ printers: 1, simQuery: 'speed=2', printerFields: () => ({ name: 'Room 1 MK4' }) });
    here = d.printerIds[0]!;
    const db = d.server.deps.db;
    const now = d.clock.now();
    await db
      .insertInto('nodes')
      .values({
        id: LOST_ID,
        name: 'room-2',
        address: 'http://192.168.1.22:8080',
        version: '0.9.0',
        started_at: isoTime(now - 3_600_000),
        last_seen_at: isoTime(now - 120_000),
        state: 'lost',
        updated_at: isoTime(now - 90_000),
      })
      .execute();
    there = (await d.api('POST', '/v1/printers', { name: 'Room 2 Voron', connection_url: 'sim://room-2-voron', node_id: LOST_ID })).id;
    await d.server.deps.cluster.publish('nodes', LOST_ID);
    jobId = (await d.uploadJob(testGcode({ moves: 3000 }), { name: 'gear housing' })).id;
    await d.until('the job printing', async () => (await d.api('GET', `/v1/jobs/${jobId}`)).status === 'printing', 30_000);
    selfName = d.server.deps.node.name;
    page = await d.newPage();
    await d.signInWithKey(page);
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
  });

  it('lists each box with its address, version, state and printers, and what they print', async () => {
    await page.goto(`${d.url}/#/nodes`);
    const cards = page.locator('article.node-card');
    await cards.nth(1).waitFor({ timeout: 10_000 });
    assert.equal(await cards.count(), 2);
    assert.equal(await page.title(), 'Nodes · printfarm');
    assert.equal(await page.locator('nav a[aria-current=page]').innerText(), 'Nodes');

    const mine = page.locator(`article.node-card[data-node-id="${d.server.deps.node.id}"]`);
    assert.match(await mine.locator('h2').innerText(), new RegExp(`${selfName}\\s*\\(this box\\)`));
    assert.match(await mine.locator('header .badge').innerText(), /online/i);
    assert.match(await mine.locator('.node-facts').innerText(), /Version\s*\d+\.\d+\.\d+/i);
    const row = mine.locator(`tr[data-printer-id="${here}"]`);
    await row.locator('.node-job', { hasText: 'gear housing' }).waitFor({ timeout: 10_000 });
    assert.match(await row.innerText(), /Room 1 MK4\s+▶\s+printing\s+gear housing · \d+ %/i);

    const lost = page.locator(`article.node-card[data-node-id="${LOST_ID}"]`);
    assert.match(await lost.locator('h2').innerText(), /^room-2$/);
    assert.match(await lost.locator('header .badge').innerText(), /lost since .*\d/i);
    assert.match(await lost.locator('.node-facts').innerText(), /Address\s*http:\/\/192\.168\.1\.22:8080[\s\S]*Version\s*0\.9\.0/i);
    assert.match(await lost.locator(`tr[data-printer-id="${there}"]`).innerText(), /Room 2 Voron\s+○\s+offline\s+nothing/i);
    await d.checkA11y(page, 'nodes page');
    await d.shoot(page, 'nodes', { fullPage: true });
  });

  it('names the lost box on the farm page, and each printer card says which box drives it', async () => {
    await page.goto(`${d.url}/#/`);
    const notice = page.locator('.lost-nodes');
    await notice.waitFor({ timeout: 10_000 });
    assert.match(await notice.innerText(), /Box room-2 is lost since .*: no heartbeat for 30 s\.\s*Its printer is offline; jobs that were printing there failed\./);
    assert.equal(await notice.getByRole('link', { name: 'See the nodes' }).getAttribute('href'), '#/nodes');
    const card = (id: string) => page.locator(`article.printer-card[data-printer-id="${id}"] .pc-node`);
    await card(there).waitFor({ timeout: 10_000 });
    assert.equal(await card(here).innerText(), `Driven by ${selfName}`);
    assert.equal(await card(there).innerText(), 'Driven by room-2');
    await d.checkA11y(page, 'farm with a lost node');
    await d.shoot(page, 'farm-lost-node', { fullPage: true });
  });
});
