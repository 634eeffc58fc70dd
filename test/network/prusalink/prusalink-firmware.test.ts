// The PrusaLink driver against the stand-in answering as Prusa-Firmware-Buddy does (read from its lib/WUI and
// src/state sources): no job and 204 in FINISHED/STOPPED, progress capped at 99, BUSY without a job during crash
// recovery, UNKNOWN, Digest without qop for the one user `maker`, an upload stored before a 409.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import type { AppError } from '../../../src/errors.js';
import type { PrinterStatus } from '../../../src/printers/printer-state.js';
import { externalPrinting, gcodeText, LOGIN, named, printing, rig, until } from './prusalink-harness.js';

/** One GET on the stand-in with an X-Api-Key (the firmware takes its password so): status and JSON body or null. */
async function get(url: string, path: string, key: string): Promise<{ status: number; body: unknown }> {
  const base = new URL(url.replace(/^prusalink/, 'http'));
  return new Promise((resolve, reject) => {
    http
      .get({ hostname: base.hostname, port: base.port, path, headers: { 'X-Api-Key': key } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      })
      .on('error', reject);
  });
}

const PASSWORD = LOGIN.slice(LOGIN.indexOf(':') + 1);

test('stand-in: progress from the file position never passes 99; FINISHED and STOPPED carry no job and /job is 204', async () => {
  const r = await rig();
  try {
    const seen: number[] = [];
    r.standIn.startExternalPrint('a.gcode', Buffer.from(gcodeText(60)));
    while (r.standIn.host.state === 'PRINTING') {
      const s = (await get(r.standIn.url, '/api/v1/status', PASSWORD)).body as { job?: { progress: number } };
      if (s.job) seen.push(s.job.progress);
      await new Promise((res) => setTimeout(res, 5));
    }
    assert.equal(r.standIn.host.state, 'FINISHED');
    assert.ok(seen.length > 0 && Math.max(...seen) <= 99, `progress seen: ${Math.max(...seen)}`);
    const status = (await get(r.standIn.url, '/api/v1/status', PASSWORD)).body as { job?: unknown; printer: { state: string } };
    assert.equal(status.printer.state, 'FINISHED');
    assert.equal(status.job, undefined);
    assert.equal((await get(r.standIn.url, '/api/v1/job', PASSWORD)).status, 204);

    r.standIn.startExternalPrint('b.gcode', Buffer.from(gcodeText(400)));
    r.standIn.host.stop();
    const stopped = (await get(r.standIn.url, '/api/v1/status', PASSWORD)).body as { job?: unknown; printer: { state: string } };
    assert.equal(stopped.printer.state, 'STOPPED');
    assert.equal(stopped.job, undefined);
    assert.equal((await get(r.standIn.url, '/api/v1/job', PASSWORD)).status, 204);
  } finally {
    await r.close();
  }
});

test('FINISHED ends our job completed though the last progress seen was 99 and the status names no job', async () => {
  const r = await rig();
  try {
    const p = r.driver();
    await p.connect();
    const h = await p.startJob({ jobId: 'job-99', filePath: await r.file('a.gcode', gcodeText(120)) });
    assert.deepEqual(await h.finished, { status: 'completed' });
    assert.equal(h.snapshot().progress, 100, 'a completed print did the whole file');
    assert.deepEqual(h.snapshot().extruded_mm, [120]);
    assert.equal(named(r, 'job.completed').length, 1);
    assert.equal(named(r, 'job.cancelled').length, 0);
  } finally {
    await r.close();
  }
});

test('a print that ends before any poll saw its job id is ended by the result state, not failed by the start deadline', async () => {
  const r = await rig();
  try {
    // Polls far apart: only the one right after the upload looks, and by then the print is over (stopped here, as the
    // firmware shows no job in STOPPED or FINISHED either way).
    const p = r.driver({ pollMs: 60_000, startTimeoutMs: 2000 });
    await p.connect();
    const h = await p.startJob({ jobId: 'job-short', filePath: await r.file('a.gcode', gcodeText(400)) });
    r.standIn.host.stop();
    const outcome = await Promise.race([h.finished, new Promise((res) => setTimeout(() => res('still waiting'), 5000))]);
    assert.deepEqual(outcome, { status: 'cancelled' });
  } finally {
    await r.close();
  }
});

test('STOPPED on the printer\'s screen ends our job cancelled; a print finished on its own screen is recorded completed', async () => {
  const r = await rig();
  try {
    const { p, h } = await printing(r, 'job-s', 400, 5);
    r.standIn.host.stop();
    assert.deepEqual(await h.finished, { status: 'cancelled' });
    p.markReady();
    r.standIn.startExternalPrint('benchy.gcode', Buffer.from(gcodeText(60)));
    await until(() => named(r, 'printer.external_job_ended').length === 1, 'the external print to end');
    assert.equal(named(r, 'printer.external_job_ended')[0]!.status, 'completed');
  } finally {
    await r.close();
  }
});

test('an external print whose /api/v1/job answers 204 while the status still shows it is not judged until a poll shows how it ended', async () => {
  const r = await rig();
  try {
    const p = await externalPrinting(r, 300);
    r.standIn.setFault('job_gone', true);
    const before = r.standIn.requests;
    await until(() => r.standIn.requests >= before + 8, 'several polls');
    assert.equal(named(r, 'printer.external_job_ended').length, 0, 'not ended on a half answer');
    r.standIn.setFault('job_gone', false);
    await until(() => named(r, 'printer.external_job_ended').length === 1, 'the external print to end');
    assert.equal(named(r, 'printer.external_job_ended')[0]!.status, 'completed');
  } finally {
    await r.close();
  }
});

test('crash recovery (BUSY with no job) mid-print: the job is neither ended nor shown as external, and completes', async () => {
  const r = await rig({ recoveryMs: 500 });
  try {
    const { p, h } = await printing(r, 'job-r', 300, 10);
    const statuses = new Set<PrinterStatus>();
    r.standIn.setFault('crash_recovery', true);
    assert.equal(r.standIn.host.state, 'BUSY');
    assert.equal((await get(r.standIn.url, '/api/v1/job', PASSWORD)).status, 204, 'the firmware shows no job in BUSY');
    while (r.standIn.host.state === 'BUSY') {
      statuses.add(p.currentStatus);
      assert.equal(p.snapshot().job?.id, 'job-r', 'the job is still followed during the recovery');
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.deepEqual([...statuses], ['printing']);
    assert.deepEqual(await h.finished, { status: 'completed' });
    assert.equal(named(r, 'job.cancelled').length, 0);
    assert.equal(named(r, 'printer.external_job_ended').length, 0, 'the resumed print is ours, not an external one');
    assert.equal(p.snapshot().external_job, null);
  } finally {
    await r.close();
  }
});

test('crash_recovery switched on before a print (as from the command line): that print goes BUSY once, the job completes', async () => {
  const r = await rig({ faults: ['crash_recovery'], recoveryMs: 300 });
  try {
    const p = r.driver();
    await p.connect();
    const h = await p.startJob({ jobId: 'job-r2', filePath: await r.file('a.gcode', gcodeText(200)) });
    await until(() => r.standIn.host.state === 'BUSY', 'the recovery');
    assert.deepEqual(await h.finished, { status: 'completed' });
    assert.equal(named(r, 'printer.external_job_ended').length, 0);
  } finally {
    await r.close();
  }
});

test('our restart during a crash recovery: adoption waits for the print to come back instead of giving it up', async () => {
  const r = await rig({ recoveryMs: 800 });
  try {
    const { p: first } = await printing(r, 'job-ra', 300, 5);
    const started = Date.now();
    await first.disconnect();
    r.standIn.setFault('crash_recovery', true);
    const second = r.driver();
    await second.connect();
    assert.equal(r.standIn.host.state, 'BUSY');
    const h = await second.adoptJob({ jobId: 'job-ra', filePath: `${r.dir}/job-ra.gcode`, remoteName: 'job-ra', startedAt: started });
    assert.ok(h, 'the print in recovery is still the job');
    assert.deepEqual(await h.finished, { status: 'completed' });
    assert.equal(named(r, 'printer.external_job_ended').length, 0);
  } finally {
    await r.close();
  }
});

test('UNKNOWN state: the printer stays online with its job (no offline reason after many polls), then goes on', async () => {
  const r = await rig();
  try {
    const { p, h } = await printing(r, 'job-u', 300, 5);
    r.standIn.host.pause();
    await until(() => p.currentStatus === 'paused', 'paused');
    r.standIn.setFault('unknown_state', true);
    const before = r.standIn.requests;
    await until(() => r.standIn.requests >= before + 12, 'several polls');
    assert.equal(p.currentStatus, 'paused', 'UNKNOWN keeps the last status');
    assert.equal(p.snapshot().offline_reason, null);
    assert.equal(p.snapshot().job?.id, 'job-u');
    assert.equal(named(r, 'printer.offline').length, 0);
    r.standIn.setFault('unknown_state', false);
    r.standIn.host.resume();
    assert.deepEqual(await h.finished, { status: 'completed' });
  } finally {
    await r.close();
  }
});

test('UNKNOWN while idle: online, but no job is sent to it', async () => {
  const r = await rig({ faults: ['unknown_state'] });
  try {
    const p = r.driver();
    await p.connect();
    assert.equal(p.snapshot().offline_reason, null);
    assert.notEqual(p.currentStatus, 'offline');
    await assert.rejects(p.startJob({ jobId: 'x', filePath: await r.file('x.gcode', gcodeText(2)) }), (e: AppError) => e.code === 'printer_busy');
  } finally {
    await r.close();
  }
});

test('Digest as the firmware sends it: no qop by default, qop="auth" on request; the driver logs in with both', async () => {
  for (const qop of [undefined, true]) {
    const r = await rig(qop === undefined ? {} : { digest: { qop } });
    try {
      const p = r.driver();
      await p.connect();
      assert.equal(p.currentStatus, 'idle');
      const challenge = r.standIn.lastChallenge ?? '';
      assert.match(challenge, /^Digest realm="Printer API", nonce="/);
      if (qop) assert.match(challenge, /qop="auth"/);
      else assert.doesNotMatch(challenge, /qop/);
    } finally {
      await r.close();
    }
  }
});

test('a bare password logs in as the firmware\'s one user `maker` by Digest (never sent in clear); an API key still works', async () => {
  const r = await rig();
  try {
    const p = r.driver({ apiKey: PASSWORD });
    await p.connect();
    assert.equal(p.currentStatus, 'idle');
    assert.equal(r.standIn.apiKeyRequests, 0, 'the password went by Digest, not as an X-Api-Key header');
    const h = await p.startJob({ jobId: 'job-pw', filePath: await r.file('a.gcode', gcodeText(20)) });
    assert.deepEqual(await h.finished, { status: 'completed' });
  } finally {
    await r.close();
  }
  const k = await rig({ apiKey: 'the-key' });
  try {
    const p = k.driver({ apiKey: 'the-key' });
    await p.connect();
    assert.equal(p.currentStatus, 'idle');
  } finally {
    await k.close();
  }
});

test('a Digest login with another user than maker is refused with a hint that says so', async () => {
  const r = await rig();
  try {
    const p = r.driver({ apiKey: `admin:${PASSWORD}` });
    await assert.rejects(p.connect());
    assert.equal(p.snapshot().offline_reason, 'auth_failed');
    assert.match(p.snapshot().error!.message, /user is always "maker"/);
  } finally {
    await r.close();
  }
});

test('an upload the busy printer stored before answering 409: printer_busy, and our copy is removed', async () => {
  const r = await rig();
  try {
    // Polls far apart: the driver still thinks the printer idle when a print starts on its screen.
    const p = r.driver({ pollMs: 60_000 });
    await p.connect();
    r.standIn.startExternalPrint('benchy.gcode', Buffer.from(gcodeText(2000)));
    await assert.rejects(
      p.startJob({ jobId: 'job-409', filePath: await r.file('a.gcode', gcodeText(20)) }),
      (e: AppError) => e.code === 'printer_busy' && /409/.test(e.message),
    );
    assert.equal(r.standIn.files.has('job-409.gcode'), false, 'the refused upload does not stay on the printer');
    assert.equal(r.standIn.files.has('benchy.gcode'), true, 'nothing else is touched');
    assert.equal(r.standIn.host.job?.name, 'benchy.gcode');
  } finally {
    await r.close();
  }
});
