// The built dashboard over HTTP: hashed assets cached forever, the page revalidated, .br/.gz by Accept-Encoding, security headers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import Koa from 'koa';
import { readAsset } from '../../src/assets.js';
import { CONTENT_SECURITY_POLICY, DOCS_CONTENT_SECURITY_POLICY, pickEncoding, staticWeb } from '../../src/http/static-web.js';
import { buildWeb, FIRST_LOAD_TARGET_BYTES, type WebBuildReport } from '../../scripts/web/build-web.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET without fetch's automatic decompression, so the test sees the bytes on the wire. */
function rawGet(baseUrl: string, urlPath: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${baseUrl}${urlPath}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
  });
}

describe('dashboard build and static files', () => {
  let t: TestApp;
  let report: WebBuildReport;
  before(async () => {
    report = await buildWeb();
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('builds hashed files with .br and .gz beside them, within the first-load budget', () => {
    assert.match(report.script, /^\/assets\/app-[A-Z0-9]{6,}\.js$/);
    assert.match(report.stylesheet ?? '', /^\/assets\/app-[A-Z0-9]{6,}\.css$/);
    for (const f of report.files) {
      const file = path.join(report.out_dir, f.file);
      assert.equal(readFileSync(file).length, f.raw, f.file);
      assert.ok(existsSync(`${file}.br`) && existsSync(`${file}.gz`), `${f.file} is precompressed`);
      assert.deepEqual(zlib.brotliDecompressSync(readFileSync(`${file}.br`)), readFileSync(file));
      assert.deepEqual(zlib.gunzipSync(readFileSync(`${file}.gz`)), readFileSync(file));
    }
    assert.deepEqual(report.files.filter((f) => f.first_load).map((f) => f.file).sort(), ['index.html', report.script.slice(1), report.stylesheet!.slice(1)].sort());
    assert.ok(report.first_load_brotli_bytes > 5_000, 'the sum covers the real script');
    assert.ok(report.first_load_brotli_bytes <= FIRST_LOAD_TARGET_BYTES, `first load ${report.first_load_brotli_bytes} bytes brotli`);
    assert.ok(report.first_load_gzip_bytes >= report.first_load_brotli_bytes);
  });

  it('serves the page uncached with the security headers, linking the hashed files and the favicon', async () => {
    const res = await t.request('/');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal(res.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
    assert.match(CONTENT_SECURITY_POLICY, /frame-ancestors 'none'/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('referrer-policy'), 'same-origin');
    const page = await res.text();
    assert.match(page, /<div id="app">/);
    assert.match(page, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.match(page, /<title>printfarm<\/title>/);
    assert.match(page, /<link rel="icon" href="\/favicon.ico"/);
    assert.ok(page.includes(`<script type="module" src="${report.script}"></script>`));
    assert.ok(page.includes(`<link rel="stylesheet" href="${report.stylesheet}">`));
    assert.doesNotMatch(page, /build-web: assets/);
  });

  it('answers a repeated page request with 304 when the ETag matches', async () => {
    const first = await rawGet(t.baseUrl, '/', { 'Accept-Encoding': 'br' });
    const etag = first.headers.etag!;
    assert.ok(etag);
    const again = await rawGet(t.baseUrl, '/', { 'Accept-Encoding': 'br', 'If-None-Match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    const plain = await rawGet(t.baseUrl, '/', { 'If-None-Match': etag });
    assert.equal(plain.status, 200, 'another encoding has another ETag');
  });

  it('serves hashed assets immutable, brotli or gzip by Accept-Encoding, plain without it', async () => {
    const js = readFileSync(path.join(report.out_dir, report.script));
    const br = await rawGet(t.baseUrl, report.script, { 'Accept-Encoding': 'gzip, deflate, br' });
    assert.equal(br.status, 200);
    assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.equal(br.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.deepEqual(zlib.brotliDecompressSync(br.body), js);

    const gz = await rawGet(t.baseUrl, report.script, { 'Accept-Encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(zlib.gunzipSync(gz.body), js);

    const plain = await rawGet(t.baseUrl, report.script);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, 'Accept-Encoding');
    assert.deepEqual(plain.body, js);

    const css = await rawGet(t.baseUrl, report.stylesheet!, { 'Accept-Encoding': 'br;q=0, gzip' });
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(css.headers['content-encoding'], 'gzip', 'q=0 refuses brotli');
  });

  it('picks the encoding by the header, honouring q=0', () => {
    assert.equal(pickEncoding('gzip, deflate, br'), 'br');
    assert.equal(pickEncoding('br;q=0, gzip;q=0.8'), 'gzip');
    assert.equal(pickEncoding('*'), 'br');
    assert.equal(pickEncoding('*, br;q=0'), 'gzip');
    assert.equal(pickEncoding('identity'), 'identity');
    assert.equal(pickEncoding(''), 'identity');
    assert.equal(pickEncoding(undefined), 'identity');
  });

  it('serves nothing else: unknown assets, stored .br files by name, sources and dot files are 404', async () => {
    for (const p of ['/assets/app-NOPE.js', `${report.script}.br`, '/web/src/main.ts', '/src/main.ts', '/assets/.tmp-1-x', '/app.js', '/style.css', '/dist/index.html']) {
      const res = await t.request(p);
      assert.equal(res.status, 404, p);
      await res.arrayBuffer();
    }
  });

  it('serves the API reference page at /docs, uncached, loading only its own scripts from this server', async () => {
    const res = await t.request('/docs');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    // The dashboard's policy, plus a worker from a blob: URL (the renderer's search index) and nothing from elsewhere.
    assert.equal(res.headers.get('content-security-policy'), DOCS_CONTENT_SECURITY_POLICY);
    assert.ok(DOCS_CONTENT_SECURITY_POLICY.startsWith(CONTENT_SECURITY_POLICY));
    assert.match(DOCS_CONTENT_SECURITY_POLICY, /worker-src 'self' blob:$/);
    const page = await res.text();
    assert.match(page, /<redoc spec-url="\/v1\/openapi.json"/);
    const scripts = [...page.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    assert.equal(scripts.length, 2, 'the renderer and its keyboard helper');
    for (const src of scripts) {
      assert.match(src, /^\/assets\/[a-z0-9-]+-[A-Za-z0-9]{8}\.js$/, 'a hashed file of this server');
      const script = await t.request(src);
      assert.equal(script.status, 200, src);
      // The renderer's own outside address (its logo) is blanked at build time: the page must work offline.
      assert.doesNotMatch(await script.text(), /cdn\.redoc\.ly/, src);
    }
    assert.deepEqual(report.files.filter((f) => f.file === 'docs.html').length, 1, 'the build reports the page');
  });

  it('answers /favicon.ico with an ICO image', async () => {
    const res = await t.request('/favicon.ico');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/x-icon');
    const bytes = Buffer.from(await res.arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), at least one image.
    assert.equal(bytes.readUInt16LE(0), 0);
    assert.equal(bytes.readUInt16LE(2), 1);
    assert.ok(bytes.readUInt16LE(4) >= 1);
    assert.deepEqual(bytes, readAsset('web/favicon.ico'), 'the shipped file');
  });
});

describe('dashboard not built (running from source)', () => {
  let server: http.Server;
  let baseUrl: string;
  before(async () => {
    const app = new Koa();
    app.use(staticWeb('web/no-such-dist'));
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('says in one line how to build it instead of a 404, and the favicon still works', async () => {
    const page = await fetch(`${baseUrl}/`);
    assert.equal(page.status, 503);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    const text = await page.text();
    assert.match(text, /not built yet: run <code>npm run build:web<\/code>/);
    const icon = await fetch(`${baseUrl}/favicon.ico`);
    assert.equal(icon.status, 200);
    assert.deepEqual(Buffer.from(await icon.arrayBuffer()), readAsset('web/favicon.ico'));
    const asset = await fetch(`${baseUrl}/assets/app-X.js`);
    assert.equal(asset.status, 404);
  });
});
