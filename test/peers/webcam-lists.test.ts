// The printers' own webcam lists on the real programs of the peers kit: a webcam added, changed and removed in Moonraker
// (its /server/webcams/item API, as Mainsail does) and OctoPrint's classic webcam settings become the printer's cameras,
// and a picture comes through the farm from the address the printer listed (ffmpeg's test pattern).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { peerMissing, peerPath } from './peers-env.js';
import { answers, startPeer, untilPeer, type PeerProcess } from './peer-process.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { ffmpegMissing, ffmpegSnapshot, type FfmpegCamera } from '../cameras/ffmpeg-camera.js';

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(base + path, {
    method,
    headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function camerasOf(app: PrintersApp, printerId: string): Promise<any[]> {
  return (await app.call('GET', `/v1/cameras?printer_id=${printerId}`)).body.data;
}

describe('Moonraker webcams', { skip: peerMissing('moonraker') || ffmpegMissing() }, () => {
  const BASE = 'http://127.0.0.1:7125';
  let peer: PeerProcess | null = null;
  let app: PrintersApp;
  let snap: FfmpegCamera | undefined;
  before(async () => {
    peer = startPeer('moonraker', peerPath('moonraker', 'run_moonraker.sh'), ['sim']);
    await untilPeer(peer, 'Moonraker answering', answers(`${BASE}/server/info`));
    // A webcam list left by an earlier run starts empty.
    const listed = (await call(BASE, 'GET', '/server/webcams/list')).result.webcams as Array<{ name: string }>;
    for (const w of listed) await call(BASE, 'DELETE', `/server/webcams/item?name=${encodeURIComponent(w.name)}`).catch(() => undefined);
    app = await startPrintersApp();
  });
  after(async () => {
    snap?.stop();
    await app?.close();
    await peer?.stop();
  });

  it('adds, changes and removes the cameras Moonraker lists, and serves their pictures', async () => {
    snap = await ffmpegSnapshot();
    await call(BASE, 'POST', '/server/webcams/item', { name: 'nozzle', service: 'mjpegstreamer', stream_url: '/webcam/?action=stream', snapshot_url: snap.url, rotation: 90, flip_horizontal: true });
    const printer = await app.create({ name: 'voron', connection_url: 'moonraker://127.0.0.1:7125' });
    // Read when the printer comes online.
    await app.until('the nozzle camera', async () => (await camerasOf(app, printer.id)).some((c) => c.name === 'nozzle'), 60_000);
    const [cam] = await camerasOf(app, printer.id);
    assert.equal(cam.source, 'moonraker');
    assert.equal(cam.stream_url, 'http://127.0.0.1/webcam/?action=stream', 'a path is on the printer’s web server, as Moonraker completes it');
    assert.equal(cam.snapshot_url, snap.url);
    assert.equal(cam.rotation, 90);
    assert.equal(cam.flip_horizontal, true);
    const shot = await app.t.request(`/v1/cameras/${cam.id}/snapshot`, { headers: { Authorization: `Bearer ${app.admin}` } });
    assert.equal(shot.status, 200);
    assert.equal(shot.headers.get('content-type'), 'image/jpeg');
    snap.stop();

    await call(BASE, 'POST', '/server/webcams/item', { name: 'nozzle', rotation: 180, flip_horizontal: false });
    await app.t.deps.webcamSync.syncPrinter(printer.id);
    const changed = (await camerasOf(app, printer.id))[0];
    assert.equal(changed.id, cam.id, 'the same camera, changed');
    assert.equal(changed.rotation, 180);
    assert.equal(changed.flip_horizontal, false);

    await call(BASE, 'DELETE', '/server/webcams/item?name=nozzle');
    await app.t.deps.webcamSync.syncPrinter(printer.id);
    assert.deepEqual(await camerasOf(app, printer.id), []);
  });
});

describe('OctoPrint webcams', { skip: peerMissing('octoprint') }, () => {
  const BASE = 'http://127.0.0.1:5000';
  /** The application key the peers kit seeds (OCTOPRINT_APP_KEY in its README). */
  const KEY = 'A99C0DE0A99C0DE0A99C0DE0A99C0DE0';
  let peer: PeerProcess | null = null;
  let app: PrintersApp;
  before(async () => {
    peer = startPeer('octoprint', peerPath('octoprint', 'run_octoprint.sh'), ['marlin']);
    await untilPeer(peer, 'OctoPrint answering', answers(`${BASE}/api/version`, { 'X-Api-Key': KEY }), 120_000);
    app = await startPrintersApp();
  });
  after(async () => {
    await app?.close();
    await peer?.stop();
  });

  it("reads OctoPrint's classic webcam settings into a camera", async () => {
    await call(BASE, 'POST', '/api/settings', { plugins: { classicwebcam: { stream: '/webcam/?action=stream', snapshot: 'http://127.0.0.1:8080/?action=snapshot', rotate90: true, flipV: true } } }, { 'X-Api-Key': KEY });
    const printer = await app.create({ name: 'ender', connection_url: 'octoprint://127.0.0.1:5000', api_key: KEY });
    await app.t.deps.webcamSync.syncPrinter(printer.id);
    await app.until('the classic webcam', async () => (await camerasOf(app, printer.id)).length > 0, 60_000);
    const [cam] = await camerasOf(app, printer.id);
    assert.equal(cam.source, 'octoprint');
    assert.equal(cam.stream_url, 'http://127.0.0.1:5000/webcam/?action=stream');
    assert.equal(cam.snapshot_url, 'http://127.0.0.1:8080/?action=snapshot');
    assert.equal(cam.rotation, 270, "rotate90 is a quarter turn counter-clockwise");
    assert.equal(cam.flip_vertical, true);
  });
});
