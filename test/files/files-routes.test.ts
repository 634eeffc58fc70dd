// GET /v1/files/:id and /v1/files/:id/thumbnail over HTTP on the real app: record, scopes, 404s, image bytes, caching headers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { FileRecord } from '../../src/files/files.schemas.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { bambuStudio, makeJpegLike, makePng, orcaSlicer, thumbnailBlock } from './gcode-fixtures.js';

describe('files routes', () => {
  let t: TestApp;
  let reader: string;
  let outsider: string;
  let withPng: FileRecord;
  let withJpeg: FileRecord;
  let plain: FileRecord;
  const png = makePng(64, 48);
  const jpeg = makeJpegLike(500);

  before(async () => {
    t = await startTestApp();
    reader = await mintTestKey(t, ['jobs:read']);
    outsider = await mintTestKey(t, ['printers:read']);
    // The app's own files service: its store (data directory, or chunks on PostgreSQL) is the one the routes read.
    const { files } = t.deps;
    withPng = await files.ingestStream(Readable.from([bambuStudio(thumbnailBlock(png, 64, 48))]), 'plate_1.gcode');
    withJpeg = await files.ingestStream(Readable.from([orcaSlicer(thumbnailBlock(jpeg, 80, 80, 'thumbnail_JPG'))]), 'orca.gcode');
    plain = await files.ingestStream(Readable.from(['G28\nG1 X1\n']), 'plain.gcode');
  });
  after(async () => {
    await t.close();
  });

  it('GET /v1/files/:id returns the record', async () => {
    const res = await t.request(`/v1/files/${withPng.id}`, { headers: bearer(reader) });
    assert.equal(res.status, 200);
    const body = (await res.json()) as FileRecord;
    assert.deepEqual(body, withPng);
    assert.equal(body.slicer, 'Bambu Studio');
    assert.equal(body.filament_used_g, 12.38);
    assert.deepEqual(body.thumbnail, { content_type: 'image/png', width: 64, height: 48, size: png.length, url: `/v1/files/${withPng.id}/thumbnail` });
    assert.equal(body.thumbnail_url, `/v1/files/${withPng.id}/thumbnail`);
  });

  it('thumbnail_url is null for a file without a thumbnail, so a client never asks for one that 404s', async () => {
    const res = await t.request(`/v1/files/${plain.id}`, { headers: bearer(reader) });
    assert.equal(res.status, 200);
    const body = (await res.json()) as FileRecord;
    assert.equal(body.thumbnail, null);
    assert.equal(body.thumbnail_url, null);
    const jpegBody = (await (await t.request(`/v1/files/${withJpeg.id}`, { headers: bearer(reader) })).json()) as FileRecord;
    assert.equal(jpegBody.thumbnail_url, `/v1/files/${withJpeg.id}/thumbnail`);
  });

  it('needs jobs:read', async () => {
    const res = await t.request(`/v1/files/${withPng.id}`, { headers: bearer(outsider) });
    assert.equal(res.status, 403);
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'insufficient_permissions');
    assert.match(body.error.message, /jobs:read/);
    assert.equal((await t.request(`/v1/files/${withPng.id}`)).status, 401);
  });

  it('an unknown id is 404 resource_not_found', async () => {
    const res = await t.request('/v1/files/file_doesnotexist', { headers: bearer(reader) });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'resource_not_found');
  });

  it('GET /v1/files/:id/thumbnail serves the PNG with caching headers, and 304 to a matching ETag', async () => {
    const res = await t.request(`/v1/files/${withPng.id}/thumbnail`, { headers: bearer(reader) });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.match(res.headers.get('cache-control') ?? '', /max-age=31536000/);
    const etag = res.headers.get('etag');
    assert.ok(etag);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(png));
    const again = await t.request(`/v1/files/${withPng.id}/thumbnail`, { headers: { ...bearer(reader), 'If-None-Match': etag } });
    assert.equal(again.status, 304);
    assert.equal((await again.arrayBuffer()).byteLength, 0);
  });

  it('a JPEG thumbnail is served as image/jpeg', async () => {
    const res = await t.request(`/v1/files/${withJpeg.id}/thumbnail`, { headers: bearer(reader) });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/jpeg');
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(jpeg));
  });

  it('a file without a thumbnail, or an unknown file, is 404 on the thumbnail route', async () => {
    const none = await t.request(`/v1/files/${plain.id}/thumbnail`, { headers: bearer(reader) });
    assert.equal(none.status, 404);
    assert.match(((await none.json()) as { error: { message: string } }).error.message, /has no thumbnail/);
    assert.equal((await t.request('/v1/files/file_nope/thumbnail', { headers: bearer(reader) })).status, 404);
  });

  it('both routes are in the OpenAPI document', async () => {
    const key = await mintTestKey(t, ['admin:*']);
    const res = await t.request('/v1/openapi.json', { headers: bearer(key) });
    assert.equal(res.status, 200);
    const doc = (await res.json()) as { paths: Record<string, unknown> };
    assert.ok(doc.paths['/v1/files/{id}']);
    assert.ok(doc.paths['/v1/files/{id}/thumbnail']);
  });
});
