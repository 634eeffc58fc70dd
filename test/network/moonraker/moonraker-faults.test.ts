// Every offline reason of the Moonraker driver on the stand-in's fault switches, certificate pinning, and a printer that
// answers garbage, HTML or stops answering: an offline_reason and a clear message, never a crash or a stuck job.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startMoonrakerStandIn } from '../../../src/simulator/moonraker/moonraker-standin.js';
import { API_KEY, harness, testPrint, until, type Harness } from './moonraker-harness.js';

let h: Harness;
before(async () => {
  h = await harness();
});
after(async () => {
  await h.close();
});

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

test('unreachable: nothing listens at the address', async () => {
  const port = await freePort();
  const p = h.printer({ url: `moonraker://127.0.0.1:${port}`, autoReconnect: false });
  await assert.rejects(p.connect(), /ECONNREFUSED/);
  const s = p.snapshot();
  assert.equal(s.status, 'offline');
  assert.equal(s.offline_reason, 'unreachable');
  assert.equal(s.error?.code, 'unreachable');
});

test('auth_failed: a wrong key, and the stand-in refusing every key', async () => {
  const wrong = h.printer({ apiKey: 'not-the-key', autoReconnect: false });
  await assert.rejects(wrong.connect(), /api key was refused/);
  assert.equal(wrong.snapshot().offline_reason, 'auth_failed');
  const p = h.printer();
  await p.connect();
  h.standIn.setFault('refuse_key', true);
  h.standIn.setFault('drop_socket', true); // the connection goes; the next attempt meets the refusal
  await until('auth_failed', () => p.snapshot().offline_reason === 'auth_failed');
  h.standIn.setFault('drop_socket', false);
  h.standIn.setFault('refuse_key', false);
  await until('back online', () => p.currentStatus === 'idle');
  await p.disconnect();
});

test('firmware_error: a Klipper shutdown mid-print fails the job with Klipper\'s message; FIRMWARE_RESTART clears it', async () => {
  const p = h.printer();
  await p.connect();
  const job = await p.startJob({ jobId: 'job-shutdown', filePath: await h.file('s.gcode', testPrint(300)) });
  await until('the print to be under way', () => job.snapshot().bytes_acked > 100);
  h.standIn.setFault('klipper_shutdown', true, 'MCU \'mcu\' shutdown: Timer too close');
  const outcome = await job.finished;
  assert.deepEqual(outcome, { status: 'failed', error: { code: 'firmware_error', message: "MCU 'mcu' shutdown: Timer too close" } });
  await until('error status', () => p.currentStatus === 'error');
  const s = p.snapshot();
  assert.equal(s.offline_reason, 'firmware_error');
  assert.equal(s.error?.message, "MCU 'mcu' shutdown: Timer too close");
  assert.ok(h.events.some((e) => e.name === 'printer.error'));
  await p.reconnect(); // FIRMWARE_RESTART, then a fresh connection
  assert.equal(p.currentStatus, 'idle');
  assert.equal(p.snapshot().offline_reason, null);
  h.standIn.setFault('klipper_shutdown', false);
  p.markReady();
  await p.disconnect();
});

test('printer_disconnected: Moonraker is up, Klippy is not; back to idle when Klippy returns', async () => {
  const p = h.printer();
  await p.connect();
  h.standIn.setFault('klippy_disconnected', true);
  await until('printer_disconnected', () => p.snapshot().offline_reason === 'printer_disconnected');
  assert.equal(p.currentStatus, 'offline');
  await assert.rejects(p.sendCommand('M105'), /offline/);
  h.standIn.setFault('klippy_disconnected', false);
  await until('idle again', () => p.currentStatus === 'idle');
  assert.equal(p.snapshot().offline_reason, null);
  await p.disconnect();
});

test('HTML, HTTP 500, garbage on the websocket, a half-closed websocket: offline with a reason, then back', async () => {
  const p = h.printer();
  await p.connect();
  const cases: Array<[Parameters<typeof h.standIn.setFault>[0], RegExp]> = [
    ['html', /HTML page/],
    ['http_500', /HTTP 500/],
    ['garbage', /not JSON-RPC/],
    ['half_close', /half-closed/],
  ];
  for (const [fault, message] of cases) {
    h.standIn.setFault(fault, true);
    if (fault === 'html' || fault === 'http_500') h.standIn.setFault('drop_socket', true);
    await until(`offline for ${fault}`, () => p.currentStatus === 'offline' && message.test(p.snapshot().error?.message ?? ''));
    assert.equal(p.snapshot().offline_reason, 'unreachable', fault);
    h.standIn.setFault('drop_socket', false);
    h.standIn.setFault(fault, false);
    await until(`back after ${fault}`, () => p.currentStatus === 'idle');
  }
  await p.disconnect();
});

test('a dropped websocket mid-print does not end the job: the link comes back and follows it to the end', async () => {
  const p = h.printer();
  await p.connect();
  const job = await p.startJob({ jobId: 'job-drop', filePath: await h.file('d.gcode', testPrint(200)) });
  await until('the print to be under way', () => job.snapshot().bytes_acked > 100);
  h.standIn.setFault('drop_socket', true);
  await until('offline', () => p.currentStatus === 'offline');
  assert.equal(p.snapshot().offline_reason, 'unreachable');
  await new Promise((r) => setTimeout(r, 200));
  h.standIn.setFault('drop_socket', false);
  assert.deepEqual(await job.finished, { status: 'completed' });
  assert.equal(job.snapshot().bytes_acked, job.snapshot().bytes_total);
  p.markReady();
  await p.disconnect();
});

test('HTTPS: a self-signed certificate is refused unless pinned by its SHA-256 fingerprint, and refused on a wrong pin', async () => {
  const dir = h.dir;
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
  const certPem = await readFile(cert);
  const fingerprint = new X509Certificate(certPem).fingerprint256; // AA:BB:... as openssl prints it
  const standIn = await startMoonrakerStandIn({ apiKey: API_KEY, tls: { key: await readFile(key), cert: certPem }, simulator: { speed: 20 }, statusIntervalMs: 50 });
  try {
    const base = standIn.url; // moonraker+https://127.0.0.1:PORT
    const unpinned = h.printer({ url: base, autoReconnect: false });
    await assert.rejects(unpinned.connect(), /TLS failed/);
    assert.equal(unpinned.snapshot().offline_reason, 'tls_error');
    const wrongPin = h.printer({ url: `${base}?fingerprint=${'00'.repeat(32)}`, autoReconnect: false });
    await assert.rejects(wrongPin.connect(), /does not match the pinned fingerprint/);
    assert.equal(wrongPin.snapshot().offline_reason, 'tls_error');
    const pinned = h.printer({ url: `${base}?fingerprint=${fingerprint}` });
    await pinned.connect();
    assert.equal(pinned.currentStatus, 'idle');
    const reply = await pinned.sendCommand('M105');
    assert.match(reply.lines.join(), /T0:/, 'the websocket passed the same pin (replies arrive)');
    const job = await pinned.startJob({ jobId: 'job-tls', filePath: await h.file('t.gcode', testPrint(10)) });
    assert.deepEqual(await job.finished, { status: 'completed' });
    await pinned.disconnect();
  } finally {
    await standIn.close();
  }
});
