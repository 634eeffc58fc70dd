// Cameras in the dashboard, in headless Chromium against a real server: the card picture (and a camera that gives none
// says so in words), the live view on the printer page from ffmpeg's MJPEG stream, a job's pictures, and the camera
// settings; at both sizes with axe and no console errors.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { freeTcpPort } from '../helpers/free-tcp-port.js';
import { ffmpegJpeg, ffmpegMissing, ffmpegStream, type FfmpegCamera } from '../cameras/ffmpeg-camera.js';
import { browserSkip, startDashboard, testGcode, type Dashboard } from './harness.js';

describe('cameras in the dashboard', { skip: browserSkip || ffmpegMissing() }, () => {
  let d: Dashboard;
  let page: Page;
  let snapshots: http.Server;
  let snapshotUrl: string;
  let deadUrl: string;
  let stream: FfmpegCamera | undefined;
  let snapshotHits = 0;
  const picture = browserSkip || ffmpegMissing() ? Buffer.alloc(0) : ffmpegJpeg();
  const [p1, p2] = [0, 1];

  before(async () => {
    // ffmpeg's test pattern, made once by ffmpeg and served as a snapshot URL as often as asked.
    snapshots = http.createServer((_req, res) => {
      snapshotHits++;
      res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': picture.length });
      res.end(picture);
    });
    await new Promise<void>((r) => snapshots.listen(0, '127.0.0.1', r));
    snapshotUrl = `http://127.0.0.1:${(snapshots.address() as AddressInfo).port}/snapshot.jpg`;
    deadUrl = `http://127.0.0.1:${await freeTcpPort()}/snapshot.jpg`;
    d = await startDashboard({ printers: 2 });
    page = await d.newPage();
    await d.signInWithKey(page);
  });
  afterEach(() => d?.checkPages());
  after(async () => {
    stream?.stop();
    await d?.close();
    snapshots?.closeAllConnections();
    await new Promise<void>((r) => snapshots?.close(() => r()));
  });

  const printerId = (i: number) => d.printerIds[i]!;
  // Expressions as text: the test's own functions are compiled with helpers the page does not have.
  const loaded = (selector: string) =>
    d.until(`${selector} to show a picture`, async () => (await page.evaluate(`(() => { const img = document.querySelector(${JSON.stringify(selector)}); return !!img && img.complete && img.naturalWidth > 0; })()`)) === true, 15_000);

  it('shows each card its camera picture, and a camera that gives none says so in words', async () => {
    await d.api('POST', `/v1/printers/${printerId(p1)}/cameras`, { name: 'Bed cam', snapshot_url: snapshotUrl, refresh_seconds: 2 });
    await d.api('POST', `/v1/printers/${printerId(p2)}/cameras`, { name: 'Dead cam', snapshot_url: deadUrl });
    d.expectAnswers({ status: 502, path: /^\/v1\/cameras\/cam_[A-Za-z0-9]+\/snapshot$/ });
    await page.goto(`${d.url}/#/`);
    const card1 = page.locator(`[data-printer-id="${printerId(p1)}"]`);
    const card2 = page.locator(`[data-printer-id="${printerId(p2)}"]`);
    await loaded(`[data-printer-id="${printerId(p1)}"] .cam-picture img`);
    assert.equal(await card1.locator('.cam-picture img').getAttribute('alt'), 'Bed cam: current picture of Printer 1');
    await card2.locator('.cam-problem').waitFor();
    assert.match(await card2.locator('.cam-problem').innerText(), /Camera Dead cam gives no picture: camera "Dead cam": the connection to 127\.0\.0\.1:\d+ was refused/);
    assert.equal(await card2.locator('img').count(), 0, 'no broken image');
    // Refreshed while visible, at the camera's rate (2 s).
    const before = snapshotHits;
    await d.until('the card picture to refresh', () => snapshotHits >= before + 2, 15_000);
    await d.shoot(page, 'cameras-farm');
    await d.checkA11y(page, 'farm with cameras');
  });

  it('shows the pictures on the wall screen too', async () => {
    d.expectAnswers({ status: 502, path: /^\/v1\/cameras\/cam_[A-Za-z0-9]+\/snapshot$/ });
    await page.goto(`${d.url}/#/wall`);
    await loaded(`.wall-card[data-printer-id="${printerId(p1)}"] .cam-picture img`);
    await page.locator(`.wall-card[data-printer-id="${printerId(p2)}"] .cam-problem`).waitFor();
    await d.shoot(page, 'cameras-wall');
    await d.checkA11y(page, 'wall with cameras');
    await page.goto(`${d.url}/#/`);
    await loaded(`[data-printer-id="${printerId(p1)}"] .cam-picture img`);
  });

  it('fetches no card picture while the tab is hidden', async () => {
    // The dead camera's card asks again once visible, and fails again, on purpose.
    d.expectAnswers({ status: 502, path: /^\/v1\/cameras\/cam_[A-Za-z0-9]+\/snapshot$/ });
    // As a browser does when the tab goes to the background (the page reads document.visibilityState).
    const setVisibility = (state: string) =>
      page.evaluate(`Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${state}' }); document.dispatchEvent(new Event('visibilitychange'))`);
    await setVisibility('hidden');
    await new Promise((r) => setTimeout(r, 500));
    const hidden = snapshotHits;
    await new Promise((r) => setTimeout(r, 5000));
    assert.equal(snapshotHits, hidden, 'no request while hidden');
    await setVisibility('visible');
    await d.until('pictures again once visible', () => snapshotHits > hidden, 10_000);
  });

  it('shows the live stream on the printer page, rotated as set up, with its state in words', async () => {
    // Printer 2's other camera is the dead one: its picture fails, on purpose.
    d.expectAnswers({ status: 502, path: /^\/v1\/cameras\/cam_[A-Za-z0-9]+\/snapshot$/ });
    stream = await ffmpegStream();
    await d.api('POST', `/v1/printers/${printerId(p2)}/cameras`, { name: 'Nozzle cam', stream_url: stream.url, rotation: 180 });
    await page.goto(`${d.url}/#/printers/${printerId(p2)}`);
    const live = page.locator('.cam-live', { hasText: 'Nozzle cam' });
    await loaded('.cam-live .cam-frame img');
    assert.equal(await live.locator('img').getAttribute('alt'), 'Nozzle cam: live view of Printer 2');
    assert.match((await live.locator('img').getAttribute('style')) ?? '', /rotate\(180deg\)/);
    await d.until('the state to say Live', async () => (await live.locator('figcaption').innerText()).includes('Live'), 15_000);
    const dead = page.locator('.cam-live', { hasText: 'Dead cam' });
    assert.match(await dead.locator('.cam-problem').innerText(), /gives no picture/);
    await d.shoot(page, 'cameras-printer-live');
    await d.checkA11y(page, 'printer page with cameras');
  });

  it("shows a job's pictures in the printer's job history", async () => {
    const job = await d.uploadJob(testGcode({ moves: 200 }), { printer_id: printerId(p1), name: 'pictured part' }, 'pictured.gcode');
    await d.until('the job to complete', async () => (await d.api('GET', `/v1/jobs/${job.id}`)).status === 'completed', 60_000);
    const done = await d.api('GET', `/v1/jobs/${job.id}`);
    assert.ok(done.last_snapshot_url);
    await page.goto(`${d.url}/#/printers/${printerId(p1)}`);
    const row = page.locator('.printer-jobs tr', { hasText: 'pictured part' });
    await row.locator('summary').click();
    await loaded('.job-picture-list img');
    const captions = await row.locator('.job-picture-list figcaption').allInnerTexts();
    assert.match(captions[0]!, /^Start/);
    assert.match(captions.at(-1)!, /^Completed/);
    await d.shoot(page, 'cameras-job-pictures', { fullPage: true });
    await d.checkA11y(page, 'job pictures');
  });

  it('adds, changes and removes a camera in the printer settings; credentials are never shown', async () => {
    await page.goto(`${d.url}/#/printer-settings/${printerId(p1)}`);
    const section = page.locator('#cameras');
    await section.getByRole('button', { name: 'Add a camera' }).click();
    const form = section.getByRole('form', { name: 'Add a camera' });
    await form.getByLabel('Name').fill('Door cam');
    await form.getByLabel('Snapshot URL (JPEG)').fill(snapshotUrl.replace('//', '//door:s3cret@'));
    await form.getByLabel('Rotation').selectOption('90');
    await form.getByRole('button', { name: 'Add camera' }).click();
    const row = section.locator('.camera-row', { hasText: 'Door cam' });
    await row.waitFor();
    assert.ok(!(await section.innerText()).includes('s3cret'), 'the password is not shown');
    const cams = (await d.api('GET', `/v1/cameras?printer_id=${printerId(p1)}`)).data;
    const door = cams.find((c: any) => c.name === 'Door cam');
    assert.equal(door.rotation, 90);
    assert.equal(door.has_snapshot_credentials, true);
    await d.shoot(page, 'cameras-settings', { fullPage: true });
    await d.checkA11y(page, 'camera settings');

    await row.getByRole('button', { name: 'Change camera Door cam' }).click();
    const edit = section.getByRole('form', { name: 'Change camera Door cam' });
    await edit.getByLabel('Also a picture every (%)').fill('20');
    await edit.getByRole('button', { name: 'Save camera' }).click();
    await section.getByText('Cameras saved.').waitFor();
    const changed = await d.api('GET', `/v1/cameras/${door.id}`);
    assert.equal(changed.job_picture_step, 20);
    assert.equal(changed.has_snapshot_credentials, true, 'an unchanged URL keeps its credentials');

    await section.locator('.camera-row', { hasText: 'Door cam' }).getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove camera' }).click();
    await d.until('the camera to be removed', async () => (await d.apiRaw('GET', `/v1/cameras/${door.id}`)).status === 404);
  });
});
