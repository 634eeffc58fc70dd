// file_url never reaches link-local, multicast, broadcast or unspecified addresses: IP literals, names (a resolver stub
// answers with them) and redirect hops get 422 file_url_forbidden, and no socket ever tries anything but 127.0.0.1.
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { fileLimits } from '../../src/files/file-limits.js';
import { countFiles } from '../../src/files/files.repository.js';
import { appError, startFilesHarness, stubResolver, trackConnectAttempts, type FilesHarness } from './files-harness.js';
import { cura } from './gcode-fixtures.js';

const GCODE = cura();
const GZIPPED = `${GCODE}; sent gzip-encoded\n`;

function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  switch (url.pathname) {
    case '/cube.gcode':
      res.writeHead(200, { 'Content-Type': 'text/x-gcode' }).end(GCODE);
      return;
    case '/cube.gcode.gz':
      res.writeHead(200, { 'Content-Type': 'text/x-gcode', 'Content-Encoding': 'gzip' }).end(gzipSync(GZIPPED));
      return;
    case '/to': // redirects to ?url=
      res.writeHead(302, { Location: url.searchParams.get('url') ?? '/' }).end();
      return;
    case '/hop': {
      const n = Number(url.searchParams.get('n') ?? 0);
      res.writeHead(302, { Location: n > 0 ? `/hop?n=${n - 1}` : '/cube.gcode' }).end();
      return;
    }
    default:
      res.writeHead(404).end();
  }
}

const resolver = stubResolver({
  'files.test': ['127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'link6.test': ['fe80::1'],
  'mcast.test': ['224.0.0.1'],
  'mcast6.test': ['ff02::1'],
  'bcast.test': ['255.255.255.255'],
  'zero.test': ['0.0.0.0'],
  'zero6.test': ['::'],
  'mapped.test': ['::ffff:169.254.169.254'],
  // One bad answer among good ones refuses the name: a socket could pick any of them.
  'mixed.test': ['127.0.0.1', '169.254.169.254'],
});

describe('file_url forbidden addresses', () => {
  let h: FilesHarness;
  let server: http.Server;
  let port: number;
  let base: string;
  let connects: ReturnType<typeof trackConnectAttempts>;
  before(async () => {
    h = startFilesHarness({ downloadHeadersTimeoutMs: 2000, downloadIdleTimeoutMs: 2000, downloadTotalTimeoutMs: 10_000 }, resolver);
    server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  beforeEach(() => {
    connects = trackConnectAttempts();
  });
  afterEach(() => {
    connects.stop();
    assert.deepEqual(connects.attempts.filter((ip) => ip !== '127.0.0.1'), [], 'a socket tried an address other than 127.0.0.1');
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await h.close();
  });

  /** Refused with 422 file_url_forbidden, `details` the class, nothing stored, no socket opened. */
  async function refusedBeforeConnecting(url: string, details: string, message: RegExp): Promise<void> {
    const stored = await countFiles(h.handle.db);
    await assert.rejects(h.files.ingestUrl(url), (err: unknown) => {
      appError(422, 'file_url_forbidden', message)(err);
      assert.equal((err as { details: string }).details, details);
      return true;
    });
    assert.deepEqual(connects.attempts, [], 'no connection attempt at all');
    assert.deepEqual(h.tempFiles(), []);
    assert.equal(await countFiles(h.handle.db), stored);
  }

  const literals: Array<[string, string, RegExp]> = [
    ['http://169.254.169.254/latest/meta-data/', 'link_local', /^file_url: 169\.254\.169\.254 is a link-local address \(169\.254\.0\.0\/16\)$/],
    ['http://2852039166/latest/meta-data/', 'link_local', /^file_url: 169\.254\.169\.254 is a link-local/], // decimal form
    ['http://0xa9fea9fe/', 'link_local', /^file_url: 169\.254\.169\.254 is a link-local/], // hex form
    ['http://169.254.43518/', 'link_local', /^file_url: 169\.254\.169\.254 is a link-local/], // a.b.c form
    ['http://[::ffff:169.254.169.254]/', 'link_local', /^file_url: ::ffff:a9fe:a9fe is the IPv6 form of 169\.254\.169\.254, a link-local address/],
    ['http://[fe80::1]/a.gcode', 'link_local', /^file_url: fe80::1 is a link-local address \(fe80::\/10\)$/],
    ['http://224.0.0.1/a.gcode', 'multicast', /^file_url: 224\.0\.0\.1 is a multicast address/],
    ['http://[ff02::1]/a.gcode', 'multicast', /^file_url: ff02::1 is a multicast address/],
    ['http://255.255.255.255/a.gcode', 'broadcast', /^file_url: 255\.255\.255\.255 is the broadcast address$/],
    ['http://0.0.0.0:1/a.gcode', 'unspecified', /^file_url: 0\.0\.0\.0 is an unspecified address/],
    ['http://0/a.gcode', 'unspecified', /^file_url: 0\.0\.0\.0 is an unspecified address/],
    ['http://[::]:1/a.gcode', 'unspecified', /^file_url: :: is the unspecified address/],
    ['https://[fd00:ec2::254]/latest', 'cloud_metadata', /^file_url: fd00:ec2::254 is a cloud metadata address$/],
  ];
  for (const [url, details, message] of literals) {
    it(`refuses the IP literal in ${url}`, () => refusedBeforeConnecting(url, details, message));
  }

  const names: Array<[string, string, RegExp]> = [
    ['metadata.test', 'link_local', /^file_url: metadata\.test resolves to 169\.254\.169\.254, a link-local address \(169\.254\.0\.0\/16\)$/],
    ['link6.test', 'link_local', /resolves to fe80::1, a link-local address/],
    ['mcast.test', 'multicast', /resolves to 224\.0\.0\.1, a multicast address/],
    ['mcast6.test', 'multicast', /resolves to ff02::1, a multicast address/],
    ['bcast.test', 'broadcast', /resolves to 255\.255\.255\.255, the broadcast address/],
    ['zero.test', 'unspecified', /resolves to 0\.0\.0\.0, an unspecified address/],
    ['zero6.test', 'unspecified', /resolves to ::, the unspecified address/],
    ['mapped.test', 'link_local', /resolves to ::ffff:169\.254\.169\.254, the IPv6 form of 169\.254\.169\.254/],
    ['mixed.test', 'link_local', /mixed\.test resolves to 169\.254\.169\.254/],
  ];
  for (const [name, details, message] of names) {
    it(`refuses ${name}, which resolves to a forbidden address`, async () => {
      await refusedBeforeConnecting(`http://${name}:${port}/cube.gcode`, details, message);
      assert.ok(resolver.calls.includes(name), 'the injected resolver answered');
    });
  }

  it('downloads through a name the resolver answers with a loopback address', async () => {
    const rec = await h.files.ingestUrl(`http://files.test:${port}/cube.gcode`);
    assert.equal(rec.slicer, 'Cura');
    assert.deepEqual(connects.attempts, ['127.0.0.1']);
  });

  it('checks the address it connects to: a name answering differently on a second query is resolved once per hop', async () => {
    let queries = 0;
    const rebinding = stubResolver({ 'rebind.test': () => (queries++ === 0 ? ['127.0.0.1'] : ['169.254.169.254']) });
    const own = startFilesHarness({}, rebinding);
    try {
      const rec = await own.files.ingestUrl(`http://rebind.test:${port}/cube.gcode`);
      assert.equal(rec.slicer, 'Cura');
      assert.deepEqual(rebinding.calls, ['rebind.test']);
      assert.deepEqual(connects.attempts, ['127.0.0.1']);
      // The next download asks again and is refused on the new answer.
      await assert.rejects(own.files.ingestUrl(`http://rebind.test:${port}/cube.gcode`), appError(422, 'file_url_forbidden', /rebind\.test resolves to 169\.254\.169\.254/));
      assert.deepEqual(connects.attempts, ['127.0.0.1']);
    } finally {
      await own.close();
    }
  });

  const redirects: Array<[string, string, RegExp]> = [
    ['http://169.254.169.254/latest/meta-data/', 'link_local', /^file_url: the redirect to http:\/\/169\.254\.169\.254\/latest\/meta-data\/ is refused: 169\.254\.169\.254 is a link-local address/],
    ['http://[::ffff:a9fe:a9fe]/', 'link_local', /^file_url: the redirect to http:\/\/\[::ffff:a9fe:a9fe\]\/ is refused: ::ffff:a9fe:a9fe is the IPv6 form of 169\.254\.169\.254/],
    ['http://metadata.test/x', 'link_local', /^file_url: the redirect to http:\/\/metadata\.test\/x is refused: metadata\.test resolves to 169\.254\.169\.254, a link-local/],
    ['http://mcast.test/x', 'multicast', /^file_url: the redirect to http:\/\/mcast\.test\/x is refused: mcast\.test resolves to 224\.0\.0\.1/],
  ];
  for (const [target, details, message] of redirects) {
    it(`refuses a redirect hop to ${target}`, async () => {
      const url = `${base}/to?url=${encodeURIComponent(target)}`;
      const stored = await countFiles(h.handle.db);
      await assert.rejects(h.files.ingestUrl(url), (err: unknown) => {
        appError(422, 'file_url_forbidden', message)(err);
        assert.equal((err as { details: string }).details, details);
        return true;
      });
      assert.deepEqual(connects.attempts, ['127.0.0.1'], 'only the first hop connected');
      assert.deepEqual(h.tempFiles(), []);
      assert.equal(await countFiles(h.handle.db), stored);
    });
  }

  it('checks a later hop as well: a redirect chain ending at a name that resolves to link-local', async () => {
    const url = `http://files.test:${port}/to?url=${encodeURIComponent(`http://files.test:${port}/to?url=http%3A%2F%2Fmetadata.test%2F`)}`;
    await assert.rejects(h.files.ingestUrl(url), appError(422, 'file_url_forbidden', /the redirect to http:\/\/metadata\.test\/ is refused/));
    assert.deepEqual(connects.attempts, ['127.0.0.1', '127.0.0.1']);
  });

  it('follows at most 5 redirects by default, each hop checked; the 6th is refused', async () => {
    const limits = fileLimits({ downloadHeadersTimeoutMs: 2000, downloadIdleTimeoutMs: 2000 });
    assert.equal(limits.maxRedirects, 5);
    assert.equal((await h.files.ingestUrl(`http://files.test:${port}/hop?n=4`, limits)).slicer, 'Cura');
    assert.equal(connects.attempts.length, 6, 'the first request and 5 redirects, each on its own connection');
    await assert.rejects(h.files.ingestUrl(`http://files.test:${port}/hop?n=5`, limits), appError(400, 'invalid_request', /more than 5 redirects \(a redirect loop\?\); last one to \/cube\.gcode/));
  });

  it('still takes a gzip-encoded body (decoded before it is checked and stored)', async () => {
    const rec = await h.files.ingestUrl(`${base}/cube.gcode.gz`);
    assert.equal(rec.size, Buffer.byteLength(GZIPPED));
    assert.equal(rec.original_name, 'cube.gcode.gz');
    assert.equal(rec.slicer, 'Cura');
  });
});
