// Every offline reason from the OctoPrint stand-in, garbage, HTML and broken sockets, and certificates pinned by fingerprint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_KEY, rig, testGcode, until } from './octoprint-harness.js';

test('unreachable: nothing listens at the address', async () => {
  const r = await rig();
  try {
    const port = await freePort();
    const d = r.newDriver({ url: `octoprint://127.0.0.1:${port}` });
    await assert.rejects(d.connect(), /offline/);
    const s = d.snapshot();
    assert.equal(s.status, 'offline');
    assert.equal(s.offline_reason, 'unreachable');
    assert.equal(s.error?.code, 'unreachable');
  } finally {
    await r.close();
  }
});

test('auth_failed: the key is refused (403), and the printer comes back when it is accepted again', async () => {
  const r = await rig({ standIn: { faults: { refuse_key: true } } });
  try {
    await assert.rejects(r.driver.connect(), /refused/);
    assert.equal(r.driver.snapshot().offline_reason, 'auth_failed');
    const wrong = r.newDriver({ apiKey: 'not-the-key' });
    r.standIn.setFault('refuse_key', false);
    await assert.rejects(wrong.connect());
    assert.equal(wrong.snapshot().offline_reason, 'auth_failed');
    await until('back online by polling', () => r.driver.currentStatus === 'idle');
    assert.equal(r.driver.snapshot().offline_reason, null);
  } finally {
    await r.close();
  }
});

test('printer_disconnected: OctoPrint is up with no printer; a running job fails', async () => {
  const r = await rig();
  try {
    r.standIn.setFault('printer_disconnected', true);
    await assert.rejects(r.driver.connect());
    assert.equal(r.driver.snapshot().offline_reason, 'printer_disconnected');
    assert.equal(r.driver.snapshot().firmware?.name, 'OctoPrint 1.10.3');
    r.standIn.setFault('printer_disconnected', false);
    await until('online', () => r.driver.currentStatus === 'idle');
    const handle = await r.driver.startJob({ jobId: 'j', filePath: r.file('a.gcode', testGcode(300)) });
    await until('progress', () => handle.snapshot().bytes_acked > 100);
    r.standIn.setFault('printer_disconnected', true);
    const outcome = await handle.finished;
    assert.equal(outcome.status, 'failed');
    await until('offline', () => r.driver.snapshot().offline_reason === 'printer_disconnected');
    assert.equal(r.driver.currentStatus, 'offline');
  } finally {
    await r.close();
  }
});

test('firmware_error: the firmware halts mid-print; status error with its message, the job fails', async () => {
  const r = await rig();
  try {
    await r.driver.connect();
    const handle = await r.driver.startJob({ jobId: 'j', filePath: r.file('a.gcode', testGcode(300)) });
    await until('progress', () => handle.snapshot().bytes_acked > 100);
    r.standIn.setFault('firmware_error', true);
    const outcome = await handle.finished;
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.status === 'failed' && outcome.error.code, 'firmware_error');
    await until('error', () => r.driver.currentStatus === 'error');
    const s = r.driver.snapshot();
    assert.equal(s.offline_reason, 'firmware_error');
    assert.match(s.error?.message ?? '', /Thermal Runaway/);
    assert.ok(r.events.some((e) => e.name === 'printer.error'));
  } finally {
    await r.close();
  }
});

test('HTML pages, 500s, a garbage socket and a half-closed socket: offline_reason or polling, never a crash', async () => {
  const r = await rig();
  try {
    await r.driver.connect();
    await until('socket', () => r.driver.pushing);
    r.standIn.setFault('html', true);
    await r.driver.refresh();
    assert.equal(r.driver.snapshot().offline_reason, 'unreachable');
    assert.match(r.driver.snapshot().error?.message ?? '', /HTML/);
    r.standIn.setFault('html', false);
    r.standIn.setFault('http_500', true);
    await r.driver.refresh();
    assert.match(r.driver.snapshot().error?.message ?? '', /HTTP 500/);
    r.standIn.setFault('http_500', false);
    await until('online again', () => r.driver.currentStatus === 'idle');

    // A running job survives socket trouble: polling takes over.
    const handle = await r.driver.startJob({ jobId: 'j', filePath: r.file('a.gcode', testGcode(150)) });
    r.standIn.setFault('half_close_socket', true);
    await until('socket down', () => !r.driver.pushing);
    r.standIn.setFault('half_close_socket', false);
    r.standIn.setFault('garbage_socket', true);
    await new Promise((res) => setTimeout(res, 1500));
    assert.equal(r.driver.pushing, false, 'a socket speaking garbage is not trusted');
    r.standIn.setFault('garbage_socket', false);
    assert.deepEqual(await handle.finished, { status: 'completed' });
  } finally {
    await r.close();
  }
});

test('https: a self-signed certificate is accepted only when pinned by its SHA-256 fingerprint', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'octoprint-tls-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=octoprint.test'], { stdio: 'ignore' });
    const key = readFileSync(join(dir, 'key.pem'), 'utf8');
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const fingerprint = new X509Certificate(cert).fingerprint256;
    const r = await rig({ standIn: { tls: { key, cert } } });
    try {
      assert.match(r.standIn.url, /^octoprint\+https:/);
      await assert.rejects(r.driver.connect());
      assert.equal(r.driver.snapshot().offline_reason, 'tls_error');
      const wrong = r.newDriver({ url: `${r.standIn.url}?fingerprint=${'00'.repeat(32)}` });
      await assert.rejects(wrong.connect());
      assert.equal(wrong.snapshot().offline_reason, 'tls_error');
      const pinned = r.newDriver({ url: `${r.standIn.url}?fingerprint=${fingerprint}` });
      await pinned.connect();
      assert.equal(pinned.currentStatus, 'idle');
      await until('push socket over wss', () => pinned.pushing);
      assert.deepEqual((await pinned.sendCommand('M105')).ok, true);
    } finally {
      await r.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
void API_KEY;
