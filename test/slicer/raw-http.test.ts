// Self-test of the raw replay client: what it is given arrives byte for byte, and it handles `Expect: 100-continue` as libcurl does.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sendWire, type WireRequest } from './raw-http.js';

interface Seen {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
  continueAsked: boolean;
}

type Behaviour = (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => void;

describe('raw-http', () => {
  let server: http.Server;
  let port = 0;
  let behaviour: Behaviour = () => undefined;
  let seen: Seen[] = [];
  // What each request delivered, once its body ended or the connection went away.
  const collect = (req: http.IncomingMessage, continueAsked: boolean, then: (s: Seen) => void) => {
    const chunks: Buffer[] = [];
    const s: Seen = { method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders, body: Buffer.alloc(0), continueAsked };
    seen.push(s);
    req.on('data', (c: Buffer) => chunks.push(c));
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      s.body = Buffer.concat(chunks);
      then(s);
    };
    req.on('end', done);
    req.on('close', done);
  };

  before(async () => {
    server = http.createServer((req, res) => collect(req, false, (s) => behaviour(req, res, s)));
    // Registering checkContinue stops node from answering `100 Continue` by itself: each test decides.
    server.on('checkContinue', (req, res) => behaviour(req, res, { method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders, body: Buffer.alloc(0), continueAsked: true }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('sends the target, header names, their order and the body bytes exactly as given', async () => {
    seen = [];
    behaviour = (_req, res) => res.writeHead(201, 'Made', { 'X-B': '2', 'x-a': '1' }).end('ok');
    const body = Buffer.from([0x2d, 0x2d, 0xc3, 0xa9, 0x00, 0xff, 0x0d, 0x0a]);
    const req: WireRequest = {
      method: 'POST',
      target: '/api/files/local?x=%C3%A9',
      headers: [
        ['Host', `127.0.0.1:${port}`],
        ['User-Agent', 'PrusaSlicer/2.9.4'],
        ['Accept', '*/*'],
        ['X-Api-Key', 'k'],
        ['content-length', String(body.length)],
        ['Content-Type', 'multipart/form-data; boundary=------------------------abc'],
      ],
      body: [body.subarray(0, 3), { size: 5, stream: async function* () { yield body.subarray(3); } }],
    };
    const res = await sendWire(port, req);
    assert.equal(res.status, 201);
    assert.equal(res.reason, 'Made');
    assert.equal(res.body.toString(), 'ok');
    assert.deepEqual(res.headers.slice(0, 2), [['X-B', '2'], ['x-a', '1']]);
    const s = seen[0];
    assert.ok(s);
    assert.equal(s.url, '/api/files/local?x=%C3%A9');
    assert.deepEqual(s.rawHeaders, req.headers.flat());
    assert.deepEqual(s.body, body);
  });

  it('reads a chunked answer', async () => {
    behaviour = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"a":');
      res.end('1}');
    };
    const res = await sendWire(port, { method: 'GET', target: '/api/version', headers: [['Host', 'h']], body: [] });
    assert.equal(res.status, 200);
    assert.equal(res.body.toString(), '{"a":1}');
  });

  const bigUpload = (): WireRequest => ({
    method: 'PUT',
    target: '/api/v1/files/local/big.gcode',
    headers: [['Host', 'h'], ['Content-Length', '6'], ['Expect', '100-continue']],
    body: [Buffer.from('G28\nM2')],
  });

  it('sends the body right after `100 Continue`', async () => {
    seen = [];
    behaviour = (req, res, s) => {
      if (s.continueAsked) {
        res.writeContinue();
        collect(req, true, (got) => res.writeHead(201).end(got.body));
      }
    };
    const res = await sendWire(port, bigUpload(), { continueTimeoutMs: 20_000 });
    assert.deepEqual(res.interim, [100]);
    assert.equal(res.status, 201);
    assert.equal(res.bodySent, true);
    assert.equal(res.body.toString(), 'G28\nM2');
  });

  it('sends the body anyway when no `100 Continue` comes within the wait (libcurl waits 1 s)', async () => {
    behaviour = (req, res, s) => {
      if (s.continueAsked) collect(req, true, (got) => res.writeHead(201).end(got.body));
    };
    const started = Date.now();
    const res = await sendWire(port, bigUpload(), { continueTimeoutMs: 300 });
    assert.deepEqual(res.interim, []);
    assert.equal(res.body.toString(), 'G28\nM2');
    // A lower bound only: the body must not have gone before the wait was over.
    assert.ok(Date.now() - started >= 250, 'the body went out before the continue wait ended');
  });

  it('keeps the body back when the server answers before `100 Continue` (e.g. 401)', async () => {
    behaviour = (_req, res, s) => {
      if (s.continueAsked) res.writeHead(401, { 'WWW-Authenticate': 'Digest realm="r", nonce="n"' }).end('no');
    };
    const res = await sendWire(port, bigUpload(), { continueTimeoutMs: 20_000 });
    assert.equal(res.status, 401);
    assert.equal(res.bodySent, false);
    assert.equal(res.body.toString(), 'no');
  });

  it('keeps the body back for good once a final answer has begun, even when the continue wait then runs out', async () => {
    behaviour = (_req, res, s) => {
      if (!s.continueAsked) return;
      res.writeHead(413, { 'Content-Length': '8' });
      res.write('too ');
      setTimeout(() => res.end('big!'), 400);
    };
    const res = await sendWire(port, bigUpload(), { continueTimeoutMs: 100 });
    assert.equal(res.status, 413);
    assert.equal(res.body.toString(), 'too big!');
    assert.equal(res.bodySent, false);
  });

  it('cuts an upload off after the given number of body bytes', async () => {
    seen = [];
    let delivered: Buffer | undefined;
    const gotIt = new Promise<void>((resolve) => {
      behaviour = (_req, _res, s) => {
        delivered = s.body;
        resolve();
      };
    });
    const body = { size: 1_000_000, stream: async function* () { for (let i = 0; i < 100; i++) yield Buffer.alloc(10_000, 0x41); } };
    const res = await sendWire(port, { method: 'POST', target: '/x', headers: [['Host', 'h'], ['Content-Length', '1000000']], body: [body] }, { cutAfterBodyBytes: 25_000 });
    assert.equal(res.cut, true);
    assert.equal(res.status, 0);
    await gotIt;
    assert.equal(delivered?.length, 25_000);
  });
});
