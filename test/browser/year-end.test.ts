// The dashboard reads the time on the server's clock, not the browser's: a server started at 23:45 on New Year's Eve
// shows the farm card's finish time, the printer page's, the forecast past midnight and the analytics days on that clock.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSkip, startDashboard, testGcode, type Dashboard } from './harness.js';

const START = '2026-12-31T23:45:00.000Z';

describe('the dashboard on the server clock, across a year end', { skip: browserSkip }, () => {
  let d: Dashboard;
  let page: Page;
  let printerId: string;

  before(async () => {
    d = await startDashboard({ printers: 1, startAt: START });
    printerId = d.printerIds[0]!;
    // A 45-minute print from 23:45 ends after midnight, and the next job is planned on the new year's first day.
    const long = await d.uploadJob(testGcode({ moves: 40_000, minutes: 45 }), { printer_id: printerId, name: 'late print' }, 'late.gcode');
    await d.until('the print to start', async () => (await d.api('GET', `/v1/jobs/${long.id}`)).status === 'printing');
    await d.uploadJob(testGcode({ moves: 100, minutes: 12 }), { name: 'first of the year' }, 'next.gcode');
    page = await d.newPage();
    await d.signInWithKey(page);
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
  });

  it('the test clock is the server clock: the API stamps jobs on it', async () => {
    const elapsed = d.clock.now() - Date.parse(START);
    assert.ok(elapsed >= 0 && elapsed < 5 * 60_000, `the server clock runs from ${START}`);
    const jobs = await d.api<{ data: Array<{ created_at: string }> }>('GET', '/v1/jobs?per_page=10');
    for (const j of jobs.data) assert.match(j.created_at, /^2026-12-31T23:4\d:/);
  });

  it('the farm card says the print finishes just after midnight', async () => {
    const eta = page.locator(`article.printer-card[data-printer-id="${printerId}"] .eta`);
    await eta.waitFor();
    // 45 minutes from 23:45, less what has printed: 12:2x or 12:30 AM on the server's clock.
    assert.match(await eta.innerText(), /done about 12:[23]\d AM/);
  });

  it("the printer page's finish time is on the server clock too", async () => {
    await page.goto(`${d.url}/#/printers/${printerId}`);
    const finishes = page.locator('.current-job dt:text-is("Finishes") + dd');
    await finishes.waitFor();
    assert.match(await finishes.innerText(), /^12:[23]\d AM/);
  });

  it('the forecast starts at 11:45 PM and names the new day for what comes after midnight', async () => {
    await page.goto(`${d.url}/#/queue`);
    const forecast = page.locator('section.forecast');
    await forecast.locator('.fc-block.forecast').first().waitFor();
    assert.match(await forecast.locator('.fc-axis-label').innerText(), /^Now 11:4\d PM$/);
    // 2027-01-01 is a Friday: past midnight the times carry the day.
    const text = await forecast.locator('.fc-text').first().innerText();
    assert.match(text, /now–Fri 12:[23]\d AM late print/);
    assert.match(text, /Fri 12:[23]\d AM–Fri 12:[345]\d AM first of the year/);
    await d.shoot(page, 'queue-year-end');
  });

  it("analytics' default week ends on the server's day", async () => {
    await page.goto(`${d.url}/#/analytics`);
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
    await page.getByLabel('Custom').check();
    assert.equal(await page.getByLabel('First day').inputValue(), '2026-12-25');
    assert.equal(await page.getByLabel('Last day').inputValue(), '2026-12-31');
  });
});
