// The queue page's Files section in headless Chromium against a real server: files uploaded through /v1 are listed
// with thumbnail, size, time and material; Queue opens the settings form and queues the stored file by file_id (its
// settings prefill the next form); a pruned file says it was removed by retention and offers no Queue; screenshots, axe.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { isoTime } from '../../src/clock.js';
import { markFilePruned } from '../../src/files/files.repository.js';
import { browserSkip, solidPng, startDashboard, testGcode, type Dashboard } from './harness.js';

describe('queue page: stored files', { skip: browserSkip }, () => {
  let d: Dashboard;
  let page: Page;
  let bracketFile = '';
  const jobsOf = async (fileId: string) =>
    (await d.api<{ data: Array<{ file_id: string; priority: string; group: string | null; status: string }> }>('GET', '/v1/jobs?per_page=100')).data.filter(
      (j) => j.file_id === fileId,
    );
  const item = (name: string) => page.locator('li.stored-file', { has: page.locator(`strong:text-is("${name}")`) });

  before(async () => {
    // The printer holds PETG and the files want PLA: every job stays queued, so the page shows a steady queue.
    d = await startDashboard({ printers: 1, printerFields: () => ({ group: 'bay-1', material_type: 'PETG', name: 'MK4 bay' }) });
    const bracket = await d.uploadJob(testGcode({ minutes: 47, thumbnail: solidPng(32, [40, 120, 200]) }), {}, 'bracket-v2.gcode');
    bracketFile = bracket.file_id;
    const old = await d.uploadJob(testGcode({ minutes: 5, moves: 50 }), {}, 'old-part.gcode');
    // Pruned: its job ended first (a queued job's file is never pruned).
    await d.api('DELETE', `/v1/jobs/${old.id}`);
    const oldFile = await d.api<{ last_used_at: string }>('GET', `/v1/files/${old.file_id}`);
    assert.equal(await markFilePruned(d.server.deps.db, old.file_id, oldFile.last_used_at, isoTime(d.clock.now())), true);
    page = await d.newPage();
    await d.signInWithKey(page);
    await page.goto(`${d.url}/#/queue`);
    await page.getByRole('heading', { level: 2, name: /^Files/ }).waitFor();
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    await d?.close();
  });

  it('lists the stored files: thumbnail, size, upload time, estimated time, material; a pruned one without Queue', async () => {
    await item('bracket-v2.gcode').waitFor();
    const bracket = item('bracket-v2.gcode');
    assert.equal(await bracket.locator('img.thumb').getAttribute('src'), `/v1/files/${bracketFile}/thumbnail`);
    assert.ok(await bracket.locator('img.thumb').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth === 32), 'the thumbnail loaded');
    const facts = await bracket.locator('small.hint').innerText();
    assert.match(facts, /\d+ KB · uploaded Nov 23, 2026, .* · 47 min · PLA · 2\.5 g · queued 1×/);
    assert.equal(await bracket.getByRole('button', { name: 'Queue bracket-v2.gcode' }).count(), 1);

    const old = item('old-part.gcode');
    assert.match(await old.innerText(), /Removed by retention .*: upload it again to print it/);
    assert.equal(await old.getByRole('button').count(), 0, 'no Queue for a pruned file');
    assert.equal(await old.locator('img').count(), 0, 'no thumbnail request for a pruned file');
    await d.checkA11y(page, 'queue with stored files');
  });

  it('Queue opens the settings form and queues the stored file by file_id; the next form starts from those settings', async () => {
    const bracket = item('bracket-v2.gcode');
    await bracket.getByRole('button', { name: 'Queue bracket-v2.gcode' }).click();
    const form = page.getByRole('form', { name: 'Queue bracket-v2.gcode' });
    assert.equal(await form.getByLabel('Copies').inputValue(), '1', 'prefilled with the defaults');
    assert.equal(await form.getByLabel('Material type (optional)').getAttribute('placeholder'), 'PLA', "the file's material when left empty");
    assert.deepEqual(await form.getByLabel('Printer or group').locator('option').allInnerTexts(), ['Any fitting printer', 'MK4 bay', 'Group bay-1']);
    await form.getByLabel('Copies').fill('2');
    await form.getByLabel('Priority', { exact: true }).selectOption('high');
    await form.getByLabel('Printer or group').selectOption('group:bay-1');
    await d.checkA11y(page, 'queue form of a stored file');
    await d.shoot(page, 'queue-files-form');
    await form.getByRole('button', { name: 'Queue 2 copies in group bay-1' }).click();

    await bracket.getByText('✓ Queued:').waitFor();
    assert.match(await bracket.locator('.ok-text').innerText(), /✓ Queued: bracket-v2 \(1\/2\)/);
    const jobs = await jobsOf(bracketFile);
    assert.equal(jobs.length, 3, 'the upload\'s job and the two copies');
    assert.deepEqual(
      jobs.filter((j) => j.priority === 'high').map((j) => [j.group, j.status]),
      [['bay-1', 'queued'], ['bay-1', 'queued']],
    );
    // The list follows (job.created): the file now counts three jobs; the queue shows the copies.
    await d.until('the list to count three jobs', async () => /queued 3×/.test(await bracket.locator('small.hint').innerText()), 10_000);
    await page.locator('li.queue-job', { has: page.locator('strong:text-is("bracket-v2 (2/2)")') }).waitFor();

    await bracket.getByRole('button', { name: 'Queue bracket-v2.gcode' }).click();
    const again = page.getByRole('form', { name: 'Queue bracket-v2.gcode' });
    assert.equal(await again.getByLabel('Copies').inputValue(), '2');
    assert.equal(await again.getByLabel('Priority', { exact: true }).inputValue(), 'high');
    assert.equal(await again.getByLabel('Printer or group').inputValue(), 'group:bay-1');
    await again.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await again.count(), 0);
    await d.shoot(page, 'queue-files', { fullPage: true });
  });

  it('the search narrows the list by part of the name', async () => {
    await page.getByLabel('Search by name').fill('OLD-');
    await d.until('only the old part to be listed', async () => (await page.locator('li.stored-file').count()) === 1);
    assert.equal(await page.locator('li.stored-file strong').innerText(), 'old-part.gcode');
    await page.getByLabel('Search by name').fill('');
    await d.until('both files to be listed', async () => (await page.locator('li.stored-file').count()) === 2);
  });
});
