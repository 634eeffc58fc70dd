// Cameras against a real camera server no one here wrote: ffmpeg serving its test pattern as an MJPEG stream and as a
// JPEG snapshot. ffmpeg's server takes exactly one client, so three viewers watching proves the one upstream connection.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { fastSim, startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { ffmpegMissing, ffmpegSnapshot, ffmpegStream, type FfmpegCamera } from './ffmpeg-camera.js';
import { boundaryOf, MjpegParser } from '../../src/cameras/mjpeg-parser.js';

const isJpeg = (b: Buffer): boolean => b[0] === 0xff && b[1] === 0xd8 && b[b.length - 2] === 0xff && b[b.length - 1] === 0xd9;

interface Watcher {
  frames: Buffer[];
  /** Resolves once `n` frames came in. */
  until(n: number): Promise<void>;
  close(): void;
  req: http.ClientRequest;
}

/** A viewer of /v1/cameras/:id/stream that parses what it receives as a browser would. */
function watch(app: PrintersApp, id: string, options: { paused?: boolean } = {}): Promise<Watcher & { res: http.IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${app.t.baseUrl}/v1/cameras/${id}/stream`, { headers: { Authorization: `Bearer ${app.admin}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      const frames: Buffer[] = [];
      const waiters: Array<{ n: number; done: () => void }> = [];
      const parser = new MjpegParser(boundaryOf(String(res.headers['content-type'])) as string, 10 << 20);
      if (options.paused) res.pause();
      res.on('data', (chunk: Buffer) => {
        frames.push(...parser.push(chunk));
        for (const w of [...waiters]) if (frames.length >= w.n) w.done();
      });
      resolve({
        frames,
        res,
        req,
        until: (n) =>
          new Promise((done, fail) => {
            if (frames.length >= n) return done();
            const timer = setTimeout(() => fail(new Error(`only ${frames.length} of ${n} frames`)), 20_000);
            waiters.push({ n, done: () => (clearTimeout(timer), done()) });
          }),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

describe('cameras with ffmpeg as the camera', { skip: ffmpegMissing() }, () => {
  let app: PrintersApp;
  let printerId: string;
  const cams: FfmpegCamera[] = [];
  before(async () => {
    app = await startPrintersApp({ cameras: { idleCloseMs: 500, headersTimeoutMs: 5000, snapshotTimeoutMs: 8000 } });
    printerId = (await app.create({ name: 'ffmpeg printer', connection_url: fastSim('ffcam') })).id;
  });
  after(async () => {
    for (const c of cams) c.stop();
    await app.close();
  });
  const addCamera = async (body: Record<string, unknown>): Promise<string> => {
    const res = await app.call('POST', `/v1/printers/${printerId}/cameras`, { name: 'ffmpeg', ...body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id as string;
  };
  const snapshot = async (id: string): Promise<{ status: number; type: string | null; body: Buffer; json?: any }> => {
    const res = await app.t.request(`/v1/cameras/${id}/snapshot`, { headers: { Authorization: `Bearer ${app.admin}` } });
    const body = Buffer.from(await res.arrayBuffer());
    return { status: res.status, type: res.headers.get('content-type'), body, ...(res.status !== 200 ? { json: JSON.parse(body.toString()) } : {}) };
  };

  it("serves ffmpeg's JPEG snapshot from snapshot_url", async () => {
    const cam = await ffmpegSnapshot();
    cams.push(cam);
    const id = await addCamera({ snapshot_url: cam.url });
    const shot = await snapshot(id);
    assert.equal(shot.status, 200, JSON.stringify(shot.json));
    assert.equal(shot.type, 'image/jpeg');
    assert.ok(isJpeg(shot.body), 'a whole JPEG');
    assert.equal(shot.body.readUInt16BE(0), 0xffd8);
  });

  it('takes a snapshot from the stream when there is no snapshot_url', async () => {
    const cam = await ffmpegStream();
    cams.push(cam);
    const id = await addCamera({ stream_url: cam.url });
    const shot = await snapshot(id);
    assert.equal(shot.status, 200, JSON.stringify(shot.json));
    assert.ok(isJpeg(shot.body));
  });

  it('fans one upstream connection out to three viewers, serves snapshots from it, and closes it when the last leaves', async () => {
    const cam = await ffmpegStream();
    cams.push(cam);
    const id = await addCamera({ stream_url: cam.url });
    // ffmpeg takes one client: a second upstream connection would be refused and these viewers would get nothing.
    const viewers = [await watch(app, id), await watch(app, id), await watch(app, id)];
    await Promise.all(viewers.map((v) => v.until(5)));
    for (const v of viewers) assert.ok(v.frames.every(isJpeg));
    const state = (await app.call('GET', `/v1/cameras/${id}`)).body.state;
    assert.equal(state.status, 'live');
    assert.equal(state.viewers, 3);
    assert.ok(state.last_frame_at);
    // While the stream is open a snapshot is its last frame (ffmpeg could not serve another client).
    const shot = await snapshot(id);
    assert.equal(shot.status, 200);
    assert.ok(isJpeg(shot.body));
    const stats = app.t.deps.cameras.stats().find((s) => s.id === id);
    assert.ok(stats && stats.frames_in >= 5 && stats.frames_out >= 15, JSON.stringify(stats));
    for (const v of viewers) v.close();
    // No viewer: the upstream connection is closed within seconds, which makes ffmpeg (its one client gone) exit.
    const code = await Promise.race([cam.exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))]);
    assert.notEqual(code, 'still running', 'the upstream connection was not closed');
    await app.until('idle', async () => (await app.call('GET', `/v1/cameras/${id}`)).body.state.viewers === 0, 5000);
  });

  it('skips a viewer that reads nothing (it holds only the frame it is on) while another viewer gets every frame', async () => {
    // Big frames fill the stuck viewer's socket buffers (the kernel's, on both ends) within seconds.
    const cam = await ffmpegStream({ fps: 25, size: '1920x1080', quality: 2 });
    cams.push(cam);
    const id = await addCamera({ stream_url: cam.url });
    const stuck = await watch(app, id, { paused: true });
    const fast = await watch(app, id);
    const statsNow = () => app.t.deps.cameras.stats().find((s) => s.id === id)!;
    await app.until('the stuck viewer is skipped', () => statsNow().dropped > 0, 30_000);
    const before = statsNow();
    await fast.until(fast.frames.length + 10);
    const later = statsNow();
    // The stuck viewer is skipped for every new frame; the one reading still gets each frame.
    assert.ok(later.dropped - before.dropped >= 8, JSON.stringify({ before, later }));
    assert.ok(later.frames_in - fast.frames.length <= 3, `the reading viewer missed frames: ${later.frames_in} in, ${fast.frames.length} seen`);
    stuck.close();
    fast.close();
  });
});
