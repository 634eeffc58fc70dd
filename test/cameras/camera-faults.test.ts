// Cameras that misbehave: a stream that stalls, sends garbage, closes mid-frame, answers HTML or 401, sends a 20 MB
// frame, or leads to a forbidden address. Each gives a clear state in the API and a 502 with the reason, never a crash,
// and memory stays bounded.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fastSim, startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { ffmpegJpeg, ffmpegMissing } from './ffmpeg-camera.js';

const MAX_FRAME = 1024 * 1024;
const BOUNDARY = 'camfault';
const multipart = { 'Content-Type': `multipart/x-mixed-replace; boundary=${BOUNDARY}` };
const partHead = (length?: number): string => `--${BOUNDARY}\r\nContent-Type: image/jpeg\r\n${length === undefined ? '' : `Content-Length: ${length}\r\n`}\r\n`;

describe('camera faults', { skip: ffmpegMissing() }, () => {
  let app: PrintersApp;
  let printerId: string;
  let camServer: http.Server;
  let base: string;
  const picture = ffmpegMissing() ? Buffer.alloc(0) : ffmpegJpeg();
  let peakHugeBytes = 0;

  before(async () => {
    // The behaviours, one per path; written here on purpose, since no real camera misbehaves on demand.
    camServer = http.createServer((req, res) => {
      const path = req.url ?? '';
      if (path === '/stall') {
        res.writeHead(200, multipart);
        res.write(partHead(picture.length));
        res.write(picture);
        res.write('\r\n');
        return; // and then nothing, with the connection open
      }
      if (path === '/garbage') {
        res.writeHead(200, multipart);
        const noise = setInterval(() => res.write(Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251))), 5);
        res.on('close', () => clearInterval(noise));
        return;
      }
      if (path === '/mid-frame') {
        res.writeHead(200, multipart);
        res.write(partHead(picture.length));
        res.write(picture.subarray(0, picture.length >> 1));
        setTimeout(() => res.destroy(), 50);
        return;
      }
      if (path === '/html') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        return res.end('<!doctype html><title>Router login</title><h1>Please sign in</h1>');
      }
      if (path.startsWith('/auth')) {
        const ok = req.headers.authorization === `Basic ${Buffer.from('cam:pa:ss').toString('base64')}`;
        if (!ok) {
          res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="cam"' });
          return res.end('unauthorized');
        }
        res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': picture.length });
        return res.end(picture);
      }
      if (path === '/huge-declared') {
        res.writeHead(200, multipart);
        res.write(partHead(20 * 1024 * 1024));
        const chunk = Buffer.alloc(64 * 1024, 0x33);
        const pump = setInterval(() => res.write(chunk), 2);
        res.on('close', () => clearInterval(pump));
        return;
      }
      if (path === '/huge-undeclared') {
        res.writeHead(200, multipart);
        res.write(partHead());
        res.write(picture.subarray(0, 4));
        const chunk = Buffer.alloc(64 * 1024, 0x33);
        let sent = 0;
        const pump = setInterval(() => {
          if (sent >= 20 * 1024 * 1024) return clearInterval(pump);
          sent += chunk.length;
          res.write(chunk);
        }, 1);
        res.on('close', () => clearInterval(pump));
        return;
      }
      if (path === '/to-metadata') {
        res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' });
        return res.end();
      }
      res.writeHead(404);
      res.end();
    });
    await new Promise<void>((r) => camServer.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(camServer.address() as AddressInfo).port}`;
    app = await startPrintersApp({
      cameras: { stallMs: 800, idleCloseMs: 300, headersTimeoutMs: 2000, snapshotTimeoutMs: 4000, maxFrameBytes: MAX_FRAME, retryMs: { initial: 200, max: 400 } },
      // A name that resolves to a link-local address: refused while connecting, not only when typed.
      resolveHost: async (host) => (host === 'rebind.test' ? [{ address: '169.254.10.20', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]),
    });
    printerId = (await app.create({ name: 'fault printer', connection_url: fastSim('camfaults') })).id;
  });
  after(async () => {
    await app.close();
    camServer.closeAllConnections();
    await new Promise<void>((r) => camServer.close(() => r()));
  });

  const addCamera = async (body: Record<string, unknown>): Promise<string> => {
    const res = await app.call('POST', `/v1/printers/${printerId}/cameras`, { name: 'faulty', ...body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id as string;
  };
  /** The snapshot's 502 and the camera's state afterwards. */
  const failedSnapshot = async (id: string): Promise<{ error: any; state: any }> => {
    const res = await app.call('GET', `/v1/cameras/${id}/snapshot`);
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'camera_unavailable');
    const state = (await app.call('GET', `/v1/cameras/${id}`)).body.state;
    return { error: res.body.error, state };
  };
  const stillServing = async (): Promise<void> => {
    assert.equal((await app.call('GET', `/v1/printers/${printerId}`)).status, 200);
  };

  const cases: Array<{ name: string; body: () => Record<string, unknown>; code: string; words: RegExp }> = [
    { name: 'sends garbage', body: () => ({ stream_url: `${base}/garbage` }), code: 'garbage', words: /boundary|not a JPEG/ },
    { name: 'closes mid-frame', body: () => ({ stream_url: `${base}/mid-frame` }), code: 'closed', words: /closed the stream/ },
    { name: 'answers a web page on the stream URL', body: () => ({ stream_url: `${base}/html` }), code: 'not_a_camera', words: /text\/html \(a web page\)/ },
    { name: 'answers a web page on the snapshot URL', body: () => ({ snapshot_url: `${base}/html` }), code: 'not_a_camera', words: /a web page/ },
    { name: 'answers 401 without credentials', body: () => ({ snapshot_url: `${base}/auth` }), code: 'unauthorized', words: /answered 401: it needs a user name and password/ },
    { name: 'answers 401 to wrong credentials', body: () => ({ snapshot_url: base.replace('//', '//cam:wrong@') + '/auth' }), code: 'unauthorized', words: /not accepted/ },
    { name: 'declares a 20 MB frame', body: () => ({ stream_url: `${base}/huge-declared` }), code: 'frame_too_large', words: /20\.0 MB, over the 1\.0 MB limit/ },
    { name: 'sends a 20 MB frame without a length', body: () => ({ stream_url: `${base}/huge-undeclared` }), code: 'frame_too_large', words: /over the 1\.0 MB limit/ },
    { name: 'redirects to a cloud metadata address', body: () => ({ stream_url: `${base}/to-metadata` }), code: 'forbidden', words: /169\.254\.169\.254/ },
    { name: 'has a name resolving to a link-local address', body: () => ({ snapshot_url: 'http://rebind.test:8080/snap.jpg' }), code: 'forbidden', words: /rebind\.test resolves to 169\.254\.10\.20/ },
  ];
  for (const c of cases) {
    it(`a camera that ${c.name}: ${c.code} in the API, in words, and the server goes on`, async () => {
      const id = await addCamera(c.body());
      const { error, state } = await failedSnapshot(id);
      assert.equal(error.details, c.code);
      assert.match(error.message, c.words);
      assert.equal(state.status, 'error');
      assert.equal(state.error.code, c.code);
      assert.match(state.error.message, c.words);
      await stillServing();
      if (c.code === 'frame_too_large') {
        const feed = await app.t.deps.cameras.liveFeed(id);
        peakHugeBytes = Math.max(peakHugeBytes, feed.peakBuffered);
      }
    });
  }

  it('never held more than about one frame limit for the 20 MB frames', () => {
    assert.ok(peakHugeBytes > 0);
    assert.ok(peakHugeBytes <= MAX_FRAME + 256 * 1024, `held ${peakHugeBytes} bytes`);
  });

  it('sends the sealed credentials of the URL as Basic auth (a password with a colon in it)', async () => {
    const id = await addCamera({ snapshot_url: base.replace('//', '//cam:pa%3Ass@') + '/auth' });
    const res = await app.t.request(`/v1/cameras/${id}/snapshot`, { headers: { Authorization: `Bearer ${app.admin}` } });
    assert.equal(res.status, 200);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), picture);
  });

  it('a stream that stalls after a frame: stalled, while its viewer stays connected and the farm retries', async () => {
    const id = await addCamera({ stream_url: `${base}/stall` });
    const viewer = http.get(`${app.t.baseUrl}/v1/cameras/${id}/stream`, { headers: { Authorization: `Bearer ${app.admin}` } });
    viewer.on('error', () => {});
    try {
      await app.until('stalled', async () => (await app.call('GET', `/v1/cameras/${id}`)).body.state.error?.code === 'stalled', 10_000);
      const state = (await app.call('GET', `/v1/cameras/${id}`)).body.state;
      assert.match(state.error.message, /no frame for 0\.8 s/);
      assert.ok(state.last_frame_at, 'the frame before the stall is remembered');
      await app.until('a reconnect', () => (app.t.deps.cameras.stats().find((s) => s.id === id)?.reconnects ?? 0) >= 1, 10_000);
      await stillServing();
    } finally {
      viewer.destroy();
    }
  });
});
