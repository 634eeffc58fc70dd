// Every bad upload a slicer (or a broken network) can send: a clear error in words the slicer shows, and nothing
// stored — no file row, no job, no half-written file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { gcode } from '../jobs/jobs-harness.js';
import { sliced3mf } from '../helpers/threemf-builder.js';
import { startSlicerFarm, type SlicerFarm } from './slicer-harness.js';

/** A multipart body in the given part order; each part is [name, value] or [name, content, filename]. */
function form(parts: [string, string | Buffer, string?][]): { body: Buffer; type: string } {
  const b = '------------------------d74496d66958873e';
  const chunks: Buffer[] = [];
  for (const [name, value, filename] of parts) {
    const disposition = `Content-Disposition: form-data; name="${name}"${filename !== undefined ? `; filename="${filename}"` : ''}`;
    const type = filename !== undefined ? '\r\nContent-Type: application/octet-stream' : '';
    chunks.push(Buffer.from(`--${b}\r\n${disposition}${type}\r\n\r\n`), Buffer.isBuffer(value) ? value : Buffer.from(value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${b}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${b}` };
}

describe('bad slicer uploads', () => {
  let farm: SlicerFarm;
  before(async () => {
    farm = await startSlicerFarm();
  });
  after(() => farm.close());

  const post = (path: string, f: { body: Buffer; type: string }, key = farm.key) =>
    farm.app.request(path, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': f.type }, body: f.body });

  async function refused(res: Response, status: number, message: RegExp): Promise<void> {
    const text = await res.text();
    assert.equal(res.status, status, text);
    assert.equal(res.headers.get('content-type'), 'text/plain', 'exactly text/plain: Cura shows the body only then');
    assert.match(text, message);
    assert.match(res.statusText, message, 'the reason phrase carries the words too (Cura\'s Moonraker plugin shows only that)');
  }

  const cases: { what: string; send: () => Promise<Response>; status: number; message: RegExp }[] = [
    { what: 'no file part', send: () => post('/api/files/local', form([['print', 'true'], ['path', '']])), status: 400, message: /no file part named "file"|file: is required/ },
    { what: 'an empty file', send: () => post('/api/files/local', form([['print', 'true'], ['file', '', 'empty.gcode']])), status: 422, message: /the file is empty \(0 bytes\)/ },
    { what: 'an STL', send: () => post('/api/files/local', form([['print', 'true'], ['file', 'solid x\nendsolid x\n', 'part.stl']])), status: 415, message: /3D model, not a print: slice it first/ },
    { what: 'a cut-off 3MF', send: () => post('/server/files/upload', form([['root', 'gcodes'], ['print', 'true'], ['file', 'PK\u0003\u0004', 'plate.gcode.3mf']])), status: 422, message: /not a valid 3MF \(ZIP\) archive/ },
    { what: 'a 3MF project never sliced', send: () => post('/server/files/upload', form([['root', 'gcodes'], ['print', 'true'], ['file', sliced3mf([]), 'plate.3mf']])), status: 422, message: /3MF project that is not sliced/ },
    { what: 'a path with ..', send: () => post('/api/files/local', form([['print', 'true'], ['path', '../../etc'], ['file', gcode(), 'a.gcode']])), status: 400, message: /may not contain "\.\."/ },
    { what: 'a name of 300 characters', send: () => post('/api/files/local', form([['print', 'true'], ['file', gcode(), `${'n'.repeat(294)}.gcode`]])), status: 400, message: /300 characters long; the farm keeps names up to 255/ },
    { what: 'a wrong key', send: () => post('/api/files/local', form([['print', 'true'], ['file', gcode(), 'a.gcode']]), `svc_live_${'z'.repeat(40)}`), status: 401, message: /invalid API key/ },
    { what: 'a key without slicer:upload', send: async () => post('/api/files/local', form([['print', 'true'], ['file', gcode(), 'a.gcode']]), await readOnlyKey()), status: 403, message: /missing scope: slicer:upload/ },
    // Cura and the Moonraker plugin send the file before the folder: the folder is checked before the file is kept.
    { what: 'an unknown group named after the file part', send: () => post('/api/files/local', form([['file', gcode(), 'a.gcode'], ['path', 'group/bay-9'], ['print', 'true']])), status: 400, message: /no printer of this farm is in group "bay-9"; groups: bay-1/ },
    { what: 'an unknown printer root', send: () => post('/server/files/upload', form([['file', gcode(), 'a.gcode'], ['root', 'printer/ender'], ['print', 'true']])), status: 400, message: /no printer of this farm is named "ender"; printers: prusa-1, prusa-2, voron/ },
    { what: 'a PUT to an unknown folder', send: () => farm.app.request('/api/v1/files/local/nope/a.gcode', { method: 'PUT', headers: { 'X-Api-Key': farm.key }, body: gcode() }), status: 400, message: /unknown folder "nope"/ },
    { what: 'a PUT bigger than the store takes', send: () => rawPut('/api/v1/files/local/huge.gcode', 2 * 1024 ** 3), status: 413, message: /the file is 2 GiB, over the 1 GiB limit/ },
    { what: 'a file that is not G-code', send: () => post('/api/files/local', form([['print', 'true'], ['file', Buffer.from([0, 1, 2, 3, 0, 0, 255, 254]), 'a.gcode']])), status: 422, message: /binary|not text|G-code/i },
    { what: 'a field sent twice', send: () => post('/api/files/local', form([['print', 'true'], ['path', 'high'], ['path', 'low'], ['file', gcode(), 'a.gcode']])), status: 400, message: /"path" is given 2 times/ },
    { what: 'a broken multipart body', send: () => farm.app.request('/api/files/local', { method: 'POST', headers: { 'X-Api-Key': farm.key, 'Content-Type': 'multipart/form-data; boundary=zzz' }, body: '--zzz\r\nnonsense' }), status: 400, message: /malformed multipart|ended unexpectedly|cut off/ },
  ];

  let readOnly: string | null = null;
  async function readOnlyKey(): Promise<string> {
    if (readOnly) return readOnly;
    const res = await farm.app.request('/v1/api-keys', { method: 'POST', headers: { Authorization: `Bearer ${farm.admin}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'reader', scopes: ['jobs:read'] }) });
    readOnly = ((await res.json()) as { key: string }).key;
    return readOnly;
  }

  /** A PUT that announces `length` bytes and waits (Expect: 100-continue): the 413 must come from the header alone. */
  function rawPut(path: string, length: number): Promise<Response> {
    return new Promise((resolve, reject) => {
      const req = http.request(`${farm.app.baseUrl}${path}`, {
        method: 'PUT',
        headers: { 'X-Api-Key': farm.key, 'Content-Length': String(length), Expect: '100-continue' },
      });
      req.on('continue', () => reject(new Error('the server asked for the 2 GB body')));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          req.destroy();
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode!, statusText: res.statusMessage!, headers: { 'content-type': String(res.headers['content-type']) } }));
        });
      });
      req.on('error', reject);
      req.flushHeaders();
    });
  }

  for (const c of cases) {
    test(`${c.what}: ${c.status}, nothing stored`, async () => {
      const before = await farm.holdings();
      await refused(await c.send(), c.status, c.message);
      assert.deepEqual(await farm.holdings(), before, 'no file row, no job, no half-written file');
    });
  }

  test('an upload cut off midway (announced 2 GB, 3 MB sent, then the connection drops): nothing stored', async () => {
    const before = await farm.holdings();
    const b = 'cutcutcut';
    const head =
      `POST /api/files/local HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${farm.key}\r\n` +
      `Content-Type: multipart/form-data; boundary=${b}\r\nContent-Length: ${2 * 1024 ** 3 - 1}\r\n\r\n` +
      `--${b}\r\nContent-Disposition: form-data; name="print"\r\n\r\ntrue\r\n` +
      `--${b}\r\nContent-Disposition: form-data; name="file"; filename="cut.gcode"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const port = Number(new URL(farm.app.baseUrl).port);
    const line = Buffer.from('G1 X10 Y10 E0.5 F1200\n');
    await new Promise<void>((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', async () => {
        s.write(head);
        for (let sent = 0; sent < 3 * 1024 * 1024; sent += 64 * line.length) {
          if (!s.write(Buffer.concat(Array(64).fill(line)))) await new Promise((r) => s.once('drain', r));
        }
        s.destroy();
        resolve();
      });
      s.on('error', reject);
    });
    // The server notices the drop and removes what it had written.
    const deadline = Date.now() + 10_000;
    let now = await farm.holdings();
    while (now.partFiles > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      now = await farm.holdings();
    }
    assert.deepEqual(now, before);
  });
});
