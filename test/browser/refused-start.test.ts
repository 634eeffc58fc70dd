// A printer that refuses job starts, in headless Chromium: its card and page show what it said and a Retry button, the
// queue says which printer holds the job back and why; Retry after the fix prints the job and the warning goes.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { refuseStarts } from '../jobs/jobs-harness.js';
import { browserSkip, startDashboard, testGcode, type Dashboard } from './harness.js';

const FULL = 'POST /api/files/local: HTTP 507 Insufficient Storage';

describe('a printer that refuses job starts, on the dashboard', { skip: browserSkip }, () => {
  let d: Dashboard;
  let page: Page;
  let id: string;
  let refusing: ReturnType<typeof refuseStarts>;

  before(async () => {
    d = await startDashboard({ printers: 1, printerFields: () => ({ name: 'Full MK4' }) });
    id = d.printerIds[0]!;
    // As a printer whose storage is full answers an upload (the server offers it again after 5 s; held after 3).
    refusing = refuseStarts(d.server.deps.sessions, id, FULL);
    page = await d.newPage();
    await d.signInWithKey(page);
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
  });

  it('shows the hold on the card and in the queue, and Retry after the fix prints the job', async () => {
    const job = await d.uploadJob(testGcode({ moves: 20 }), { name: 'bracket' });
    await d.until('the printer held', async () => (await d.api('GET', `/v1/printers/${id}`)).start_refusal !== null, 30_000);

    const card = page.locator(`article.printer-card[data-printer-id="${id}"]`);
    await card.locator('.start-refused').waitFor({ timeout: 10_000 });
    assert.match(await card.locator('.start-refused').innerText(), /Refused the last 3 job starts: no job is sent to it\.[\s\S]*507 Insufficient Storage/);
    await d.checkA11y(page, 'farm with a refusing printer');
    await d.shoot(page, 'farm-refused-start');

    await page.goto(`${d.url}/#/queue`);
    const row = page.locator(`#job-${job.id} .waiting`);
    await row.waitFor({ timeout: 10_000 });
    assert.equal(await row.getAttribute('data-reason'), 'printer_refused');
    assert.match(await row.innerText(), /A printer refused to start it[\s\S]*Printer "Full MK4" refused to start jobs: POST \/api\/files\/local: HTTP 507/);
    await d.checkA11y(page, 'queue held by a refusing printer');
    await d.shoot(page, 'queue-refused-start');

    // The storage was emptied: Retry on the printer's page.
    refusing.on = false;
    await page.goto(`${d.url}/#/printers/${id}`);
    await page.getByRole('button', { name: 'Retry Full MK4' }).click();
    await d.until('the job printed', async () => (await d.api('GET', `/v1/jobs/${job.id}`)).status === 'completed', 30_000);
    await page.locator('.start-refused').waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(refusing.attempts, 4);
  });
});
