// The Bambu driver against the stand-in (Mosquitto TLS broker, vsftpd implicit FTPS, our virtual printer behind).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { p1sPlate, sliced3mf } from '../../helpers/threemf-builder.js';
import { gcodeText, rig, skipReason, until, type Rig } from './bambu-harness.js';

const names = (r: Rig): string[] => r.events.map((e) => e.name);

describe('Bambu driver on the stand-in (X1: full reports)', { skip: skipReason }, () => {
  let r: Rig;
  before(async () => {
    r = await rig();
  });
  after(async () => r?.close());

  it('identifies the printer and pins its certificate on first contact', async () => {
    const p = r.driver();
    await p.connect();
    const s = p.snapshot();
    assert.equal(s.status, 'idle');
    assert.equal(p.fingerprint, r.standIn.fingerprint);
    assert.match(s.firmware?.name ?? '', new RegExp(`Bambu Lab ${r.standIn.serial}.*firmware 01\\.08.*${r.standIn.fingerprint}`));
    assert.equal(typeof s.temperatures.hotend, 'number');
    // The Bambu block: identity, and the stand-in's four AMS trays as the printer labels them.
    assert.equal(s.bambu?.serial, r.standIn.serial);
    assert.equal(s.bambu?.model, 'Bambu Lab P1S');
    assert.equal(s.bambu?.certificate_fingerprint, r.standIn.fingerprint);
    assert.deepEqual(
      s.bambu?.ams.map((t) => [t.label, t.type, t.color, t.remain_percent, t.active]),
      [
        ['A1', 'PLA', '#FF0000', 90, false],
        ['A2', 'PLA', '#000000', 50, false],
        ['A3', 'PETG', '#FFFFFF', null, false],
        ['A4', 'PLA', '#00AA00', 10, false],
      ],
    );
    assert.deepEqual(s.bambu?.hms, []);
    await p.disconnect();
  });

  it('uploads over FTPS, starts with project_file and follows the print to its end', async () => {
    const p = r.driver();
    await p.connect();
    const path = await r.file('cube.gcode', gcodeText(60));
    const h = await p.startJob({ jobId: 'j1', filePath: path, remoteName: 'j1-abc.gcode' });
    assert.ok(existsSync(join(r.standIn.sdcard, 'j1-abc.gcode')), 'the file is on the SD card');
    const start = r.standIn.printer.requests.map((m) => m.print).find((x) => x?.command === 'project_file')!;
    assert.equal(start.url, 'file:///sdcard/j1-abc.gcode');
    assert.equal(start.param, 'Metadata/plate_1.gcode');
    assert.equal(start.use_ams, false);
    assert.deepEqual(await h.finished, { status: 'completed' });
    assert.ok(names(r).includes('job.started') && names(r).includes('job.completed'));
    await until('idle', () => p.snapshot().status === 'idle');
    assert.equal(p.snapshot().ready, false, 'the bed needs clearing');
    await p.disconnect();
  });

  it('prints a sliced 3MF: its plate, AMS trays matched by type and colour, filament charged per tray', async () => {
    const p = r.driver();
    await p.connect();
    p.markReady();
    const filaments = [
      { slot: 1, type: 'PLA', color: '#000000', used_g: 12, used_m: 4 },
      { slot: 3, type: 'PETG', color: '#FF6600', used_g: 3, used_m: 1 },
    ];
    const path = await r.file('bracket.gcode.3mf', sliced3mf([p1sPlate({ index: 2, filaments, gcode: gcodeText(400) })]));
    const console: string[] = [];
    p.onConsole((e) => console.push(e.text));
    const h = await p.startJob({ jobId: 'j3mf', filePath: path, remoteName: 'j3mf-abc.gcode', sliced: { plate: 2, gcode: 'Metadata/plate_2.gcode', filaments } });
    assert.ok(existsSync(join(r.standIn.sdcard, 'j3mf-abc.gcode.3mf')), 'uploaded under its 3MF name');
    const start = r.standIn.printer.requests.map((m) => m.print).find((x) => x?.command === 'project_file' && x.file === 'j3mf-abc.gcode.3mf')!;
    assert.equal(start.param, 'Metadata/plate_2.gcode');
    assert.equal(start.use_ams, true);
    assert.deepEqual(start.ams_mapping, [1, -1, 2], 'slot 1 black PLA on A2, slot 3 PETG on A3 (the only PETG)');
    assert.ok(console.includes('filament slot 1 (PLA #000000) prints from AMS tray A2'));
    assert.ok(console.includes('filament slot 3 (PETG #FF6600) prints from AMS tray A3: the colour differs (nearest of that type)'));
    await until('the tray in use', () => p.snapshot().bambu?.ams.find((t) => t.active)?.label === 'A2');
    await until('some progress', () => (p.snapshot().job?.progress ?? 0) > 0);
    const mid = p.snapshot().job!;
    assert.equal(mid.used_basis, 'slice_per_tray');
    assert.equal(mid.extruded_mm.length, 3);
    assert.ok(Math.abs(mid.extruded_mm[1]! - 4000 * (mid.progress / 100)) < 1e-6 && Math.abs(mid.extruded_mm[2]! - 1000 * (mid.progress / 100)) < 1e-6);
    assert.deepEqual(await h.finished, { status: 'completed' });
    assert.deepEqual(h.snapshot().extruded_mm, [0, 4000, 1000], 'the whole plate, charged per tray');
    await p.disconnect();
  });

  it('a plate whose filament no tray holds is refused before any upload, naming the trays', async () => {
    const p = r.driver();
    await p.connect();
    p.markReady();
    const filaments = [{ slot: 1, type: 'ABS', color: '#000000', used_g: 5, used_m: 2 }];
    const path = await r.file('abs.gcode.3mf', sliced3mf([p1sPlate({ filaments })]));
    await assert.rejects(
      p.startJob({ jobId: 'jabs', filePath: path, remoteName: 'jabs.gcode', sliced: { plate: 1, gcode: 'Metadata/plate_1.gcode', filaments } }),
      /cannot print this plate: no AMS tray holds ABS for filament slot 1 \(trays: A1 PLA #FF0000, A2 PLA #000000, A3 PETG #FFFFFF, A4 PLA #00AA00\)/,
    );
    assert.ok(!existsSync(join(r.standIn.sdcard, 'jabs.gcode.3mf')), 'nothing uploaded');
    assert.equal(p.snapshot().status, 'idle');
    await p.disconnect();
  });

  it('reports progress, pauses, resumes and cancels', async () => {
    const p = r.driver();
    await p.connect();
    p.markReady();
    const path = await r.file('long.gcode', gcodeText(1500));
    const h = await p.startJob({ jobId: 'j2', filePath: path, remoteName: 'j2.gcode' });
    await until('progress', () => (p.snapshot().job?.progress ?? 0) > 0);
    assert.ok(r.events.some((e) => e.name === 'job.progress' && e.payload.job_id === 'j2'));
    assert.ok((p.snapshot().job?.extruded_mm[0] ?? 0) > 0, 'filament from the file at the reported share');
    await p.pause();
    assert.equal(p.snapshot().status, 'paused');
    assert.equal(r.standIn.printer.host.state, 'PAUSED');
    await p.resume();
    assert.equal(p.snapshot().status, 'printing');
    assert.equal(await p.cancel(), 'cancelled');
    assert.deepEqual(await h.finished, { status: 'cancelled' });
    assert.ok(names(r).includes('job.paused') && names(r).includes('job.resumed') && names(r).includes('job.cancelled'));
    await until('idle', () => p.snapshot().status === 'idle');
    await p.disconnect();
  });

  it('a print started on the printer is an external job', async () => {
    const p = r.driver();
    await p.connect();
    r.standIn.printer.startExternalPrint('benchy.gcode.3mf', Buffer.from(gcodeText(200)));
    const ext = await until('external job', () => p.snapshot().external_job);
    assert.equal(ext.file_name, 'benchy');
    await until('external end', () => r.events.find((e) => e.name === 'printer.external_job_ended'));
    const end = r.events.find((e) => e.name === 'printer.external_job_ended')!.payload;
    assert.equal(end.status, 'completed');
    assert.equal(p.snapshot().external_job, null);
    await p.disconnect();
  });

  it('our restart mid-print adopts the job and does not stop the print', async () => {
    const p1 = r.driver();
    await p1.connect();
    p1.markReady();
    const path = await r.file('adopt.gcode', gcodeText(600));
    await p1.startJob({ jobId: 'j3', filePath: path, remoteName: 'j3.gcode' });
    await until('progress', () => (p1.snapshot().job?.progress ?? 0) > 0);
    await p1.disconnect();
    assert.equal(r.standIn.printer.host.state, 'PRINTING', 'our disconnect leaves the print running');
    const p2 = r.driver();
    await p2.connect();
    const h = await p2.adoptJob({ jobId: 'j3', filePath: path, remoteName: 'j3.gcode', startedAt: Date.now() - 1000 });
    assert.ok(h, 'adopted');
    assert.equal(p2.snapshot().external_job, null);
    assert.deepEqual(await h.finished, { status: 'completed' });
    await p2.disconnect();
  });

  it('the broker dropping us mid-print: reconnected, the print followed to its end', async () => {
    const p = r.driver();
    await p.connect();
    p.markReady();
    const path = await r.file('drop.gcode', gcodeText(900));
    const h = await p.startJob({ jobId: 'j4', filePath: path, remoteName: 'j4.gcode' });
    await until('progress', () => (p.snapshot().job?.progress ?? 0) > 0);
    await r.standIn.dropBroker(300);
    await until('back printing', () => p.snapshot().status === 'printing' && r.events.some((e) => e.name === 'printer.offline'));
    assert.deepEqual(await h.finished, { status: 'completed' });
    assert.ok(!r.events.some((e) => e.name === 'job.failed' && e.payload.job_id === 'j4'));
    await p.disconnect();
  });

  it('a fatal HMS error is status error with its code in words; cleared, the printer is idle again', async () => {
    const p = r.driver();
    await p.connect();
    r.standIn.printer.hms = [{ attr: 0x0c008000, code: 0x00010004 }];
    await until('error', () => p.snapshot().status === 'error');
    assert.equal(p.snapshot().offline_reason, 'firmware_error');
    assert.match(p.snapshot().error?.message ?? '', /fatal camera error HMS_0C00_8000_0001_0004/);
    assert.deepEqual(
      p.snapshot().bambu?.hms.map((h) => [h.code, h.severity, h.module, h.url]),
      [['HMS_0C00_8000_0001_0004', 'fatal', 'camera', 'https://wiki.bambulab.com/en/hms/home']],
    );
    r.standIn.printer.hms = [];
    await until('idle', () => p.snapshot().status === 'idle');
    await p.disconnect();
  });

  it('console lines go as gcode_line', async () => {
    const p = r.driver();
    await p.connect();
    assert.deepEqual(await p.sendCommand('M104 S0 ; off'), { ok: true, lines: [] });
    const sent = r.standIn.printer.requests.map((m) => m.print).filter((x) => x?.command === 'gcode_line');
    assert.equal(sent.at(-1)?.param, 'M104 S0\n');
    await p.disconnect();
  });

  it('a wrong access code is auth_failed', async () => {
    const p = r.driver({ apiKey: 'wrong123' });
    await assert.rejects(p.connect(), /offline/);
    assert.equal(p.snapshot().offline_reason, 'auth_failed');
    await p.disconnect();
  });

  it('a pinned fingerprint that does not match is tls_error', async () => {
    const p = r.driver({ url: `${r.standIn.url}&fingerprint=${'ab'.repeat(32)}` });
    await assert.rejects(p.connect(), /offline/);
    assert.equal(p.snapshot().offline_reason, 'tls_error');
    await p.disconnect();
  });

  it('a certificate that changed after first contact is tls_error', async () => {
    const p = r.driver();
    await p.connect();
    const pinned = p.fingerprint;
    await r.standIn.changeCertificate();
    await until('tls_error', () => p.snapshot().offline_reason === 'tls_error');
    assert.equal(p.fingerprint, pinned, 'the pin is kept, never replaced silently');
    // The owner is shown what the printer presents now, to re-pin once they trust it.
    assert.equal(p.snapshot().bambu?.presented_fingerprint, r.standIn.fingerprint);
    assert.notEqual(r.standIn.fingerprint, pinned);
    assert.equal(p.snapshot().bambu?.certificate_fingerprint, pinned);
    await p.disconnect();
  });
});

describe('Bambu driver on a P1/A1 stand-in (partial reports)', { skip: skipReason }, () => {
  let r: Rig;
  before(async () => {
    r = await rig({ partial: true });
  });
  after(async () => r?.close());

  it('merges partial reports: temperatures, progress and the end of the print', async () => {
    const p = r.driver();
    await p.connect();
    const path = await r.file('p1.gcode', gcodeText(300));
    const h = await p.startJob({ jobId: 'j5', filePath: path, remoteName: 'j5.gcode' });
    await until('progress', () => (p.snapshot().job?.progress ?? 0) > 0);
    assert.equal(typeof p.snapshot().temperatures.bed, 'number', 'a field a partial report left out is still known');
    assert.deepEqual(await h.finished, { status: 'completed' });
    await p.disconnect();
  });

  it('asks for the full state again after a quiet spell (an idle P1 sends nothing)', async () => {
    const p = r.driver({ gapMs: 400 });
    await p.connect();
    const pushalls = (): number => r.standIn.printer.requests.filter((m) => m.pushing?.command === 'pushall').length;
    const first = pushalls();
    await until('a second pushall', () => pushalls() > first, 10_000);
    assert.equal(p.snapshot().status, 'idle');
    await p.disconnect();
  });
});
