// A sliced 3MF through the API: uploaded with POST /v1/jobs, its model, plates and filaments on GET /v1/files/:id,
// refused when pinned to a printer that streams G-code, and the job waiting in words while no Bambu printer can take it.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { makePng } from './gcode-fixtures.js';
import { p1sPlate, sliced3mf } from '../helpers/threemf-builder.js';
import { untilJob, uploadJob } from '../jobs/jobs-harness.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const P1S_PLATE = sliced3mf([p1sPlate({ png: makePng(256, 256) })]);

describe('sliced 3MF through the API', () => {
  it('is stored with its metadata, refused for a USB printer, and waits with a reason while no Bambu printer of its model exists', async () => {
    const a: PrintersApp = await startPrintersApp();
    cleanups.push(() => a.close());
    const usb = await a.create({ name: 'usb', connection_url: 'sim://tmf-serial?speed=max' });
    await a.untilStatus(usb.id, 'idle');

    const pinned = await uploadJob(a, P1S_PLATE, { printer_id: usb.id }, 'bracket.gcode.3mf');
    assert.equal(pinned.status, 422, JSON.stringify(pinned.body));
    assert.equal(pinned.body.error.code, 'file_invalid');
    assert.match(pinned.body.error.message, /cannot print a sliced 3MF.*only Bambu printers do/);

    const created = await uploadJob(a, P1S_PLATE, {}, 'bracket.gcode.3mf');
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const job = created.body.data as { id: string; file_id: string; estimated_duration: number | null };
    const res = await a.call('GET', `/v1/files/${job.file_id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const file = res.body;
    assert.equal(file.format, '3mf');
    assert.equal(file.original_name, 'bracket.gcode.3mf');
    assert.equal(file.printer_model_id, 'C12');
    assert.equal(file.printer_model, 'P1S');
    assert.equal(file.plate_count, 1);
    assert.equal(file.estimated_duration, 5075);
    assert.equal(file.filament_used_g, 15.88);
    assert.deepEqual(
      file.plates[0].filaments.map((f: { slot: number; color: string; used_g: number }) => [f.slot, f.color, f.used_g]),
      [
        [1, '#FFFFFF', 12.5],
        [3, '#FF6600', 3.38],
      ],
    );
    assert.equal(file.thumbnail_url, `/v1/files/${file.id}/thumbnail`);

    const waiting = await untilJob(a, job.id, (j) => j.waiting_reason === 'no_printer_for_format', 'to wait for a Bambu printer');
    assert.equal(waiting.status, 'queued', 'the idle USB printer never takes it');
    assert.match(waiting.waiting_detail ?? '', /sliced 3MF \(\.gcode\.3mf\), which only Bambu printers print/);

    const listed = await a.call('GET', '/v1/files?format=3mf');
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.data.map((f: { id: string }) => f.id),
      [file.id],
    );
  });

  it('an unsliced 3MF project is refused with the reason', async () => {
    const a: PrintersApp = await startPrintersApp();
    cleanups.push(() => a.close());
    const project = sliced3mf([]);
    const res = await uploadJob(a, project, {}, 'bracket.3mf');
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'file_invalid');
    assert.match(res.body.error.message, /3MF project that is not sliced/);
  });
});
