// Network printers through the API, on their stand-ins: kind and offline reasons on the record, a key fixed by PATCH, a
// print started on the printer recorded as an external job, a job that outlives our restart, binary G-code that only
// PrusaLink printers take.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { startMoonrakerStandIn, type MoonrakerStandIn } from '../../src/simulator/moonraker/moonraker-standin.js';
import { startPrusaLinkStandIn } from '../../src/simulator/prusalink/prusalink-standin.js';
import { DATABASE_FILE } from '../../src/storage/db.js';
import { bgcodeAround } from '../helpers/bgcode-builder.js';
import { createJob, getJob, jobEvents, untilJob, untilStatus, uploadJob } from '../jobs/jobs-harness.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';

const KEY = 'api-test-key';
const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

function moves(n: number, e = 0.05): string {
  const lines = ['G90', 'M83', 'G1 Z0.2 F600'];
  for (let i = 1; i <= n; i++) lines.push(`G1 X${10 + (i % 2)} Y10 E${e} F1200`);
  return lines.join('\n') + '\n';
}

async function moonraker(speed: number): Promise<MoonrakerStandIn> {
  const s = await startMoonrakerStandIn({ apiKey: KEY, simulator: { speed } });
  cleanups.push(() => s.close());
  return s;
}

async function app(options: Parameters<typeof startPrintersApp>[0] = {}): Promise<PrintersApp> {
  const a = await startPrintersApp(options);
  cleanups.push(() => a.close());
  return a;
}

describe('network printers through the API', () => {
  it('shows kind and why a printer is offline, and a PATCHed key brings it online', async () => {
    const s = await moonraker(20);
    const a = await app();
    const p = await a.create({ name: 'klipper', connection_url: `moonraker://127.0.0.1:${s.port}`, api_key: 'wrong-key' });
    assert.equal(p.kind, 'moonraker');
    assert.equal(p.has_api_key, true);
    await a.until('auth_failed', async () => (await a.get(p.id)).offline_reason === 'auth_failed');
    const refused = await a.get(p.id);
    assert.equal(refused.status, 'offline');
    assert.ok(refused.error?.message, 'the reason comes with a message');
    assert.ok(!JSON.stringify(refused).includes('wrong-key'), 'the key is never returned');
    const patched = await a.call('PATCH', `/v1/printers/${p.id}`, { api_key: KEY });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const idle = await a.untilStatus(p.id, 'idle');
    assert.equal(idle.offline_reason, null);

    const unreachable = await a.create({ name: 'gone', connection_url: 'prusalink://127.0.0.1:1', api_key: 'maker:pass' });
    assert.equal(unreachable.kind, 'prusalink');
    await a.until('unreachable', async () => (await a.get(unreachable.id)).offline_reason === 'unreachable');

    const bad = await a.call('POST', '/v1/printers', { name: 'bad', connection_url: 'moonraker://127.0.0.1:7125?fingerprint=xyz' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /^connection_url: .*fingerprint/);
  });

  it('records a print started on the printer as an external job, and sends the printer nothing meanwhile', async () => {
    const s = await moonraker(5);
    const a = await app();
    const p = await a.create({ name: 'klipper', connection_url: `moonraker://127.0.0.1:${s.port}`, api_key: KEY });
    await a.untilStatus(p.id, 'idle');
    s.startExternalPrint('benchy.gcode', moves(120));
    await a.until('external print shown', async () => (await a.get(p.id)).external_job?.file_name === 'benchy.gcode');
    const busy = await a.get(p.id);
    assert.equal(busy.status, 'printing');
    assert.equal(busy.current_job, null);
    const queued = await createJob(a, moves(10), { printer_id: p.id });
    await untilJob(a, queued.id, (j) => j.waiting_reason === 'pinned_printer_busy', 'to wait for the printer');

    await a.until('external job recorded', async () => {
      const list = await a.call('GET', `/v1/jobs?printer_id=${p.id}&status=completed`);
      return list.body.data.some((j: { origin: string }) => j.origin === 'external');
    }, 60_000);
    const list = await a.call('GET', `/v1/jobs?printer_id=${p.id}&status=completed`);
    const ext = list.body.data.find((j: { origin: string }) => j.origin === 'external');
    assert.equal(ext.name, 'benchy');
    assert.equal(ext.file_id, null);
    assert.equal(ext.material.used_basis, 'printer_report');
    assert.ok(ext.elapsed_time > 0, 'its printing time counts');
    assert.deepEqual(await jobEvents(a, ext.id), ['job.completed'], 'its end goes out like any job\'s (webhooks, live stream)');
    assert.ok((await a.call('GET', `/v1/analytics/printers/${p.id}`)).status === 200);
  });

  it('a job on a network printer outlives our restart and ends in our records as on the printer', async () => {
    const s = await moonraker(2);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'pf-net-restart-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const file = path.join(dataDir, DATABASE_FILE);
    const first = await startPrintersApp({ file, dataDir });
    const p = await first.create({ name: 'klipper', connection_url: `moonraker://127.0.0.1:${s.port}`, api_key: KEY });
    await first.untilStatus(p.id, 'idle');
    const job = await createJob(first, moves(400), { printer_id: p.id });
    await untilJob(first, job.id, (j) => j.status === 'printing' && j.progress > 5, 'to be printing', 60_000);
    await first.close();

    const second = await app({ file, dataDir });
    const adopted = await untilStatus(second, job.id, 'completed', 120_000);
    assert.equal(adopted.error, null);
    assert.equal(adopted.material.used_basis, 'file_position');
    assert.ok((adopted.material.used?.['0'] ?? 0) > 0, 'its filament is charged');
    assert.equal((await getJob(second, job.id)).status, 'completed');
  });

  it('binary G-code: read from its blocks, refused for a serial printer, waits for a PrusaLink printer, prints there', async () => {
    const a = await app();
    const bg = bgcodeAround(moves(40), 'filament used [mm]=2\nfilament used [g]=0.006\nestimated printing time (normal mode)=1m 30s\n', 1024);
    const serial = await a.create({ name: 'usb', connection_url: 'sim://bg-serial?speed=max' });
    await a.untilStatus(serial.id, 'idle');
    const pinned = await uploadJob(a, bg, { printer_id: serial.id }, 'part.bgcode');
    assert.equal(pinned.status, 422, JSON.stringify(pinned.body));
    assert.equal(pinned.body.error.code, 'file_invalid');

    const created = await uploadJob(a, bg, {}, 'part.bgcode');
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const job = created.body.data as { id: string; file_id: string };
    const file = (await a.call('GET', `/v1/files/${job.file_id}`)).body;
    assert.equal(file.format, 'bgcode');
    assert.equal(file.estimated_duration, 90);
    await untilJob(a, job.id, (j) => j.waiting_reason === 'no_printer_for_format', 'to wait for a PrusaLink printer');

    const s = await startPrusaLinkStandIn({ apiKey: 'maker:secret', simulator: { speed: 20 } });
    cleanups.push(() => s.close());
    const pl = await a.create({ name: 'mk4', connection_url: `prusalink://127.0.0.1:${s.port}`, api_key: 'maker:secret' });
    const done = await untilStatus(a, job.id, 'completed', 60_000);
    assert.equal(done.printer_id, pl.id);
    assert.equal(done.material.used_basis, 'progress_percent');
    assert.ok([...s.files.keys()].some((n) => n.endsWith('.bgcode')), 'stored on the printer as .bgcode');
  });
});
