// A Bambu printer in the queue with nothing recorded on it: no model set and no spools. The scheduler reads the model
// it reports and its AMS trays: a slice for that model whose filament a tray holds prints (mapped to that tray, with the
// job's print options), one whose filament no tray holds waits for material, one sliced for another model waits for
// its model.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bambuStandInUnavailable, startBambuStandIn, type BambuStandIn } from '../../src/simulator/bambu/bambu-standin.js';
import { p1sPlate, sliced3mf } from '../helpers/threemf-builder.js';
import { setOrg, untilJob, untilStatus, uploadJob } from '../jobs/jobs-harness.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';

const plate = (type: string, color: string, model = 'C12'): Buffer =>
  sliced3mf([p1sPlate({ model, filaments: [{ slot: 1, type, color, used_g: 1, used_m: 0.3 }], gcode: 'G28\nG1 X10 Y10 E0.5 F1200\nG1 X20 Y10 E0.5\n' })]);

describe('a Bambu printer known only by what it reports', { skip: bambuStandInUnavailable() ?? false }, () => {
  let app: PrintersApp;
  let bambu: BambuStandIn;
  before(async () => {
    bambu = await startBambuStandIn({ simulator: { speed: 20 }, reportMs: 200 });
    app = await startPrintersApp();
  });
  after(async () => {
    await app?.close();
    await bambu?.close();
  });

  it('prints what its trays hold, waits with the reason for what they do not or for another model', { timeout: 120_000 }, async () => {
    const printer = await app.create({ name: 'p1s', connection_url: bambu.url, api_key: bambu.accessCode });
    await app.untilStatus(printer.id, 'idle', 30_000);
    const record = await app.get(printer.id);
    assert.equal(record.model, null, 'nothing set by the owner');
    assert.equal(record.bambu?.model, 'Bambu Lab P1S');
    assert.deepEqual(record.materials, []);

    const upload = async (file: Buffer, name: string, fields: Record<string, string> = {}): Promise<string> => {
      const res = await uploadJob(app, file, fields, name);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data.id;
    };
    const abs = await upload(plate('ABS', '#000000'), 'abs.gcode.3mf');
    const a1 = await upload(plate('PLA', '#000000', 'N2S'), 'a1.gcode.3mf');
    await setOrg(app, { auto_start: true });
    const petg = await upload(plate('PETG', '#FFFFFF'), 'petg.gcode.3mf', { print_options: '{"timelapse":true,"bed_levelling":false}' });

    await untilStatus(app, petg, 'completed', 60_000);
    const start = bambu.printer.requests.map((m) => m.print).find((x) => x?.command === 'project_file')!;
    assert.equal(start.use_ams, true);
    assert.deepEqual(start.ams_mapping, [2], 'white PETG is on tray A3');
    // The job's print options go with the start; the one it did not set keeps Bambu Studio's default.
    assert.deepEqual([start.timelapse, start.bed_levelling, start.bed_leveling, start.flow_cali], [true, false, false, false]);
    const absJob = await untilJob(app, abs, (j) => j.waiting_reason !== null, 'to say why it waits');
    assert.equal(absJob.status, 'queued');
    assert.equal(absJob.waiting_reason, 'no_printer_with_material');
    const a1Job = await untilJob(app, a1, (j) => j.waiting_reason !== null, 'to say why it waits');
    assert.equal(a1Job.waiting_reason, 'printer_model_mismatch');
  });

  it('the certificate pinned on first contact is kept in the URL: a new link refuses a changed certificate', { timeout: 60_000 }, async () => {
    // One printer per link: the first test's printer goes (its URL, pinned by now, names the same printer).
    const list = await app.call('GET', '/v1/printers');
    for (const p of list.body.data as Array<{ id: string }>) assert.equal((await app.call('DELETE', `/v1/printers/${p.id}`)).status, 204);
    const printer = await app.create({ name: 'pinned', connection_url: bambu.url, api_key: bambu.accessCode });
    await app.untilStatus(printer.id, 'idle', 30_000);
    await app.until('the pin in the stored URL', async () => (await app.get(printer.id)).connection_url.includes(`fingerprint=${bambu.fingerprint}`), 10_000);
    const record = await app.get(printer.id);
    assert.equal(record.connection_url, `${bambu.url}&fingerprint=${bambu.fingerprint}`);
    assert.equal(record.bambu?.certificate_fingerprint, bambu.fingerprint);
    // Another device answers at that address now (as after a printer's reset): not trusted again on first contact.
    await bambu.changeCertificate();
    // Setting the access code again opens a new link from the stored URL: only a kept pin can refuse the new certificate.
    const res = await app.call('PATCH', `/v1/printers/${printer.id}`, { api_key: bambu.accessCode });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await app.until('tls_error', async () => (await app.get(printer.id)).offline_reason === 'tls_error', 30_000);
  });
});

