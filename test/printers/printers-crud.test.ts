// Printers CRUD over HTTP: create/read/update/delete, validation errors naming the field, secrets sealed at rest, scopes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SECRET_KEY_FILE } from '../../src/printers/secret-box.js';
import { mintTestKey } from '../helpers/test-app.js';
import { fastSim, startPrintersApp, type PrintersApp } from './printers-api-harness.js';
import { dbRow, dbRows } from '../helpers/test-database.js';

describe('printers CRUD', () => {
  let app: PrintersApp;
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'pf-printers-crud-'));
    app = await startPrintersApp({ dataDir });
  });
  after(async () => {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates a printer with every field, returns the record (no api_key) and reads it back', async () => {
    const events = app.record('printer.updated');
    const created = await app.create({
      name: '  MK4 left ',
      connection_url: fastSim('crud1'),
      api_key: 'hunter2-printer-secret',
      model: 'Prusa MK4',
      group: 'bay-1',
      tags: ['pla', 'fast'],
      material_type: 'PLA',
      material_color: 'black',
      nozzle_diameter: 0.4,
      heatup_watts: 250,
      power_watts: 120,
      clear_bed_gcode: 'G28 ; home\nG1 X0 Y200 F3000\n',
      clear_bed_temperature: 30,
    });
    assert.match(created.id, /^prt_[A-Za-z0-9]{20}$/);
    assert.equal(created.name, 'MK4 left');
    assert.equal(created.has_api_key, true);
    assert.equal('api_key' in created, false);
    assert.equal(created.group, 'bay-1');
    assert.deepEqual(created.tags, ['pla', 'fast']);
    assert.equal(created.nozzle_diameter, 0.4);
    assert.equal(created.clear_bed_gcode, 'G28 ; home\nG1 X0 Y200 F3000\n');
    assert.equal(created.ready, true);
    assert.equal(created.status, 'offline', 'a new printer is still connecting');
    assert.equal(created.connection_url, 'sim://crud1?speed=max');
    assert.equal(created.created_at, created.updated_at);
    assert.deepEqual(events, [{ name: 'printer.updated', printer_id: created.id, reason: 'created' }]);
    const got = await app.get(created.id);
    assert.equal(got.name, 'MK4 left');
    assert.equal(JSON.stringify(got).includes('hunter2'), false);
  });

  it('stores api_key sealed (AES-GCM under the data directory key, 0600) and never returns it', async () => {
    const p = await app.create({ name: 'sealed', connection_url: fastSim('crud-seal'), api_key: 'very-secret-key-123' });
    const raw = (await dbRow(app.t.handle, 'SELECT * FROM printers WHERE id = ?', p.id))!;
    assert.equal(JSON.stringify(raw).includes('very-secret-key-123'), false, 'no plaintext in the row');
    assert.match(String(raw.api_key_sealed), /^v1:[A-Za-z0-9+/=]+$/);
    assert.equal(await app.t.deps.printers.readApiKey(p.id), 'very-secret-key-123');
    const mode = (await stat(path.join(dataDir, SECRET_KEY_FILE))).mode & 0o777;
    assert.equal(mode, 0o600);
    // Sealed for this printer: copied onto another row it does not open.
    const other = await app.create({ name: 'other', connection_url: fastSim('crud-seal2') });
    await dbRows(app.t.handle, 'UPDATE printers SET api_key_sealed = ? WHERE id = ?', raw.api_key_sealed, other.id);
    await assert.rejects(app.t.deps.printers.readApiKey(other.id));
    // PATCH null removes it; a list never shows it either.
    const cleared = await app.call('PATCH', `/v1/printers/${p.id}`, { api_key: null });
    assert.equal(cleared.body.has_api_key, false);
    const list = await app.call('GET', '/v1/printers');
    assert.equal(JSON.stringify(list.body).includes('very-secret'), false);
  });

  it('PATCH changes fields, null clears optional ones, updated_at moves; unknown and read-only fields are 400', async () => {
    const p = await app.create({ name: 'patchme', connection_url: fastSim('crud-patch'), model: 'Ender 3', group: 'g1' });
    const events = app.record('printer.updated');
    app.t.clock.advance(60_000);
    const res = await app.call('PATCH', `/v1/printers/${p.id}`, { name: 'renamed', model: null, material_type: 'PETG', tags: ['a'] });
    assert.equal(res.status, 200);
    assert.equal(res.body.name, 'renamed');
    assert.equal(res.body.model, null);
    assert.equal(res.body.group, 'g1');
    assert.equal(res.body.material_type, 'PETG');
    assert.deepEqual(res.body.tags, ['a']);
    assert.notEqual(res.body.updated_at, p.updated_at);
    assert.equal(res.body.created_at, p.created_at);
    assert.equal(events.length, 1);
    assert.match(events[0]!.reason ?? '', /material_type.*\(scheduling\)/);

    const readOnly = await app.call('PATCH', `/v1/printers/${p.id}`, { status: 'idle' });
    assert.equal(readOnly.status, 400);
    assert.equal(readOnly.body.error.message, 'unknown field "status"');
    const empty = await app.call('PATCH', `/v1/printers/${p.id}`, {});
    assert.equal(empty.status, 400);
    assert.match(empty.body.error.message, /at least 1 field/);
    const missing = await app.call('PATCH', '/v1/printers/prt_doesnotexist', { name: 'x' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'resource_not_found');
  });

  it('refuses bad input with 400 naming the field and the rule', async () => {
    const cases: Array<[Record<string, unknown> | string, RegExp]> = [
      [{ connection_url: fastSim('x') }, /^name: is required$/],
      [{ name: 'x' }, /^connection_url: is required$/],
      [{ name: 'x', connection_url: 'http://printer.local' }, /^connection_url: invalid connection URL "http:\/\/printer.local": unknown scheme "http:"/],
      [{ name: 'x', connection_url: 'tcp://host' }, /^connection_url: .*missing port/],
      [{ name: 'x', connection_url: 'serial://dev/ttyACM0' }, /^connection_url: .*three slashes/],
      [{ name: 'x', connection_url: 'serial:///dev/ttyACM0?baud=12345' }, /^connection_url: .*not a standard rate/],
      [{ name: 'x', connection_url: 'serial:///dev/ttyACM0?profile=nonsense' }, /^connection_url: unknown firmware profile 'nonsense'/],
      [{ name: 'x', connection_url: 'sim://a?warp=9' }, /^connection_url: invalid simulator option: .*warp/],
      [{ name: 'x', connection_url: 'sim://a\u0007' }, /^connection_url: must not contain control characters \(U\+0007 at character 8\)$/],
      [{ name: 'bad\u0000name', connection_url: fastSim('y') }, /^name: must not contain control characters/],
      [{ name: '   ', connection_url: fastSim('y') }, /^name: must not be blank$/],
      [{ name: 'x'.repeat(101), connection_url: fastSim('y') }, /^name: must be at most 100 characters long$/],
      [{ name: 5, connection_url: fastSim('y') }, /^name: must be a string, not a number$/],
      [{ name: 'x', connection_url: fastSim('y'), tags: 'pla' }, /^tags: must be an array, not an? [a-z]+$/],
      [{ name: 'x', connection_url: fastSim('y'), tags: ['a', 'a'] }, /^tags: must not contain duplicates$/],
      [{ name: 'x', connection_url: fastSim('y'), tags: ['ok', 'tab\there'] }, /^tags\[1\]: must not contain control characters/],
      [{ name: 'x', connection_url: fastSim('y'), nozzle_diameter: 5 }, /^nozzle_diameter: must be <= 2$/],
      [{ name: 'x', connection_url: fastSim('y'), nozzle_diameter: '0.4' }, /^nozzle_diameter: must be a number, not an? [a-z]+$/],
      [{ name: 'x', connection_url: fastSim('y'), colour: 'red' }, /^unknown field "colour"$/],
      [{ name: 'x', connection_url: fastSim('y'), clear_bed_gcode: 'G28\nG1 X*5' }, /^clear_bed_gcode line 2: '\*' in the command/],
      [{ name: 'x', connection_url: fastSim('y'), clear_bed_gcode: '; only a comment' }, /^clear_bed_gcode: holds no command/],
      ['{"name": "x", ', /JSON|body/i],
    ];
    for (const [body, message] of cases) {
      const res = await app.call('POST', '/v1/printers', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'invalid_request');
      assert.match(res.body.error.message, message, JSON.stringify(body));
    }
    const count = (await dbRow<{ n: number }>(app.t.handle, "SELECT count(*) AS n FROM printers WHERE name = 'x'"))!;
    assert.equal(count.n, 0, 'nothing was stored');
  });

  it('a connection_url already in use is 409, also by PATCH', async () => {
    const a = await app.create({ name: 'a', connection_url: fastSim('crud-dup') });
    const dup = await app.call('POST', '/v1/printers', { name: 'b', connection_url: ` ${fastSim('crud-dup')} ` });
    assert.equal(dup.status, 409);
    assert.match(dup.body.error.message, new RegExp(`connection_url: printer ${a.id} already uses`));
    const b = await app.create({ name: 'b', connection_url: fastSim('crud-dup2') });
    const patch = await app.call('PATCH', `/v1/printers/${b.id}`, { connection_url: fastSim('crud-dup') });
    assert.equal(patch.status, 409);
    // Two creates racing for one URL (started in one turn, so both pass the lookup): the UNIQUE index lets one win
    // and the other gets the same 409, never a 500.
    const race = await Promise.allSettled(
      [1, 2].map((n) => app.t.deps.printers.create({ name: `racer ${n}`, connection_url: fastSim('crud-race') })),
    );
    assert.deepEqual(race.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const lost = race.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.equal(lost.reason.status, 409);
    // Usually both pass the lookup and the index refuses one; on a slow machine the second lookup may already see the
    // first printer and name it. Either way the same 409 with the URL.
    assert.match(lost.reason.message, /^connection_url: (another printer|printer prt_[A-Za-z0-9]+) already uses sim:\/\/crud-race/);
    // One TCP bridge, however the host is spelled.
    await app.create({ name: 'bridge', connection_url: 'tcp://localhost:1' });
    const bridge = await app.call('POST', '/v1/printers', { name: 'bridge 2', connection_url: 'tcp://LOCALHOST:1?' });
    assert.equal(bridge.status, 409, JSON.stringify(bridge.body));
  });

  it('DELETE removes the printer and closes its session; then 404', async () => {
    const p = await app.create({ name: 'gone', connection_url: fastSim('crud-del') });
    assert.ok(app.t.deps.sessions.has(p.id));
    const del = await app.call('DELETE', `/v1/printers/${p.id}`);
    assert.equal(del.status, 204);
    assert.equal(del.body, null);
    assert.equal(app.t.deps.sessions.has(p.id), false);
    assert.equal((await app.call('GET', `/v1/printers/${p.id}`)).status, 404);
    assert.equal((await app.call('DELETE', `/v1/printers/${p.id}`)).status, 404);
  });

  it('printers:read may read but not write; printers:write may write but not read', async () => {
    const reader = await mintTestKey(app.t, ['printers:read'], 'reader');
    const writer = await mintTestKey(app.t, ['printers:write'], 'writer');
    const p = await app.create({ name: 'scoped', connection_url: fastSim('crud-scope') });
    assert.equal((await app.call('GET', '/v1/printers', undefined, reader)).status, 200);
    assert.equal((await app.call('GET', `/v1/printers/${p.id}`, undefined, reader)).status, 200);
    assert.equal((await app.call('GET', '/v1/printers/discover', undefined, reader)).status, 200);
    for (const [method, path, body] of [
      ['POST', '/v1/printers', { name: 'n', connection_url: fastSim('crud-scope2') }],
      ['PATCH', `/v1/printers/${p.id}`, { name: 'n' }],
      ['DELETE', `/v1/printers/${p.id}`, undefined],
      ['POST', `/v1/printers/${p.id}/actions`, { action: 'ready' }],
      ['POST', `/v1/printers/${p.id}/commands`, { commands: ['M105'] }],
    ] as const) {
      const res = await app.call(method, path, body, reader);
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.error.message, 'missing scope: printers:write');
    }
    const denied = await app.call('GET', '/v1/printers', undefined, writer);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.message, 'missing scope: printers:read');
    assert.equal((await app.call('PATCH', `/v1/printers/${p.id}`, { name: 'by writer' }, writer)).status, 200);
    const star = await mintTestKey(app.t, ['printers:*'], 'star');
    assert.equal((await app.call('GET', `/v1/printers/${p.id}`, undefined, star)).body.name, 'by writer');
  });

  it('Idempotency-Key: the same create twice makes one printer', async () => {
    const send = () =>
      app.t.request('/v1/printers', {
        method: 'POST',
        headers: { Authorization: `Bearer ${app.admin}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'printer-once' },
        body: JSON.stringify({ name: 'once', connection_url: fastSim('crud-idem') }),
      });
    const first = await send();
    const second = await send();
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(((await first.json()) as { id: string }).id, ((await second.json()) as { id: string }).id);
    const n = (await dbRow<{ n: number }>(app.t.handle, "SELECT count(*) AS n FROM printers WHERE name = 'once'"))!;
    assert.equal(n.n, 1);
  });
});
