// The Analytics page in headless Chromium: figures and charts after a printed job, period and group changes, CSV export.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSkip, startDashboard, testGcode, type Dashboard } from './harness.js';

describe('analytics page', { skip: browserSkip }, () => {
  let d: Dashboard;
  let page: Page;
  let jobId: string;

  before(async () => {
    d = await startDashboard({ printers: 2, printerFields: (i) => ({ group: i === 0 ? 'east' : 'west', power_watts: 120 }) });
    await d.api('PATCH', '/v1/organization', { hourly_rate: 2, currency: 'EUR' });
    // A spool on Printer 1 so the job's filament has a price.
    await d.api('POST', '/v1/materials', { type: 'PLA', color: 'black', spool_weight: 1000, cost_per_kg: 25, printer_id: d.printerIds[0], tool: 0 });
    // Only Printer 1 (group east) takes the job: Printer 2 waits with its bed "not cleared".
    await d.api('POST', `/v1/printers/${d.printerIds[1]}/actions`, { action: 'disconnect' });
    const job = await d.uploadJob(testGcode({ moves: 400 }), {}, 'bracket.gcode');
    jobId = job.id;
    await d.until('the job to complete', async () => (await d.api('GET', `/v1/jobs/${jobId}`)).status === 'completed', 60_000);
    page = await d.newPage();
    await d.signInWithKey(page);
  });
  after(async () => {
    await d?.close();
  });

  const tile = (label: string) => page.locator('.tile', { has: page.locator('.tile-label', { hasText: label }) }).locator('.tile-value');

  it('shows the figures and four charts with their tables after a printed job', async () => {
    await page.goto(`${d.url}/#/analytics`);
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
    await tile('Jobs completed').filter({ hasText: '1' }).waitFor();
    assert.equal(await tile('Success rate').innerText(), '100 %');
    assert.notEqual(await tile('Utilization').innerText(), '0 %');
    assert.match(await tile('Estimated cost').innerText(), /€|EUR/);

    // Each chart draws on a canvas and has a text alternative: a summary sentence and the same numbers as a table.
    for (const id of ['chart-utilization', 'chart-success', 'chart-cost', 'chart-material']) {
      const figure = page.locator(`figure:has(#${id}-title)`);
      await figure.locator('.chart-box canvas').first().waitFor();
      assert.ok((await figure.locator('[role=img]').getAttribute('aria-label'))?.length);
      assert.ok((await figure.locator('.chart-table tbody tr').count()) >= 7, `${id} has a row per day`);
    }
    const success = page.locator('figure:has(#chart-success-title) .chart-table');
    await success.locator('summary').click();
    assert.match(await success.locator('tbody').innerText(), /100 %/);
    const material = await page.locator('figure:has(#chart-material-title) .chart-table tbody').innerText();
    assert.match(material, /[1-9][\d.]* g/, 'a day with filament used');

    // The per-printer table: the printer that printed first.
    const first = page.locator('table.printer-stats tbody tr').first();
    assert.match(await first.innerText(), /Printer 1\s+east/);
    await d.shoot(page, 'analytics', { fullPage: true });
    await d.checkA11y(page, 'analytics');
  });

  it('changes the period, the interval and the group', async () => {
    await page.getByLabel('Last 24 hours').check();
    await page.locator('#an-interval option', { hasText: 'Automatic (hour)' }).waitFor({ state: 'attached' });
    const rows = page.locator('figure:has(#chart-utilization-title) .chart-table tbody tr');
    await d.until('hourly points', async () => (await rows.count()) >= 24);
    assert.ok((await rows.count()) <= 25);

    await page.getByLabel('Points per').selectOption('day');
    await d.until('daily points', async () => (await rows.count()) <= 2);

    await page.getByLabel('Printer group').selectOption('west');
    await tile('Jobs completed').filter({ hasText: /^0$/ }).waitFor();
    assert.match(await page.locator('table.printer-stats').innerText(), /Printer 2/);
    assert.doesNotMatch(await page.locator('table.printer-stats').innerText(), /Printer 1/);
    await page.getByText('Nothing was printed in this period by this group').waitFor();
    await page.getByLabel('Printer group').selectOption('');
    await tile('Jobs completed').filter({ hasText: /^1$/ }).waitFor();

    await page.getByLabel('Custom').check();
    const today = new Date().toISOString().slice(0, 10);
    await page.getByLabel('First day').fill('2020-01-01');
    await page.getByLabel('Last day').fill(today);
    await page.getByLabel('Points per').selectOption('hour');
    await page.getByText(/more than 1000 hours/).waitFor();
    await page.getByLabel('Points per').selectOption('');
    await page.locator('#an-interval option', { hasText: 'Automatic (month)' }).waitFor({ state: 'attached' });
    await tile('Jobs completed').filter({ hasText: /^1$/ }).waitFor();
    await page.getByLabel('Last 7 days').check();
    await tile('Jobs completed').filter({ hasText: /^1$/ }).waitFor();
  });

  it('exports the period as CSV through a plain link the session cookie authenticates', async () => {
    const link = page.getByRole('link', { name: 'Export CSV' });
    assert.equal(await link.getAttribute('download'), 'jobs.csv');
    const href = (await link.getAttribute('href')) as string;
    const url = new URL(href, d.url);
    assert.equal(url.pathname, '/v1/analytics/export');
    assert.equal(url.searchParams.get('dataset'), 'jobs');
    assert.equal(url.searchParams.get('format'), 'csv');
    assert.ok(url.searchParams.get('from') && url.searchParams.get('to'));
    // The page's own cookies, no Authorization header.
    const res = await page.request.get(url.toString());
    assert.equal(res.status(), 200);
    assert.match(res.headers()['content-type'] ?? '', /text\/csv/);
    const csv = await res.text();
    assert.match(csv.split('\r\n')[0] as string, /^id,name,status,/);
    assert.ok(csv.includes(jobId), 'the printed job is a row');

    // A click downloads the file.
    await page.getByLabel('Data').selectOption('printers');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    assert.equal(download.suggestedFilename().endsWith('.csv'), true);
    assert.deepEqual(d.pageErrors(page), []);
  });

  it('fits a phone', async () => {
    const phone = await d.newPage({ mobile: true });
    await d.signInWithKey(phone);
    await phone.goto(`${d.url}/#/analytics`);
    await phone.locator('figure:has(#chart-cost-title) canvas').first().waitFor();
    await d.checkA11y(phone, 'analytics on a phone');
    assert.deepEqual(d.pageErrors(phone), []);
  });
});
