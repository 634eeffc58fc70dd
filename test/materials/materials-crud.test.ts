// /v1/materials over HTTP on the real app: create with defaults, validation errors, list filters, load/unload swap,
// weigh-in, archive, scopes, and material.low / material.empty once per crossing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintTestKey } from '../helpers/test-app.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { createSpool, getSpool, materialEvents, patchSpool } from './materials-harness.js';

describe('materials API', () => {
  let app: PrintersApp;
  before(async () => {
    app = await startPrintersApp();
  });
  after(() => app.close());

  it('creates a spool with the defaults: remaining = spool_weight, diameter 1.75, density by type, tool 0, active', async () => {
    const m = await createSpool(app, { type: 'PETG', color: 'Orange', brand: 'Prusament', spool_weight: 1000, cost_per_kg: 25 });
    assert.match(m.id, /^mat_/);
    assert.equal(m.remaining_weight, 1000);
    assert.equal(m.diameter, 1.75);
    assert.equal(m.density, 1.27);
    assert.equal(m.tool, 0);
    assert.equal(m.status, 'active');
    assert.equal(m.printer_id, null);
    assert.deepEqual(await getSpool(app, m.id), m);
    assert.equal((await createSpool(app, { type: 'pla+', spool_weight: 750 })).density, 1.24, 'a known prefix gives the density');
    assert.equal((await createSpool(app, { type: 'PVB', spool_weight: 500, density: 1.08 })).density, 1.08);
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ spool_weight: 1000 }, /type/],
      [{ type: 'PLA', spool_weight: 0 }, /spool_weight/],
      [{ type: 'PLA', spool_weight: 1000, remaining_weight: -1 }, /remaining_weight/],
      [{ type: 'PLA', spool_weight: 1000, colour: 'red' }, /colour/],
      [{ type: 'PLA', spool_weight: 1000, tool: 1.5 }, /tool/],
      [{ type: 'PLA', spool_weight: 1000, printer_id: 'nope' }, /printer_id/],
      [{ type: 'PVB', spool_weight: 1000 }, /density/],
      [{ type: 'PLA\u0007', spool_weight: 1000 }, /type/],
    ];
    for (const [body, field] of cases) {
      const res = await app.call('POST', '/v1/materials', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'invalid_request');
      assert.match(res.body.error.message, field, JSON.stringify(res.body));
    }
    const unknownPrinter = await app.call('POST', '/v1/materials', { type: 'PLA', spool_weight: 1000, printer_id: 'prt_missing' });
    assert.equal(unknownPrinter.status, 400);
    assert.equal(unknownPrinter.body.error.code, 'invalid_printer');
    const m = await createSpool(app, { type: 'PLA', spool_weight: 1000 });
    assert.equal((await app.call('PATCH', `/v1/materials/${m.id}`, {})).status, 400);
    assert.equal((await app.call('PATCH', `/v1/materials/${m.id}`, { status: 'empty' })).status, 400);
    assert.equal((await app.call('GET', '/v1/materials/mat_nothere')).status, 404);
    assert.equal((await app.call('GET', '/v1/materials?low_stock=maybe')).status, 400);
  });

  it('loading a spool on a printer tool unloads the one that was there; other tools keep theirs', async () => {
    const printer = await app.create({ name: 'swap', connection_url: 'sim://swap?speed=max' });
    const a = await createSpool(app, { type: 'PLA', color: 'black', spool_weight: 1000, printer_id: printer.id });
    const t1 = await createSpool(app, { type: 'PLA', color: 'white', spool_weight: 1000, printer_id: printer.id, tool: 1 });
    const b = await createSpool(app, { type: 'PETG', spool_weight: 1000 });
    const loaded = await patchSpool(app, b.id, { printer_id: printer.id });
    assert.equal(loaded.printer_id, printer.id);
    assert.equal((await getSpool(app, a.id)).printer_id, null, 'the old spool came off');
    assert.equal((await getSpool(app, t1.id)).printer_id, printer.id, 'tool 1 keeps its spool');
    const list = await app.call('GET', `/v1/materials?printer_id=${printer.id}`);
    assert.deepEqual(list.body.data.map((m: { id: string }) => m.id).sort(), [t1.id, b.id].sort());
    const shown = (await app.get(printer.id)).materials;
    assert.deepEqual(shown.map((m) => [m.tool, m.id, m.type]), [[0, b.id, 'PETG'], [1, t1.id, 'PLA']], 'the printer shows its spools by tool');
    assert.equal((await patchSpool(app, b.id, { printer_id: null })).printer_id, null);
    assert.equal((await app.call('DELETE', `/v1/printers/${printer.id}`)).status, 204);
    assert.equal((await getSpool(app, t1.id)).printer_id, null, 'deleting the printer unloads its spools');
  });

  it('weigh-in: measured_gross_weight minus empty_spool_weight becomes remaining_weight', async () => {
    const m = await createSpool(app, { type: 'PLA', spool_weight: 1000, remaining_weight: 400 });
    const noTare = await app.call('PATCH', `/v1/materials/${m.id}`, { measured_gross_weight: 500 });
    assert.equal(noTare.status, 400);
    assert.match(noTare.body.error.message, /empty_spool_weight/);
    assert.equal((await patchSpool(app, m.id, { measured_gross_weight: 512.5, empty_spool_weight: 250 })).remaining_weight, 262.5);
    assert.equal((await patchSpool(app, m.id, { measured_gross_weight: 300 })).remaining_weight, 50, 'the stored tare is used');
    const below = await app.call('PATCH', `/v1/materials/${m.id}`, { measured_gross_weight: 100 });
    assert.equal(below.status, 400);
    assert.equal((await app.call('PATCH', `/v1/materials/${m.id}`, { measured_gross_weight: 300, remaining_weight: 3 })).status, 400);
  });

  it('material.low fires once when crossing the threshold downward, again only after a refill; material.empty at 0', async () => {
    const m = await createSpool(app, { type: 'PLA', spool_weight: 1000, reorder_threshold: 100 });
    await patchSpool(app, m.id, { remaining_weight: 150 });
    assert.deepEqual(await materialEvents(app, m.id), []);
    await patchSpool(app, m.id, { remaining_weight: 90 });
    await patchSpool(app, m.id, { remaining_weight: 80 });
    assert.deepEqual(await materialEvents(app, m.id), ['material.low']);
    const low = await app.call('GET', '/v1/materials?low_stock=true');
    assert.ok(low.body.data.some((x: { id: string }) => x.id === m.id));
    await patchSpool(app, m.id, { remaining_weight: 500 });
    await patchSpool(app, m.id, { remaining_weight: 60 });
    assert.deepEqual(await materialEvents(app, m.id), ['material.low', 'material.low']);
    const empty = await patchSpool(app, m.id, { remaining_weight: 0 });
    assert.equal(empty.status, 'empty');
    assert.deepEqual(await materialEvents(app, m.id), ['material.low', 'material.low', 'material.empty']);
    assert.equal((await patchSpool(app, m.id, { remaining_weight: 0 })).status, 'empty');
    assert.equal((await materialEvents(app, m.id)).length, 3, 'no second empty');
    assert.equal((await patchSpool(app, m.id, { remaining_weight: 1000 })).status, 'active', 'a refill makes it active');
  });

  it('DELETE archives and unloads; archived spools can be listed by status and brought back', async () => {
    const printer = await app.create({ name: 'arch', connection_url: 'sim://arch?speed=max' });
    const m = await createSpool(app, { type: 'ABS', spool_weight: 1000, printer_id: printer.id });
    assert.equal((await app.call('DELETE', `/v1/materials/${m.id}`)).status, 204);
    const archived = await getSpool(app, m.id);
    assert.equal(archived.status, 'archived');
    assert.equal(archived.printer_id, null);
    assert.equal((await app.call('PATCH', `/v1/materials/${m.id}`, { printer_id: printer.id })).status, 409);
    const list = await app.call('GET', '/v1/materials?status=archived&type=abs');
    assert.deepEqual(list.body.data.map((x: { id: string }) => x.id), [m.id]);
    assert.equal((await patchSpool(app, m.id, { status: 'active' })).status, 'active');
    assert.equal((await app.call('DELETE', '/v1/materials/mat_nothere')).status, 404);
  });

  it('needs materials:read to read and materials:write to change', async () => {
    const reader = await mintTestKey(app.t, ['materials:read'], 'reader');
    assert.equal((await app.call('GET', '/v1/materials', undefined, reader)).status, 200);
    const denied = await app.call('POST', '/v1/materials', { type: 'PLA', spool_weight: 1000 }, reader);
    assert.equal(denied.status, 403);
    assert.match(denied.body.error.message, /materials:write/);
  });
});
