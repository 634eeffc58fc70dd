// Every offline reason PrusaLink can give, and bad answers (500, HTML, garbage, dropped connections) as a clear
// offline reason rather than a crash; the printer comes back when the fault goes.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import type { AppError } from '../../../src/errors.js';
import { gcodeText, LOGIN, named, rig, until } from './prusalink-harness.js';

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

test('unreachable: nothing listens at the address', async () => {
  const r = await rig();
  try {
    const p = r.driver({ url: `prusalink://127.0.0.1:${await closedPort()}` });
    await assert.rejects(p.connect(), (e: AppError) => e.code === 'printer_offline');
    const s = p.snapshot();
    assert.equal(s.status, 'offline');
    assert.equal(s.offline_reason, 'unreachable');
    assert.equal(s.error!.code, 'unreachable');
    assert.match(s.error!.message, /ECONNREFUSED/);
  } finally {
    await r.close();
  }
});

for (const [name, apiKey, standInKey, answer] of [
  ['a wrong Digest password', 'maker:wrong', LOGIN, /401/],
  // Prusa-Link (Python) answers a wrong key 403 (web/lib/auth.py check_api_digest): refused, not unreachable.
  ['a wrong X-Api-Key (403)', 'nope', 'the-key', /403/],
  ['a wrong firmware password', 'wrong', LOGIN, /401/],
  ['no credentials', null, LOGIN, /401/],
] as const) {
  test(`auth_failed: ${name}`, async () => {
    const r = await rig({ apiKey: standInKey });
    try {
      const p = r.driver({ apiKey });
      await assert.rejects(p.connect());
      assert.equal(p.snapshot().offline_reason, 'auth_failed');
      assert.match(p.snapshot().error!.message, answer);
    } finally {
      await r.close();
    }
  });
}

test('X-Api-Key firmware: the key is sent as a header', async () => {
  const r = await rig({ apiKey: 'the-key' });
  try {
    const p = r.driver({ apiKey: 'the-key' });
    await p.connect();
    assert.equal(p.currentStatus, 'idle');
  } finally {
    await r.close();
  }
});

test('Digest: SHA-256 offered, qop="auth" offered, and the firmware\'s form without qop', async () => {
  for (const digest of [{ algorithm: 'SHA-256' as const }, { qop: true }, { qop: false }, {}]) {
    const r = await rig({ digest });
    try {
      const p = r.driver();
      await p.connect();
      assert.equal(p.currentStatus, 'idle', JSON.stringify(digest));
    } finally {
      await r.close();
    }
  }
});

test('refused mid-session: auth_failed at once; back online when the login works again', async () => {
  const r = await rig();
  try {
    const p = r.driver();
    await p.connect();
    r.standIn.setFault('refuse_auth', true);
    await until(() => p.snapshot().offline_reason === 'auth_failed', 'auth_failed');
    assert.equal(named(r, 'printer.offline').length, 1);
    r.standIn.setFault('refuse_auth', false);
    await until(() => p.currentStatus === 'idle', 'back online', 5000);
    assert.equal(p.snapshot().offline_reason, null);
  } finally {
    await r.close();
  }
});

test('firmware_error: a halted printer mid-print fails the job with the firmware\'s message', async () => {
  const r = await rig();
  try {
    const p = r.driver();
    await p.connect();
    const h = await p.startJob({ jobId: 'j', filePath: await r.file('a.gcode', gcodeText(400)) });
    await until(() => h.snapshot().progress >= 5, 'progress');
    r.standIn.setFault('firmware_error', true);
    const outcome = await h.finished;
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.status === 'failed' && outcome.error.code, 'firmware_error');
    const s = p.snapshot();
    assert.equal(s.status, 'error');
    assert.equal(s.offline_reason, 'firmware_error');
    assert.match(s.error!.message, /Thermal Runaway/);
    assert.equal(named(r, 'printer.error').length, 1);
    assert.equal(named(r, 'job.failed').length, 1);
    r.standIn.setFault('firmware_error', false);
    await until(() => p.currentStatus === 'idle', 'idle after the reset');
  } finally {
    await r.close();
  }
});

test('printer_disconnected: PrusaLink answers but has lost its printer', async () => {
  const r = await rig();
  try {
    const p = r.driver();
    await p.connect();
    r.standIn.setFault('printer_disconnected', true);
    await until(() => p.currentStatus === 'offline', 'offline');
    assert.equal(p.snapshot().offline_reason, 'printer_disconnected');
    assert.equal(p.snapshot().error!.message, 'Printer is not connected');
    r.standIn.setFault('printer_disconnected', false);
    await until(() => p.currentStatus === 'idle', 'back');
    assert.equal(p.snapshot().offline_reason, null);
    assert.equal(named(r, 'printer.offline').length, 1);
    assert.equal(named(r, 'printer.online').length, 2);
  } finally {
    await r.close();
  }
});

for (const fault of ['http_500', 'html', 'garbage', 'drop'] as const) {
  test(`a bad answer (${fault}) makes the printer offline with a clear reason, a running job is kept`, async () => {
    const r = await rig();
    try {
      const p = r.driver();
      await p.connect();
      const h = await p.startJob({ jobId: 'j', filePath: await r.file('a.gcode', gcodeText(300)) });
      await until(() => h.snapshot().progress >= 3, 'progress');
      r.standIn.setFault(fault, true);
      await until(() => p.currentStatus === 'offline', 'offline');
      const s = p.snapshot();
      assert.equal(s.offline_reason, 'unreachable');
      const want = { http_500: /HTTP 500/, html: /HTML page/, garbage: /not JSON/, drop: /socket hang up|ECONNRESET/ }[fault];
      assert.match(s.error!.message, want);
      assert.equal(s.job?.id, 'j', 'the print goes on on the printer: the job is still followed');
      r.standIn.setFault(fault, false);
      await until(() => p.currentStatus === 'printing', 'back online and printing', 5000);
      await p.cancel();
      assert.deepEqual(await h.finished, { status: 'cancelled' });
    } finally {
      await r.close();
    }
  });
}

test('a bad URL is refused when the driver is made', async () => {
  const r = await rig();
  try {
    assert.throws(() => r.driver({ url: 'prusalink+https://h?fingerprint=zz' }), /fingerprint/);
    assert.throws(() => r.driver({ url: 'prusalink://h?fingerprint=' + 'ab'.repeat(32) }), /use prusalink\+https/);
    assert.throws(() => r.driver({ url: 'octoprint://h' }), /scheme/);
  } finally {
    await r.close();
  }
});
