// The printer page in headless Chromium against a real server with virtual printers: status and chart, console, pause and
// resume, the emergency stop's confirmation and recovery, job history, connection details and serial statistics.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import path from 'node:path';
import { browserSkip, SCREENSHOTS, startDashboard, testGcode, type Dashboard } from './harness.js';

describe('printer page', { skip: browserSkip }, () => {
  let d: Dashboard;
  let page: Page;
  let printerId: string;
  let jobId: string;

  const printer = () => d.api<{ status: string; ready: boolean; current_job: string | null }>('GET', `/v1/printers/${printerId}`);
  const badge = () => page.locator('.printer-head .badge').first();
  const waitBadge = (word: RegExp) => d.until(`the status badge to say ${word}`, async () => word.test(await badge().innerText()));
  const readings = async () => Number(/\((\d+) readings\)/.exec(await page.locator('#temp-summary').innerText())?.[1] ?? 0);

  before(async () => {
    d = await startDashboard({ printers: 2, printerFields: (i: number) => ({ model: 'Virtual MK3', group: i === 0 ? 'bay-1' : 'bay-2' }) });
    printerId = d.printerIds[0]!;
    page = await d.newPage();
    await d.signInWithKey(page);
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
  });

  it('shows the printer with its status, a temperature chart with data and its words, and serial statistics', async () => {
    await page.goto(`${d.url}/#/printers/${printerId}`);
    await page.getByRole('heading', { level: 1, name: 'Printer 1' }).waitFor();
    assert.match(await badge().innerText(), /idle/i);
    assert.match(await page.locator('.printer-sub').innerText(), /Virtual MK3/);
    // History (every 5 s) plus live telemetry (every second): readings arrive without a reload.
    await d.until('the chart to have readings', async () => (await readings()) > 0, 15_000);
    const first = await readings();
    await d.until('live readings to be added', async () => (await readings()) > first, 15_000);
    assert.match(await page.locator('#temp-summary').innerText(), /Now: hotend \d+°C/);
    assert.equal(await page.locator('.chart-box canvas').count(), 1, 'uPlot drew its canvas');
    const legend = await page.locator('.u-legend').innerText();
    for (const series of ['Hotend', 'Hotend target', 'Bed', 'Bed target']) assert.ok(legend.includes(series), `legend names ${series}`);

    const conn = page.locator('.printer-connection');
    assert.match(await conn.innerText(), /sim:\/\/browser-1/);
    assert.match(await conn.innerText(), /Connected since/);
    const stats = page.locator('table.serial-stats');
    await stats.waitFor();
    for (const row of ['Lines sent', 'Resend requests', 'Firmware errors', 'Timeouts']) {
      assert.match(await stats.innerText(), new RegExp(row), `serial table shows ${row}`);
    }
    const sent = Number((await stats.locator('tr', { hasText: 'Lines sent' }).locator('td').innerText()).replace(/\D/g, ''));
    assert.ok(sent > 0, 'the handshake sent lines');
  });

  it('sends M105 from the console and shows the reply', async () => {
    const input = page.getByLabel('G-code command');
    await input.fill('M105');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const reply = page.locator('.console-entry .console-reply').last();
    await reply.waitFor();
    assert.match(await reply.innerText(), /T:\d/);
    assert.match(await reply.innerText(), /\bok\b/);
    assert.equal(await input.inputValue(), '', 'the input is cleared after a sent command');
    // The arrow key recalls it.
    await input.press('ArrowUp');
    assert.equal(await input.inputValue(), 'M105');
    // Heat up from the console, so the chart has a curve and targets to show.
    for (const command of ['M140 S60', 'M104 S200']) {
      await input.fill(command);
      await input.press('Enter');
      await page.locator('.console-entry', { hasText: command }).locator('.console-reply').waitFor();
    }
    await d.until('the chart to show the targets', async () => /target 200°C.*target 60°C/.test(await page.locator('#temp-summary').innerText()), 15_000);
  });

  it('pauses and resumes a printing job, and explains the console refusal while printing', async () => {
    const job = await d.uploadJob(testGcode({ moves: 30_000, minutes: 30 }), { printer_id: printerId, name: 'long bracket' }, 'long-bracket.gcode');
    jobId = job.id;
    await waitBadge(/printing/i);
    await page.locator('.current-job', { hasText: 'long bracket' }).waitFor();
    assert.equal(await page.locator('.current-job [role=progressbar]').count(), 1);
    assert.equal(await page.getByRole('button', { name: 'Resume' }).isDisabled(), true, 'resume is off while printing');
    assert.match(await page.locator('#action-resume-why').innerText(), /not paused/);
    assert.equal(await page.getByRole('button', { name: 'Home axes' }).isDisabled(), true, 'home is off while printing');

    // The safe list, in words.
    assert.match(await page.locator('.printer-console .note.warning').innerText(), /only passes M105/);
    await page.getByLabel('G-code command').fill('G28');
    d.expectAnswers({ status: 409, path: /^\/v1\/printers\/prt_\w+\/commands$/ });
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const refusal = page.locator('.console-error').last();
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /Not sent: G28 could disturb the running print/);
    assert.equal(await page.getByLabel('G-code command').inputValue(), 'G28', 'the refused command stays in the input');
    await page.getByLabel('G-code command').fill('');

    await d.checkA11y(page, 'printer page while printing');
    await page.evaluate('window.scrollTo(0, 0)');
    await d.shoot(page, 'printer', { fullPage: true });

    await page.getByRole('button', { name: 'Pause' }).click();
    await waitBadge(/paused/i);
    await d.until('the job to be paused', async () => (await d.api('GET', `/v1/jobs/${jobId}`)).status === 'paused');
    assert.equal(await page.getByRole('button', { name: 'Pause' }).isDisabled(), true);
    await page.getByRole('button', { name: 'Resume' }).click();
    await waitBadge(/printing/i);
    await d.until('the job to print again', async () => (await d.api('GET', `/v1/jobs/${jobId}`)).status === 'printing');
    assert.deepEqual(d.pageErrors(page), []);
  });

  it('asks before an emergency stop, then stops, and the printer can be reconnected and its bed marked clear', async () => {
    const stop = page.getByRole('button', { name: 'Emergency stop' });
    await stop.click();
    const dialog = page.locator('dialog[open]');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /halts at once/);
    assert.match(await dialog.innerText(), /reconnect/);
    await d.checkA11y(page, 'emergency stop confirmation');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'printer-estop-dialog-desktop.png') });
    // Cancelling the dialog sends nothing.
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog.waitFor({ state: 'detached' }).catch(() => {});
    assert.equal(await page.locator('dialog[open]').count(), 0);
    assert.equal((await printer()).status, 'printing');

    await stop.click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Stop the printer now' }).click();
    await waitBadge(/error/i);
    assert.match(await page.locator('.printer-controls .note.success').innerText(), /Emergency stop sent/);
    await d.until('the job to fail', async () => (await d.api('GET', `/v1/jobs/${jobId}`)).status === 'failed');
    const connect = page.getByRole('button', { name: 'Connect', exact: true });
    assert.equal(await connect.isDisabled(), false, 'Connect is offered after an emergency stop');
    await connect.click();
    await waitBadge(/idle/i);

    // The failed print left the bed not ready: the button clears it.
    await d.until('the printer to be not ready', async () => (await printer()).ready === false);
    const cleared = page.getByRole('button', { name: 'Bed cleared' });
    await cleared.waitFor();
    await cleared.click();
    await d.until('the printer to be ready', async () => (await printer()).ready === true);
    await cleared.waitFor({ state: 'detached' });
  });

  it('lists the printer’s jobs newest first with their status', async () => {
    await d.uploadJob(testGcode({ moves: 200 }), { printer_id: printerId, name: 'small clip' }, 'small-clip.gcode');
    await d.until('the clip to complete', async () => {
      const list = await d.api<{ data: Array<{ name: string; status: string }> }>('GET', `/v1/jobs?printer_id=${printerId}&sort=-created_at`);
      return list.data[0]?.status === 'completed';
    });
    const rows = page.locator('.printer-jobs tbody tr');
    await d.until('the history to show the completed clip', async () => /completed/i.test(await rows.first().innerText()), 10_000);
    assert.match(await rows.nth(0).innerText(), /small clip/);
    assert.match(await rows.nth(1).innerText(), /long bracket/);
    assert.match(await rows.nth(1).innerText(), /failed/i);
    await d.checkA11y(page, 'printer page after prints');
    assert.deepEqual(d.pageErrors(page), []);
  });

  it('explains an unknown printer in words', async () => {
    const other = await d.newPage({ mobile: true });
    await d.signInWithKey(other);
    d.expectAnswers({ status: 404, path: '/v1/printers/prt_doesnotexist0000000' });
    await other.goto(`${d.url}/#/printers/prt_doesnotexist0000000`);
    const error = other.locator('.note.error');
    await error.waitFor();
    assert.match(await error.innerText(), /Reload the page|deleted/);
  });
});
