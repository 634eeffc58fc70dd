// prusalink+https: a self-signed certificate is accepted only when pinned by its SHA-256 fingerprint.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { rig } from './prusalink-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'prusalink-tls-'));
after(() => rmSync(dir, { recursive: true, force: true }));
execFileSync('openssl', [
  'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1',
  '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
], { stdio: 'ignore' });
const key = readFileSync(join(dir, 'key.pem'));
const cert = readFileSync(join(dir, 'cert.pem'));
const fingerprint = new X509Certificate(cert).fingerprint256;

test('the pinned fingerprint: online over https', async () => {
  const r = await rig({ tls: { key, cert } });
  try {
    const p = r.driver({ url: `${r.standIn.url}?fingerprint=${fingerprint}` });
    await p.connect();
    assert.equal(p.currentStatus, 'idle');
    // Colons and case do not matter.
    const q = r.driver({ url: `${r.standIn.url}?fingerprint=${fingerprint.replace(/:/g, '').toLowerCase()}`, printerId: 'p2' });
    await q.connect();
    assert.equal(q.currentStatus, 'idle');
    assert.ok(r.standIn.requests > 0);
  } finally {
    await r.close();
  }
});

test('another fingerprint: tls_error, and no request reaches the printer', async () => {
  const r = await rig({ tls: { key, cert } });
  try {
    const p = r.driver({ url: `${r.standIn.url}?fingerprint=${'AB:'.repeat(31)}AB` });
    await assert.rejects(p.connect());
    assert.equal(p.snapshot().offline_reason, 'tls_error');
    assert.match(p.snapshot().error!.message, /does not match the pinned fingerprint/);
    assert.equal(r.standIn.requests, 0);
  } finally {
    await r.close();
  }
});

test('no fingerprint: the self-signed certificate is refused (tls_error)', async () => {
  const r = await rig({ tls: { key, cert } });
  try {
    const p = r.driver();
    await assert.rejects(p.connect());
    assert.equal(p.snapshot().offline_reason, 'tls_error');
  } finally {
    await r.close();
  }
});
