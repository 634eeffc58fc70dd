// The farm grid and wall mode in headless Chromium against virtual printers: live temperatures, a print from start to
// finish without a reload, the bed-cleared button, filters in the address, wall mode fitting the screen, screenshots, axe.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { browserSkip, solidPng, startDashboard, testGcode, type Dashboard } from './harness.js';

/** Set once after load; still there later means the page never reloaded. */
const MARK = 'window.__farmMark = 42';
const marked = (page: Page) => page.evaluate('window.__farmMark === 42');

/**
 * Waits until `read` (run in the page) gives a value `ok` accepts. Polled from the test because the page's CSP (no
 * 'unsafe-eval') refuses Playwright's string predicates; DOM types stay out of the Node typecheck this way too.
 */
async function untilInPage<T>(page: Page, expression: string, ok: (v: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = (await page.evaluate(expression)) as T;
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const cards = (n: number) => (v: number) => v === n;
const progressOf = (id: string) => `Number(document.querySelector('[data-printer-id="${id}"] .progress')?.getAttribute('aria-valuenow'))`;
const CARD_COUNT = 'document.querySelectorAll("article.printer-card").length';

describe('farm grid and wall mode', { skip: browserSkip }, () => {
  let d: Dashboard;
  let ids: string[];
  let page: Page;

  const card = (id: string): Locator => page.locator(`article.printer-card[data-printer-id="${id}"]`);
  const printer = (id: string) => d.api<{ status: string; ready: boolean; current_job: string | null; temperatures: { hotend_target: number | null } }>('GET', `/v1/printers/${id}`);

  before(async () => {
    d = await startDashboard({
      printers: 3,
      printerFields: (i) => ({
        name: ['Prusa MK4 left', 'Prusa MK4 right', 'Voron 2.4'][i],
        group: i < 2 ? 'bay-1' : 'bay-2',
        tags: i === 0 ? ['pla', 'fast'] : ['pla'],
      }),
    });
    ids = d.printerIds;
    // A person clears each bed: the farm waits for the bed-cleared button between prints.
    await d.api('PATCH', '/v1/organization', { auto_start: false });
    // Spools on the first two printers (the third keeps only a declared material).
    await d.api('POST', '/v1/materials', { type: 'PLA', color: 'orange', spool_weight: 1000, printer_id: ids[0], tool: 0 });
    await d.api('POST', '/v1/materials', { type: 'PLA', color: '#1d5bd0', brand: 'Prusament', spool_weight: 1000, remaining_weight: 420, printer_id: ids[1], tool: 0 });
    await d.api('PATCH', `/v1/printers/${ids[2]}`, { material_type: 'PLA', material_color: 'black' });
    page = await d.newPage();
    await d.signInWithKey(page);
    await page.evaluate(MARK);
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
  });

  it('shows every printer as a card with its spools, temperatures and a summary line', async () => {
    await page.locator('article.printer-card').nth(2).waitFor();
    assert.equal(await page.locator('article.printer-card').count(), 3);
    assert.equal(await page.title(), 'Farm · printfarm');
    assert.equal(await page.locator('nav a[aria-current=page]').innerText(), 'Farm');
    assert.match(await page.locator('.farm-summary').innerText(), /3 printers: 0 printing, 3 idle, 0 offline or in error/);
    assert.match(await card(ids[0]!).locator('.spools').innerText(), /PLA orange/);
    assert.match(await card(ids[1]!).locator('.spools').innerText(), /PLA #1d5bd0/);
    assert.match(await card(ids[2]!).locator('.spools').innerText(), /PLA black/);
    assert.equal(await card(ids[0]!).locator('.pc-name a').getAttribute('href'), `#/printers/${ids[0]}`);
    assert.match(await card(ids[0]!).locator('[data-temp=hotend]').innerText(), /^\d+°C$/);
    assert.match(await card(ids[0]!).locator('.badge').innerText(), /idle/i);
  });

  it('updates temperatures and targets from telemetry within seconds, without a reload', async () => {
    const temp = (which: string) => `document.querySelector('[data-printer-id="${ids[0]}"] [data-temp=${which}]').textContent`;
    // Read before heating: a fast virtual heater may reach its target before a second reading, so the climb is measured
    // from the cold value (the page's, so the comparison is of what the screen showed).
    const cold = Number((await untilInPage<string>(page, temp('hotend'), () => true, 'a temperature')).split(/[/°]/)[0]);
    await d.api('POST', `/v1/printers/${ids[0]}/commands`, { commands: ['M104 S200', 'M140 S60'] });
    await untilInPage<string>(page, temp('hotend'), (t) => t.endsWith('/200°C'), 'the hotend target on the card', 5_000);
    await untilInPage<string>(page, temp('bed'), (t) => t.endsWith('/60°C'), 'the bed target on the card', 5_000);
    // The temperature climbs on screen as the virtual heater warms up.
    await untilInPage<string>(page, temp('hotend'), (t) => Number(t.split('/')[0]) > cold + 5, 'the hotend to warm up on screen', 8_000);
    assert.equal(await marked(page), true, 'no reload');
    await d.api('POST', `/v1/printers/${ids[0]}/actions`, { action: 'cooldown' });
  });

  it('follows a print live: thumbnail, progress, time left and the next job, then completion and the bed-cleared button', async () => {
    const thumbnail = solidPng(32, [29, 91, 208]);
    const job = await d.uploadJob(testGcode({ moves: 1600, minutes: 2, thumbnail }), { printer_id: ids[1]!, name: 'Gear housing' }, 'gear.gcode');
    const second = await d.uploadJob(testGcode({ moves: 3000 }), { printer_id: ids[1]!, name: 'Second bracket' }, 'bracket.gcode');
    const c = card(ids[1]!);
    await c.locator('.pc-job-name', { hasText: 'Gear housing' }).waitFor({ timeout: 10_000 });
    assert.match(await c.locator('.badge').innerText(), /printing/i);

    // Progress moves on screen between 0 and 100 while it prints.
    await untilInPage<number>(page, progressOf(ids[1]!), (v) => v > 0 && v < 100, 'progress between 0 and 100');
    assert.match(await c.locator('.eta').innerText(), /left · done about/);
    await untilInPage<number>(page, `document.querySelector('[data-printer-id="${ids[1]}"] img.thumb').naturalWidth`, (w) => w === 32, 'the thumbnail to load');
    assert.equal(await c.locator('img.thumb').getAttribute('alt'), 'Preview of Gear housing');
    await c.locator('.next', { hasText: 'Second bracket' }).waitFor({ timeout: 5_000 });
    assert.match(await page.locator('.farm-summary').innerText(), /1 printing/);

    // Completion arrives by itself: the job leaves the card and the bed waits to be cleared.
    const clear = c.getByRole('button', { name: 'Bed cleared on Prusa MK4 right' });
    await clear.waitFor({ timeout: 30_000 });
    assert.equal((await d.api<{ status: string }>('GET', `/v1/jobs/${job.id}`)).status, 'completed');
    assert.equal(await c.locator('.pc-job').count(), 0);
    assert.match(await c.locator('.badge').innerText(), /idle/i);
    assert.match(await page.locator('.farm-summary').innerText(), /1 waiting for the bed to be cleared/);
    assert.equal(await marked(page), true, 'no reload');
    await d.checkA11y(page, 'farm with a bed to clear');

    // Bed cleared: ready again, and the scheduler starts the queued job there at once.
    await clear.click();
    await clear.waitFor({ state: 'detached', timeout: 5_000 });
    assert.equal((await printer(ids[1]!)).ready, true);
    await d.until('the queued job to start', async () => (await d.api('GET', `/v1/jobs/${second.id}`)).status === 'printing');
    await c.locator('.pc-job-name', { hasText: 'Second bracket' }).waitFor({ timeout: 10_000 });
    assert.equal(await marked(page), true, 'no reload');
    await d.api('DELETE', `/v1/jobs/${second.id}`);
    await d.until('the cancelled printer to be idle', async () => (await printer(ids[1]!)).status === 'idle');
    await d.api('POST', `/v1/printers/${ids[1]}/actions`, { action: 'ready' });
  });

  it('filters by group, tag and status, kept in the address', async () => {
    await page.selectOption('#filter-group', 'bay-2');
    await untilInPage(page, CARD_COUNT, cards(1), 'one card');
    assert.equal(await card(ids[2]!).count(), 1);
    assert.match(new URL(page.url()).hash, /^#\/\?group=bay-2$/);
    await page.reload();
    await card(ids[2]!).waitFor();
    assert.equal(await page.locator('article.printer-card').count(), 1, 'the filter survives a reload');
    assert.equal(await page.locator('#filter-group').inputValue(), 'bay-2');

    await page.getByRole('link', { name: 'Clear filters' }).first().click();
    await untilInPage(page, CARD_COUNT, cards(3), 'three cards');
    await page.selectOption('#filter-tag', 'fast');
    await untilInPage(page, CARD_COUNT, cards(1), 'one card');
    assert.equal(await card(ids[0]!).count(), 1);
    await page.selectOption('#filter-status', 'printing');
    await page.locator('.empty', { hasText: 'No printer matches these filters' }).waitFor();
    assert.match(new URL(page.url()).hash, /tag=fast/);
    assert.match(new URL(page.url()).hash, /status=printing/);
    await page.goto(`${d.url}/#/`);
    await untilInPage(page, CARD_COUNT, cards(3), 'three cards');
  });

  it('shows a change made elsewhere (another tab, a script) without a reload: printer.updated on the live stream', async () => {
    await page.evaluate(MARK);
    await d.api('PATCH', `/v1/printers/${ids[2]}`, { tags: ['pla', 'night-shift'] });
    await card(ids[2]!).locator('.pc-meta', { hasText: '#night-shift' }).waitFor({ timeout: 5_000 });
    await d.api('PATCH', `/v1/printers/${ids[2]}`, { tags: ['pla'] });
    await untilInPage<string>(page, `document.querySelector('[data-printer-id="${ids[2]}"] .pc-meta').textContent`, (t) => !t.includes('night-shift'), 'the tag to go', 5_000);
    assert.equal(await marked(page), true, 'no reload');
  });

  it('screenshots and axe: the farm grid with a print running', async () => {
    const long = await d.uploadJob(
      testGcode({ moves: 60_000, minutes: 95, thumbnail: solidPng(32, [230, 120, 30]), heat: { hotend: 215, bed: 60 } }),
      { printer_id: ids[0]!, name: 'Phone stand ×4' },
      'stand.gcode',
    );
    await d.uploadJob(testGcode({ moves: 100 }), { printer_id: ids[0]!, name: 'Cable clips' }, 'clips.gcode');
    // One printer waits for its bed: a short print on the third.
    await d.uploadJob(testGcode({ moves: 200 }), { printer_id: ids[2]!, name: 'Clip' }, 'clip.gcode');
    await card(ids[0]!).locator('.pc-job-name', { hasText: 'Phone stand' }).waitFor({ timeout: 10_000 });
    await card(ids[2]!).getByRole('button', { name: /Bed cleared/ }).waitFor({ timeout: 20_000 });
    await card(ids[0]!).locator('.next', { hasText: 'Cable clips' }).waitFor({ timeout: 5_000 });
    await untilInPage<string>(page, `document.querySelector('[data-printer-id="${ids[0]}"] [data-temp=hotend]').textContent`, (t) => t.endsWith('/215°C'), 'the hotend target');
    await untilInPage<number>(page, progressOf(ids[0]!), (v) => v > 1, 'the long print to show progress', 20_000);
    await d.checkA11y(page, 'farm');
    await d.shoot(page, 'farm');

    const phone = await d.newPage({ mobile: true });
    await d.signInWithKey(phone);
    await phone.locator('article.printer-card').nth(2).waitFor();
    await d.checkA11y(phone, 'farm on a phone');
    await d.shoot(phone, 'farm-full', { fullPage: true });
    assert.deepEqual(d.pageErrors(phone), []);
    assert.ok(long.id);
  });

  it('wall mode: large cards without controls that fit the screen, same filters, no navigation bar', async () => {
    const wall = await d.newPage();
    await d.signInWithKey(wall);
    await wall.goto(`${d.url}/#/wall`);
    await wall.locator('.wall-grid article.printer-card').nth(2).waitFor();
    assert.equal(await wall.locator('.topbar').count(), 0, 'no navigation bar');
    assert.equal(await wall.locator('.wall-grid button, .wall-grid a, .wall-grid select').count(), 0, 'no controls');
    assert.equal(await wall.title(), 'Wall · printfarm');
    const fits = await wall.evaluate('document.documentElement.scrollHeight <= innerHeight && document.documentElement.scrollWidth <= innerWidth');
    assert.equal(fits, true, 'the whole farm fits the screen');
    const cardHeight = Number(await wall.evaluate('document.querySelector(".wall-grid article").getBoundingClientRect().height'));
    assert.ok(cardHeight > 300, `cards fill the screen (${cardHeight}px high)`);
    await wall.locator('.wall-grid .pc-job-name', { hasText: 'Phone stand' }).waitFor();
    await d.checkA11y(wall, 'wall');
    await d.shoot(wall, 'wall');

    // A TV: 1920x1080, the cards grow with it.
    await wall.setViewportSize({ width: 1920, height: 1080 });
    await wall.screenshot({ path: 'test-output/browser/wall-tv.png' });
    const nameSize = Number(await wall.evaluate('parseFloat(getComputedStyle(document.querySelector(".wall-grid .pc-name")).fontSize)'));
    assert.ok(nameSize >= 28, `names readable from across the room (${nameSize}px)`);

    await wall.goto(`${d.url}/#/wall?group=bay-1`);
    await untilInPage(wall, CARD_COUNT, cards(2), 'two wall cards');
    assert.match(await wall.locator('.wall-title').innerText(), /group bay-1/);
    assert.deepEqual(d.pageErrors(wall), []);
    assert.deepEqual(d.pageErrors(page), [], 'no errors (CSP violations included) on the farm page');
  });
});
