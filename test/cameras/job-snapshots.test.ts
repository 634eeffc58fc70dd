// Pictures of every job: start, progress steps and end, taken before the end event so job.completed and its webhook
// carry the last picture's URL; a per-job and a total size budget; removed with the job's file by retention.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dbRows } from '../helpers/test-database.js';
import { createJob, gcode, longGcode, untilStatus, untilJob } from '../jobs/jobs-harness.js';
import { fastSim, startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { ffmpegJpeg, ffmpegMissing } from './ffmpeg-camera.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('job snapshots', { skip: ffmpegMissing() }, () => {
  let app: PrintersApp;
  let server: http.Server;
  let snapshotUrl: string;
  let firstJob = '';
  const picture = ffmpegMissing() ? Buffer.alloc(0) : ffmpegJpeg();

  before(async () => {
    // A snapshot URL answering ffmpeg's test pattern (made once by ffmpeg) every time it is asked.
    server = http.createServer((req, res) => {
      if (req.url === '/down') {
        res.writeHead(503);
        return res.end();
      }
      res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': picture.length });
      res.end(picture);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    snapshotUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/snap.jpg`;
    app = await startPrintersApp({ jobSnapshots: { perJobBytes: picture.length * 3 + 10, totalBytes: picture.length * 9 + 10, endTimeoutMs: 2000, timeoutMs: 2000 } });
  });
  after(async () => {
    await app.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const printerWithCamera = async (name: string, camera: Record<string, unknown>, sim = `sim://${name}?speed=20`): Promise<string> => {
    const printer = await app.create({ name, connection_url: sim });
    const cam = await app.call('POST', `/v1/printers/${printer.id}/cameras`, { name: `${name} cam`, snapshot_url: snapshotUrl, ...camera });
    assert.equal(cam.status, 201, JSON.stringify(cam.body));
    await app.untilStatus(printer.id, 'idle');
    return printer.id;
  };
  const snapshotsOf = async (jobId: string): Promise<any[]> => {
    const res = await app.call('GET', `/v1/jobs/${jobId}/snapshots`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data;
  };
  const endEvent = async (jobId: string, type: string): Promise<any> => {
    const rows = await dbRows<{ body: string }>(app.t.handle, 'SELECT body FROM events WHERE type = ? ORDER BY seq', type);
    return rows.map((r) => JSON.parse(r.body).data.object).find((o) => o.id === jobId);
  };

  it('takes a picture at the start, at each progress step and at the end; job.completed carries the last one', async () => {
    const printerId = await printerWithCamera('snap-steps', { job_picture_step: 25 });
    const job = await createJob(app, longGcode(400), { printer_id: printerId });
    firstJob = job.id;
    const done = await untilStatus(app, job.id, 'completed', 60_000);
    const pictures = await snapshotsOf(job.id);
    const moments = pictures.map((p) => p.moment);
    assert.equal(moments[0], 'start');
    assert.equal(moments.at(-1), 'completed');
    // The job budget holds three pictures: start, 25 % and 50 % fill it, 75 % is skipped, and the end picture makes room
    // by dropping the oldest progress picture.
    assert.deepEqual(moments, ['start', 'progress', 'completed']);
    assert.ok(pictures[1].progress >= 50 && pictures[1].progress < 75, `the 50 % picture stays: ${pictures[1].progress}`);
    const last = pictures.at(-1);
    assert.equal(done.last_snapshot_url, last.url);
    const event = await endEvent(job.id, 'job.completed');
    assert.equal(event.last_snapshot_url, last.url, 'the end event carries the end picture');
    const jpeg = await app.t.request(last.url, { headers: { Authorization: `Bearer ${app.admin}` } });
    assert.equal(jpeg.status, 200);
    assert.equal(jpeg.headers.get('content-type'), 'image/jpeg');
    assert.deepEqual(Buffer.from(await jpeg.arrayBuffer()), picture);
  });

  it('photographs a cancelled job at its end; a camera that answers an error adds none and stops no other', async () => {
    const printerId = await printerWithCamera('snap-cancel', {});
    const broken = await app.call('POST', `/v1/printers/${printerId}/cameras`, { name: 'down', snapshot_url: snapshotUrl.replace('/snap.jpg', '/down') });
    assert.equal(broken.status, 201);
    const job = await createJob(app, longGcode(3000), { printer_id: printerId });
    await untilJob(app, job.id, (j) => j.status === 'printing' && j.progress > 0, 'printing');
    assert.equal((await app.call('DELETE', `/v1/jobs/${job.id}`)).status, 200);
    const cancelled = await untilStatus(app, job.id, 'cancelled');
    const pictures = await snapshotsOf(job.id);
    assert.deepEqual(pictures.map((p) => p.moment), ['start', 'cancelled'], 'one camera gave pictures, the broken one none');
    assert.equal(cancelled.last_snapshot_url, pictures[1].url);
    const state = (await app.call('GET', `/v1/cameras/${broken.body.id}`)).body.state;
    assert.equal(state.error.code, 'http_error');
  });

  it('takes no pictures of a printer whose camera has job_pictures off', async () => {
    const printerId = await printerWithCamera('snap-off', { job_pictures: false }, fastSim('snap-off'));
    const job = await createJob(app, gcode(), { printer_id: printerId });
    const done = await untilStatus(app, job.id, 'completed');
    assert.deepEqual(await snapshotsOf(job.id), []);
    assert.equal(done.last_snapshot_url, null);
    assert.equal((await endEvent(job.id, 'job.completed')).last_snapshot_url, null);
  });

  it('keeps all jobs within the total budget, dropping the oldest pictures first', async () => {
    const printerId = await printerWithCamera('snap-total', {}, fastSim('snap-total'));
    const before = (await snapshotsOf(firstJob)).map((p) => p.moment);
    assert.deepEqual(before, ['start', 'progress', 'completed']);
    // Three more jobs of two pictures each: 5 + 6 pictures, over the total budget of 9.
    let last = '';
    for (let i = 0; i < 3; i++) {
      const job = await createJob(app, gcode({ tag: `total ${i}` }), { printer_id: printerId });
      await untilStatus(app, job.id, 'completed');
      last = job.id;
      assert.equal((await app.call('POST', `/v1/printers/${printerId}/actions`, { action: 'ready' })).status, 202);
    }
    await app.t.deps.jobSnapshots.settled();
    const total = (await dbRows<{ n: number }>(app.t.handle, 'SELECT COALESCE(SUM(size), 0) AS n FROM job_snapshots'))[0]!.n;
    assert.ok(total <= picture.length * 9 + 10, `${total} bytes stored`);
    assert.deepEqual((await snapshotsOf(firstJob)).map((p) => p.moment), ['completed'], 'the oldest two went first');
    assert.deepEqual((await snapshotsOf(last)).map((p) => p.moment), ['start', 'completed']);
  });

  it('answers 404 for the pictures of an unknown job and an unknown picture', async () => {
    assert.equal((await app.call('GET', '/v1/jobs/job_nope/snapshots')).status, 404);
    const [job] = (await app.call('GET', '/v1/jobs?status=completed')).body.data;
    assert.equal((await app.call('GET', `/v1/jobs/${job.id}/snapshots/snp_nope`)).status, 404);
  });

  it("removes a job's pictures with its file when the retention policy prunes it", async () => {
    const printerId = await printerWithCamera('snap-prune', {}, fastSim('snap-prune'));
    const job = await createJob(app, gcode({ tag: 'prune me' }), { printer_id: printerId });
    await untilStatus(app, job.id, 'completed');
    await app.t.deps.jobSnapshots.settled();
    assert.ok((await snapshotsOf(job.id)).length >= 2);
    app.t.clock.advance(31 * DAY_MS);
    const report = await app.t.deps.filePruner.runOnce();
    assert.ok(report.files >= 1);
    assert.deepEqual(await snapshotsOf(job.id), []);
    assert.equal((await app.call('GET', `/v1/jobs/${job.id}`)).body.last_snapshot_url, null);
  });
});
