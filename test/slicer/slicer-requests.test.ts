// The slicer transcripts against a tiny fake host: the bytes match the slicers' layout, and each slicer's checks accept a
// correct answer and name what is wrong with a bad one.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { bodyBytes, requestHead } from './raw-http.js';
import * as S from './slicer-requests.js';

interface Got {
  method: string;
  url: string;
  headers: string[];
  body: Buffer;
}
type Answer = { status: number; headers?: Record<string, string>; body?: string };
type Route = (g: Got) => Answer | undefined;

/** form-data parts in wire order: name, filename (raw bytes as latin1) and value. */
function formParts(got: Got): Array<{ name: string; filename?: string; value: Buffer }> {
  const ct = got.headers[got.headers.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === 'content-type') + 1] ?? '';
  const boundary = /boundary="?([^";]+)"?/.exec(ct)?.[1] ?? '';
  const text = got.body.toString('latin1');
  return text
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((chunk) => {
      const [head = '', ...rest] = chunk.replace(/^\r\n/, '').split('\r\n\r\n');
      const disposition = /Content-Disposition: ([^\r\n]*)/.exec(head)?.[1] ?? '';
      return {
        name: /name="([^"]*)"/.exec(disposition)?.[1] ?? '',
        filename: /filename="([^"]*)"/.exec(disposition)?.[1],
        value: Buffer.from(rest.join('\r\n\r\n').replace(/\r\n$/, ''), 'latin1'),
      };
    });
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Answer => ({ status, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('slicer transcripts', () => {
  let server: http.Server;
  let port = 0;
  let got: Got[] = [];
  let route: Route = () => undefined;
  beforeEach(() => {
    got = [];
  });
  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const g: Got = { method: req.method ?? '', url: req.url ?? '', headers: req.rawHeaders, body: Buffer.concat(chunks) };
        got.push(g);
        const a = route(g) ?? { status: 404, body: 'no route' };
        res.writeHead(a.status, a.headers).end(a.body ?? '');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const octoVersion = json({ api: '0.1', server: '1.9.3', text: 'OctoPrint 1.9.3' });

  it('PrusaSlicer OctoPrint upload-and-print: curl layout byte for byte, fields print, path, file', async () => {
    route = (g) => (g.url === '/api/version' ? octoVersion : g.url === '/api/files/local' ? json({ done: true }, 201, { Location: 'http://x/api/files/local/a/b.gcode' }) : undefined);
    const boundary = '------------------------abcdefghijklmnopqrstuv';
    const t = S.prusaSlicerOctoPrintUploadAndPrint({ fileName: 'group/bay-1/né "x".gcode', content: Buffer.from('G28\n'), apiKey: 'K', boundary });
    const r = await S.replay(port, t);
    assert.deepEqual(r.problems, []);
    const upload = r.exchanges[1];
    assert.ok(upload);
    const expected =
      `--${boundary}\r\nContent-Disposition: form-data; name="print"\r\n\r\ntrue\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="path"\r\n\r\ngroup/bay-1\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="né %22x%22.gcode"\r\nContent-Type: application/octet-stream\r\n\r\nG28\n\r\n` +
      `--${boundary}--\r\n`;
    assert.deepEqual(await bodyBytes(upload.request.body), Buffer.from(expected, 'utf8'));
    assert.equal(
      requestHead(upload.request).toString('latin1'),
      `POST /api/files/local HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUser-Agent: PrusaSlicer/2.9.4\r\nAccept: */*\r\nX-Api-Key: K\r\n` +
        `Content-Length: ${Buffer.byteLength(expected)}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n\r\n`,
    );
    assert.deepEqual(formParts(got[1] as Got).map((p) => p.name), ['print', 'path', 'file']);
  });

  it('libcurl 7.75 escapes a quote with a backslash; bodies over 1 MiB carry Expect: 100-continue', async () => {
    const t = S.prusaSlicerOctoPrintUpload({ fileName: 'a"b.gcode', content: Buffer.alloc(1024 * 1024 + 1, 0x41), flavour: 'curl7.75' });
    const req = t.steps[1]?.request({ host: 'h', answers: {} });
    assert.ok(req);
    assert.match((await bodyBytes(req.body)).toString('latin1'), /filename="a\\"b\.gcode"/);
    assert.deepEqual(req.headers.at(-1), ['Expect', '100-continue']);
    assert.match(req.headers.find(([k]) => k === 'Content-Type')?.[1] ?? '', /^multipart\/form-data; boundary=-{24}[0-9a-f]{16}$/);
  });

  it('a version answer of the wrong host type is refused with the slicer\'s own message', async () => {
    route = () => json({ api: '0.1', text: 'Moonraker 0.9' });
    const r = await S.replay(port, S.prusaSlicerOctoPrintTest());
    assert.deepEqual(r.problems, ['GET /api/version: shows "Mismatched type of print host: Moonraker 0.9"']);
    route = () => json({ api: '0.1' });
    assert.deepEqual((await S.replay(port, S.prusaSlicerOctoPrintTest())).problems, []);
    assert.equal((await S.replay(port, S.prusaSlicerPrusaLinkTest())).problems.length, 1, 'PrusaLink needs a text');
  });

  it('PrusaSlicer PrusaLink with Digest: empty probe, then PUT to the chosen storage with escaped path elements', async () => {
    const nonce = 'n0nce';
    const cred = { user: 'maker', password: 'pw' };
    route = (g) => {
      const auth = g.headers[g.headers.findIndex((h, i) => i % 2 === 0 && h === 'Authorization') + 1];
      if (!g.headers.includes('Authorization')) return { status: 401, headers: { 'WWW-Authenticate': `Digest realm="farm", nonce="${nonce}", qop="auth"` }, body: 'auth' };
      const p = Object.fromEntries([...(auth ?? '').matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]+))/g)].map((m) => [m[1], m[2] ?? m[3]]));
      const md5 = (s: string) => createHash('md5').update(s).digest('hex');
      const want = md5(`${md5(`maker:farm:pw`)}:${nonce}:${p.nc}:${p.cnonce}:auth:${md5(`${g.method}:${p.uri}`)}`);
      if (p.response !== want || p.uri !== g.url) return { status: 401, body: 'bad digest' };
      if (g.url === '/api/v1/storage') return json({ storage_list: [{ path: '/local', name: 'Farm', free_space: 10 }, { path: '/group-bay-1', name: 'bay-1', free_space: '99' }] });
      if (g.url === '/api/version') return json({ api: '2.0.0', text: 'PrusaLink 0.7.2', capabilities: { 'upload-by-put': true } });
      return g.method === 'PUT' ? { status: 201 } : undefined;
    };
    const r = await S.replay(port, S.prusaSlicerPrusaLinkUploadAndPrint({ digest: cred, storage: 'bay-1', fileName: 'x3/Bench é+1.gcode' }));
    assert.deepEqual(r.problems, []);
    const puts = got.filter((g) => g.method === 'PUT');
    assert.equal(puts.length, 2);
    assert.equal(puts[0]?.body.length, 0, 'the probe has no body');
    assert.equal(puts[1]?.url, '/api/v1/files/group-bay-1/x3/Bench%20%C3%A9%2B1.gcode');
    const h = puts[1]?.headers ?? [];
    assert.deepEqual([h[0], h[2], h[4], h[6], h[8], h[10], h[12], h[14]], ['Host', 'Authorization', 'User-Agent', 'Accept', 'Print-After-Upload', 'Content-Type', 'Overwrite', 'Content-Length']);
    assert.deepEqual(puts[1]?.body, S.SAMPLE_GCODE);
  });

  it('a storage list the slicer cannot use is named, and a server without Digest challenge is caught', async () => {
    route = (g) => (g.url === '/api/v1/storage' ? json({ storage_list: [{ path: '/local', read_only: true }] }) : undefined);
    const r = await S.replay(port, S.prusaSlicerPrusaLinkUpload({ apiKey: 'k' }));
    assert.match(r.problems[0] ?? '', /no suitable storage found.*\/local : read only/);
    route = () => json({ api: '1', text: 'PrusaLink' });
    const d = await S.replay(port, S.prusaSlicerPrusaLinkTest({ digest: { user: 'u', password: 'p' } }));
    assert.match(d.problems[0] ?? '', /needs 401 \+ WWW-Authenticate: Digest on the empty probe, got 200/);
  });

  it('PrusaSlicer 2.5 PrusaLink posts print, path, file to /api/files/local', async () => {
    route = (g) => (g.url === '/api/version' ? json({ api: '0.1', text: 'PrusaLink 0.6' }) : g.method === 'POST' ? { status: 204 } : undefined);
    const r = await S.replay(port, S.prusaSlicer25PrusaLinkUpload({ apiKey: 'k', fileName: 'a/b.gcode' }));
    assert.deepEqual(r.problems, []);
    const parts = formParts(got[1] as Got);
    assert.deepEqual(parts.map((p) => [p.name, p.filename ?? p.value.toString()]), [['print', 'false'], ['path', 'a'], ['file', 'b.gcode']]);
    assert.ok(got[1]?.headers.includes('PrusaSlicer/2.5.2'));
  });

  it('Cura OctoPrint upload-and-print: path and file first, then select and print; Location must hold api/', async () => {
    const idle = { temperature: {}, state: { text: 'Operational', flags: { operational: true, ready: true, error: false, closedOrError: false, paused: false, pausing: false, printing: false, cancelling: false } } };
    const jobAnswer = { state: 'Operational', job: { file: { name: null } }, progress: { printTime: null, completion: null, printTimeLeft: null } };
    let location = 'http://h/api/files/local/shelf/benchy.gcode';
    route = (g) => (g.url === '/api/printer' ? json(idle) : g.url === '/api/job' ? json(jobAnswer) : g.url === '/api/files/local' ? json({ done: true }, 201, { Location: location }) : undefined);
    const boundary = 'boundary_.oOo._AAAABBBBCCCCDDDDEEEEFFFFGGGGHH+/';
    const r = await S.replay(port, S.curaOctoPrintUploadAndPrint({ fileName: 'benchy', folder: '/shelf/', apiKey: 'K', boundary }));
    assert.deepEqual(r.problems, []);
    const up = got[2] as Got;
    assert.deepEqual(formParts(up).map((p) => [p.name, p.filename ?? p.value.toString()]), [['path', 'shelf'], ['file', 'benchy.gcode'], ['select', 'true'], ['print', 'true']]);
    assert.ok(up.headers.includes(`multipart/form-data; boundary="${boundary}"`));
    assert.match(up.body.toString('latin1'), /^--boundary_\.oOo\._[^\r]+\r\nContent-Disposition: form-data; name="path"\r\nContent-Type: text\/plain\r\n\r\nshelf\r\n/);
    location = 'http://h/files/benchy.gcode';
    const bad = await S.replay(port, S.curaOctoPrintUploadAndPrint({ apiKey: 'K' }));
    assert.match(bad.problems[0] ?? '', /lacks "api\/"/);
  });

  it('Orca Moonraker reads result.item.path and result.print_started; without them it calls /printer/print/start itself', async () => {
    let answer: unknown = {};
    route = (g) => {
      if (g.url === '/server/info') return json({ result: { klippy_state: 'ready', moonraker_version: 'v0.9' } });
      if (g.url === '/server/files/roots') return json({ result: [{ name: 'gcodes', permissions: 'rw' }, { name: 'bay-1', permissions: 'rw' }] });
      if (g.url === '/server/files/upload') return json(answer, 201);
      return g.url === '/printer/print/start' ? json({ result: 'ok' }) : undefined;
    };
    const item = { path: 'a/b.gcode', root: 'bay-1' };
    const urls = async (a: unknown) => {
      answer = a;
      got = [];
      const r = await S.replay(port, S.orcaMoonrakerUploadAndPrint({ storage: 'bay-1', fileName: 'dir/b.gcode' }));
      assert.deepEqual(r.problems, []);
      return got.map((g) => g.url);
    };
    // Real Moonraker's bare answer: Orca sees no result.*, so it starts the print by the file name it uploaded.
    assert.deepEqual(await urls({ item, print_started: true }), ['/server/files/roots', '/server/info', '/server/files/upload', '/printer/print/start']);
    assert.deepEqual(formParts(got[2] as Got).map((p) => [p.name, p.filename ?? p.value.toString()]), [['root', 'bay-1'], ['print', 'true'], ['file', 'b.gcode']]);
    assert.equal(got[3]?.body.toString(), '{"filename":"b.gcode"}\n');
    await urls({ result: { item, print_started: false } });
    assert.equal(got[3]?.body.toString(), '{"filename":"a\\/b.gcode"}\n', 'property_tree escapes the slash');
    assert.deepEqual(await urls({ result: { item, print_started: true } }), ['/server/files/roots', '/server/info', '/server/files/upload']);
  });

  it('Cura Moonraker: the file part comes first; printing needs klippy_state ready', async () => {
    let state = 'ready';
    route = (g) => (g.url === '/server/info' ? json({ result: { klippy_state: state } }) : g.url === '/server/files/upload' ? json({}, 201) : undefined);
    const r = await S.replay(port, S.curaMoonrakerUploadAndPrint({ fileName: 'cube', folder: 'bay-1', apiKey: 'k' }));
    assert.deepEqual(r.problems, []);
    assert.deepEqual(formParts(got[1] as Got).map((p) => [p.name, p.filename ?? p.value.toString()]), [['file', 'cube.gcode'], ['root', 'gcodes'], ['path', 'bay-1'], ['print', 'true']]);
    state = 'startup';
    assert.match((await S.replay(port, S.curaMoonrakerUploadAndPrint())).problems[0] ?? '', /The status of the printer is 'startup'/);
  });
});
