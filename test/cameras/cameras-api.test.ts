// Cameras over HTTP: create/read/update/delete on a printer, credentials sealed and never returned, file_url's address
// rules, validation naming the field, scopes, and cameras leaving with their printer.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mintTestKey } from '../helpers/test-app.js';
import { fastSim, startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';

describe('cameras API', () => {
  let app: PrintersApp;
  let printerId: string;
  before(async () => {
    app = await startPrintersApp();
    printerId = (await app.create({ name: 'cam printer', connection_url: fastSim('cams1') })).id;
  });
  after(() => app.close());

  it('adds a camera with credentials in its URLs, seals them and never returns them', async () => {
    const res = await app.call('POST', `/v1/printers/${printerId}/cameras`, {
      name: 'Nozzle cam',
      stream_url: 'http://viewer:s3cr%40t-pass@192.168.1.50:8080/?action=stream',
      snapshot_url: 'http://192.168.1.50:8080/?action=snapshot',
      rotation: 180,
      flip_horizontal: true,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const cam = res.body;
    assert.match(cam.id, /^cam_[A-Za-z0-9]{20}$/);
    assert.equal(cam.stream_url, 'http://192.168.1.50:8080/?action=stream');
    assert.equal(cam.has_stream_credentials, true);
    assert.equal(cam.has_snapshot_credentials, false);
    assert.equal(cam.rotation, 180);
    assert.equal(cam.flip_horizontal, true);
    assert.equal(cam.refresh_seconds, 10);
    assert.deepEqual(cam.state, { status: 'idle', error: null, viewers: 0, last_frame_at: null });
    assert.equal(cam.stream_path, `/v1/cameras/${cam.id}/stream`);
    const row = await app.t.deps.db.selectFrom('cameras').selectAll().where('id', '=', cam.id).executeTakeFirstOrThrow();
    assert.equal(JSON.stringify(row).includes('s3cr'), false, 'the password is not stored in clear');
    assert.match(row.stream_credentials_sealed ?? '', /^v1:/);
    for (const path of [`/v1/cameras/${cam.id}`, `/v1/cameras?printer_id=${printerId}`]) {
      const got = await app.call('GET', path);
      assert.equal(got.status, 200);
      assert.equal(JSON.stringify(got.body).includes('s3cr'), false, path);
      assert.equal(JSON.stringify(got.body).includes('viewer:'), false, path);
    }
  });

  it('refuses link-local and cloud metadata addresses as file_url does (422 camera_url_forbidden)', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/stream', 'http://169.254.10.1:8080/?action=stream']) {
      const res = await app.call('POST', `/v1/printers/${printerId}/cameras`, { name: 'bad', stream_url: url });
      assert.equal(res.status, 422, url);
      assert.equal(res.body.error.code, 'camera_url_forbidden');
      assert.match(res.body.error.message, /^stream_url: /);
    }
  });

  it('names the field of a bad request: no URL at all, a wrong scheme, an unknown field, a bad rotation', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'none' }, /stream_url or snapshot_url/],
      [{ name: 'rtsp', stream_url: 'rtsp://192.168.1.5/live' }, /stream_url: uses rtsp/],
      [{ name: 'x', stream_url: 'http://192.168.1.5/', zoom: 2 }, /zoom/],
      [{ name: 'x', stream_url: 'http://192.168.1.5/', rotation: 45 }, /rotation/],
    ];
    for (const [body, message] of cases) {
      const res = await app.call('POST', `/v1/printers/${printerId}/cameras`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.error.message, message);
    }
    const missing = await app.call('POST', '/v1/printers/prt_nope/cameras', { name: 'x', stream_url: 'http://192.168.1.5/' });
    assert.equal(missing.status, 404);
  });

  it('updates a camera: new URL without credentials clears the sealed ones; a camera keeps one URL at least', async () => {
    const cam = (await app.call('POST', `/v1/printers/${printerId}/cameras`, { name: 'upd', stream_url: 'http://u:p@192.168.1.60/stream' })).body;
    const res = await app.call('PATCH', `/v1/cameras/${cam.id}`, { stream_url: 'http://192.168.1.61/stream', refresh_seconds: 5, job_picture_step: 25 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.has_stream_credentials, false);
    assert.equal(res.body.refresh_seconds, 5);
    assert.equal(res.body.job_picture_step, 25);
    const none = await app.call('PATCH', `/v1/cameras/${cam.id}`, { stream_url: null });
    assert.equal(none.status, 400);
    const empty = await app.call('PATCH', `/v1/cameras/${cam.id}`, {});
    assert.equal(empty.status, 400);
  });

  it('needs printers:write to change and printers:read to look', async () => {
    const reader = await mintTestKey(app.t, ['printers:read']);
    const other = await mintTestKey(app.t, ['jobs:read']);
    const denied = await app.call('POST', `/v1/printers/${printerId}/cameras`, { name: 'x', stream_url: 'http://192.168.1.5/' }, reader);
    assert.equal(denied.status, 403);
    assert.equal((await app.call('GET', '/v1/cameras', undefined, reader)).status, 200);
    assert.equal((await app.call('GET', '/v1/cameras', undefined, other)).status, 403);
  });

  it('deletes a camera (204, then 404), and a deleted printer takes its cameras with it', async () => {
    const cam = (await app.call('POST', `/v1/printers/${printerId}/cameras`, { name: 'del', snapshot_url: 'http://192.168.1.70/snap.jpg' })).body;
    assert.equal((await app.call('DELETE', `/v1/cameras/${cam.id}`)).status, 204);
    assert.equal((await app.call('GET', `/v1/cameras/${cam.id}`)).status, 404);
    const p2 = await app.create({ name: 'goes away', connection_url: fastSim('cams2') });
    const c2 = (await app.call('POST', `/v1/printers/${p2.id}/cameras`, { name: 'c2', snapshot_url: 'http://192.168.1.71/snap.jpg' })).body;
    assert.equal((await app.call('DELETE', `/v1/printers/${p2.id}`)).status, 204);
    assert.equal((await app.call('GET', `/v1/cameras/${c2.id}`)).status, 404);
  });
});
