// parseMultipartJobUpload through the real app (a test-only route stands in for the jobs route): fields, the streamed file, every 400/413/422.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { fileLimits } from '../../src/files/file-limits.js';
import { createFilesService } from '../../src/files/files.service.js';
import { parseMultipartJobUpload } from '../../src/files/multipart-upload.js';
import type { AppDeps } from '../../src/app/app-deps.js';
import { routeDefiner } from '../../src/http/route.js';
import { mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { closing, fieldPart, filePartHead, generatedGcode, postMultipart } from './multipart-helpers.js';
import { cura, makePng } from './gcode-fixtures.js';

const limits = fileLimits({ maxFileBytes: 24 * 1024 * 1024, maxFieldBytes: 256, maxFields: 10 });

const uploadRoute = routeDefiner<AppDeps>()({
  method: 'POST',
  path: '/v1/test-upload',
  summary: 'test only: what the jobs route does with a multipart body',
  tag: 'Test',
  auth: { scope: 'jobs:write' },
  responses: {},
  async handle(ctx, _input, deps) {
    const files = createFilesService(deps, limits);
    const upload = await parseMultipartJobUpload(ctx.req, limits, (stream, name) => files.ingestStream(stream, name, limits));
    ctx.status = 201;
    ctx.body = upload;
  },
});

describe('multipart job upload', () => {
  let t: TestApp;
  let key: string;
  let url: string;
  before(async () => {
    t = await startTestApp({ extraRoutes: [uploadRoute] });
    key = await mintTestKey(t, ['jobs:*']);
    url = `${t.baseUrl}/v1/test-upload`;
  });
  after(async () => {
    await t.close();
  });

  it('returns every field (repeated ones as arrays) and the stored file (FormData from fetch)', async () => {
    const form = new FormData();
    form.append('name', 'Bracket');
    form.append('priority', 'high');
    form.append('tags', 'a');
    form.append('tags', 'b');
    form.append('copies', '2');
    form.append('file', new Blob([cura()]), 'bracket.gcode');
    const res = await t.request('/v1/test-upload', { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
    assert.equal(res.status, 201);
    const body = (await res.json()) as { fields: Record<string, unknown>; file: { original_name: string; slicer: string; size: number } };
    assert.deepEqual(body.fields, { name: 'Bracket', priority: 'high', tags: ['a', 'b'], copies: '2' });
    assert.equal(body.file.original_name, 'bracket.gcode');
    assert.equal(body.file.slicer, 'Cura');
    assert.equal(body.file.size, Buffer.byteLength(cura()));
  });

  it('streams a 20 MB file part to the store, fields before and after it', async () => {
    const gen = generatedGcode(20 * 1024 * 1024);
    const res = await postMultipart(url, key, [fieldPart('name', 'big'), filePartHead('file', 'big.gcode'), gen.stream, '\r\n', fieldPart('tags[]', 'x'), closing]);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const file = res.body.file as { size: number; sha256: string; id: string; estimated_duration: number };
    assert.equal(file.size, gen.size());
    assert.equal(file.sha256, gen.digest());
    assert.equal(file.estimated_duration, 18000);
    assert.deepEqual(res.body.fields, { name: 'big', tags: ['x'] });
    const stored = await createFilesService(t.deps).localCopy(file);
    assert.equal(createHash('sha256').update(readFileSync(stored)).digest('hex'), file.sha256);
  });

  const bad: { name: string; parts: (string | Buffer | (() => Readable))[]; contentType?: string; status: number; code: string; message: RegExp }[] = [
    { name: 'no file part', parts: [fieldPart('name', 'x'), closing], status: 400, code: 'invalid_request', message: /^file: is required/ },
    {
      name: 'a second file part',
      parts: [filePartHead('file', 'a.gcode'), 'G28\n\r\n', filePartHead('file', 'b.gcode'), 'G28\n\r\n', closing],
      status: 400,
      code: 'invalid_request',
      message: /only one file part \("file"\) is accepted/,
    },
    {
      name: 'a file part under another name',
      parts: [filePartHead('upload', 'a.gcode'), 'G28\n\r\n', closing],
      status: 400,
      code: 'invalid_request',
      message: /unexpected file part "upload"/,
    },
    { name: '`file` sent as a text field', parts: [fieldPart('file', 'G28'), closing], status: 400, code: 'invalid_request', message: /file: must be a file part/ },
    { name: 'a field over the limit', parts: [fieldPart('name', 'n'.repeat(300)), closing], status: 400, code: 'invalid_request', message: /^name: longer than 256 bytes/ },
    {
      name: 'too many fields',
      parts: [...Array.from({ length: 11 }, (_, i) => fieldPart(`f${i}`, 'v')), closing],
      status: 400,
      code: 'invalid_request',
      message: /too many form fields: at most 10/,
    },
    {
      name: 'a body cut off before its closing boundary',
      parts: [fieldPart('name', 'x'), filePartHead('file', 'a.gcode'), 'G28\n'],
      status: 400,
      code: 'invalid_request',
      message: /malformed multipart body: Unexpected end of form/,
    },
    {
      name: 'a multipart content type without a boundary',
      parts: ['whatever'],
      contentType: 'multipart/form-data',
      status: 400,
      code: 'invalid_request',
      message: /^malformed multipart body/,
    },
    {
      name: 'a file over the size limit (413, and the client still reads the answer)',
      parts: [filePartHead('file', 'huge.gcode'), () => generatedGcode(30 * 1024 * 1024).stream, '\r\n', closing],
      status: 413,
      code: 'invalid_request',
      message: /^file: the file is larger than the 24 MiB limit/,
    },
    {
      name: 'a file that is not G-code (422)',
      parts: [filePartHead('file', 'photo.png'), makePng(4, 4), '\r\n', closing],
      status: 422,
      code: 'file_invalid',
      message: /binary/,
    },
  ];
  for (const b of bad) {
    it(b.name, async () => {
      const parts = b.parts.map((p) => (typeof p === 'function' ? p() : p));
      const res = await postMultipart(url, key, parts, b.contentType);
      assert.equal(res.status, b.status, JSON.stringify(res.body));
      assert.equal(res.body.error?.code, b.code);
      assert.match(res.body.error?.message ?? '', b.message);
    });
  }
});
