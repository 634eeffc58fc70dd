// ingestUrl against a local HTTP server on 127.0.0.1: success, remote statuses, redirects, timeouts, size limits, not G-code, refused connections.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeNetworkError } from '../../src/files/url-download.js';
import { appError, startFilesHarness, type FilesHarness } from './files-harness.js';
import { cura } from './gcode-fixtures.js';

const GCODE = cura();

/** Routes of the test server; handlers that never answer are ended when the server closes. */
function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  switch (url.pathname) {
    case '/files/cube.gcode':
      res.writeHead(200, { 'Content-Type': 'text/x-gcode' }).end(GCODE);
      return;
    case '/download':
      res.writeHead(200, { 'Content-Disposition': 'attachment; filename="named by header.gcode"' }).end(`${GCODE}; another file\n`);
      return;
    case '/missing.gcode':
      res.writeHead(404).end('not here');
      return;
    case '/broken.gcode':
      res.writeHead(500).end('oops');
      return;
    case '/hop': {
      const n = Number(url.searchParams.get('n') ?? 0);
      res.writeHead(302, { Location: n > 0 ? `/hop?n=${n - 1}` : '/files/cube.gcode' }).end();
      return;
    }
    case '/loop':
      res.writeHead(301, { Location: '/loop' }).end();
      return;
    case '/to-ftp':
      res.writeHead(302, { Location: 'ftp://127.0.0.1/file.gcode' }).end();
      return;
    case '/silent':
      return; // never answers
    case '/stall':
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('G28\nG1 X1\n'); // then nothing more
      return;
    case '/huge-declared':
      res.writeHead(200, { 'Content-Length': String(10 * 1024 * 1024) });
      res.write('G28\n');
      return;
    case '/huge-chunked': {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const line = Buffer.from('G1 X10 Y10 E1\n'.repeat(1000));
      let sent = 0;
      const pump = (): void => {
        while (sent < 8 * 1024 * 1024) {
          sent += line.length;
          if (!res.write(line)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
      return;
    }
    case '/page.html':
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html>\n<html><body>Sign in</body></html>\n');
      return;
    default:
      res.writeHead(404).end();
  }
}

describe('ingestUrl', () => {
  let h: FilesHarness;
  let server: http.Server;
  let base: string;
  before(async () => {
    h = startFilesHarness({
      maxFileBytes: 1024 * 1024,
      maxRedirects: 3,
      downloadHeadersTimeoutMs: 300,
      downloadIdleTimeoutMs: 300,
      downloadTotalTimeoutMs: 10_000,
    });
    server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await h.close();
  });

  it('downloads a G-code file and reads its metadata; the name is the last path segment', async () => {
    const rec = await h.files.ingestUrl(`${base}/files/cube.gcode`);
    assert.equal(rec.original_name, 'cube.gcode');
    assert.equal(rec.slicer, 'Cura');
    assert.equal(rec.estimated_duration, 6666);
    assert.equal(rec.size, Buffer.byteLength(GCODE));
  });

  it('takes the name from Content-Disposition when there is one', async () => {
    assert.equal((await h.files.ingestUrl(`${base}/download`)).original_name, 'named by header.gcode');
  });

  it('follows redirects up to the limit', async () => {
    const rec = await h.files.ingestUrl(`${base}/hop?n=2`);
    assert.equal(rec.slicer, 'Cura');
  });

  const failures: { name: string; path: string; status: number; code: string; message: RegExp }[] = [
    { name: 'a 404 names the status', path: '/missing.gcode', status: 400, code: 'invalid_request', message: /^file_url: the server answered 404 Not Found/ },
    { name: 'a 500 names the status', path: '/broken.gcode', status: 400, code: 'invalid_request', message: /answered 500 Internal Server Error/ },
    { name: 'a redirect loop', path: '/loop', status: 400, code: 'invalid_request', message: /more than 3 redirects \(a redirect loop\?\)/ },
    { name: 'a redirect to ftp', path: '/to-ftp', status: 400, code: 'invalid_request', message: /redirect to ftp:.* uses ftp; only http and https/ },
    { name: 'a server that never answers', path: '/silent', status: 400, code: 'invalid_request', message: /did not answer within 0.3 s/ },
    { name: 'a body that stops coming', path: '/stall', status: 400, code: 'invalid_request', message: /no data from 127\.0\.0\.1:\d+ for 0.3 s/ },
    { name: 'a declared length over the limit', path: '/huge-declared', status: 413, code: 'invalid_request', message: /^file_url: the file is 10 MiB, over the 1 MiB limit/ },
    { name: 'a chunked body over the limit', path: '/huge-chunked', status: 413, code: 'invalid_request', message: /^file_url: the file is larger than the 1 MiB limit/ },
    { name: 'a page that is not G-code', path: '/page.html', status: 422, code: 'file_invalid', message: /no G or M command/ },
  ];
  for (const f of failures) {
    it(f.name, async () => {
      await assert.rejects(h.files.ingestUrl(`${base}${f.path}`), appError(f.status, f.code, f.message));
      assert.deepEqual(h.tempFiles(), []);
    });
  }

  it('refuses other schemes and malformed addresses', async () => {
    await assert.rejects(h.files.ingestUrl('ftp://127.0.0.1/a.gcode'), appError(400, 'invalid_request', /uses ftp; only http and https/));
    await assert.rejects(h.files.ingestUrl('not a url'), appError(400, 'invalid_request', /not a valid URL/));
    await assert.rejects(h.files.ingestUrl('http://me:secret@127.0.0.1/a'), appError(400, 'invalid_request', /passwords in the URL/));
  });

  it('a refused connection gets 400 with the reason', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await assert.rejects(h.files.ingestUrl(`http://127.0.0.1:${port}/a.gcode`), appError(400, 'invalid_request', /connection to 127\.0\.0\.1:\d+ was refused/));
  });

  it('names DNS, reset and certificate failures', () => {
    const url = new URL('https://files.example.test:8443/a.gcode');
    const cause = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(code), { code }) });
    assert.match(describeNetworkError(cause('ENOTFOUND'), url), /host name files\.example\.test could not be resolved/);
    assert.match(describeNetworkError(cause('ECONNRESET'), url), /closed before the file was complete/);
    assert.match(describeNetworkError(cause('CERT_HAS_EXPIRED'), url), /TLS certificate .* not accepted \(CERT_HAS_EXPIRED\)/);
  });
});
