// Live printer state over HTTP (sim:// printers): status, firmware, temperatures, reconnect on a new URL, actions and console commands while idle or offline.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fastSim, startPrintersApp, type PrintersApp } from './printers-api-harness.js';
import { dbRow, dbRows } from '../helpers/test-database.js';

describe('printers on live sessions', () => {
  let app: PrintersApp;
  before(async () => {
    app = await startPrintersApp();
  });
  after(async () => {
    await app.close();
  });

  const action = (id: string, name: string) => app.call('POST', `/v1/printers/${id}/actions`, { action: name });
  const commands = (id: string, list: unknown) => app.call('POST', `/v1/printers/${id}/commands`, { commands: list });

  it('a new printer connects by itself: connecting, then idle with firmware and temperatures', async () => {
    const created = await app.create({ name: 'live', connection_url: fastSim('live1') });
    assert.equal(created.status, 'offline');
    assert.equal(created.connecting, true);
    assert.equal(created.firmware, null);
    assert.deepEqual(created.temperatures, { hotend: null, bed: null, hotend_target: null, bed_target: null });
    const online = await app.untilStatus(created.id, 'idle');
    assert.equal(online.connecting, false);
    assert.match(online.firmware ?? '', /Marlin/);
    assert.equal(online.error, null);
    assert.equal(online.current_job, null);
    assert.equal(online.progress, null);
    // The firmware name is kept in the row, for when the printer is offline.
    await app.until('firmware stored', async () => {
      const row = (await dbRow<{ firmware: string | null }>(app.t.handle, 'SELECT firmware FROM printers WHERE id = ?', created.id))!;
      return /Marlin/.test(row.firmware ?? '');
    });
  });

  it('console commands while idle: replies come back in order; temperatures carry their targets', async () => {
    const p = await app.create({ name: 'console', connection_url: fastSim('live-console') });
    await app.untilStatus(p.id, 'idle');
    const res = await commands(p.id, ['M104 S200', 'M140 S60', 'M105', 'M115']);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.printer_id, p.id);
    assert.deepEqual(res.body.results.map((r: { command: string }) => r.command), ['M104 S200', 'M140 S60', 'M105', 'M115']);
    assert.ok(res.body.results.every((r: { ok: boolean }) => r.ok));
    assert.ok(res.body.results[3].response.some((l: string) => /FIRMWARE_NAME/.test(l)), JSON.stringify(res.body.results[3]));
    await app.until('targets reported', async () => {
      const t = (await app.get(p.id)).temperatures;
      return t.hotend_target === 200 && t.bed_target === 60 && typeof t.hotend === 'number' && typeof t.bed === 'number';
    });
    const star = await commands(p.id, ['G1 X5*7']);
    assert.equal(star.status, 400);
    assert.match(star.body.error.message, /checksum separator/);
    const twoLines = await commands(p.id, ['M105\nG28']);
    assert.equal(twoLines.status, 400);
    assert.match(twoLines.body.error.message, /^commands\[0\]: must be a single line/);
    const tooMany = await commands(p.id, Array.from({ length: 21 }, () => 'M105'));
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.body.error.message, /^commands: must have at most 20 items/);
    const none = await commands(p.id, []);
    assert.equal(none.status, 400);
  });

  it('PATCH of connection_url closes the old link and connects to the new one', async () => {
    const p = await app.create({ name: 'moving', connection_url: fastSim('live-old') });
    await app.untilStatus(p.id, 'idle');
    const oldSession = app.t.deps.sessions.get(p.id);
    const res = await app.call('PATCH', `/v1/printers/${p.id}`, { connection_url: 'sim://live-new?speed=max&profile=prusa' });
    assert.equal(res.status, 200);
    assert.equal(res.body.connection_url, 'sim://live-new?speed=max&profile=prusa');
    assert.notEqual(app.t.deps.sessions.get(p.id), oldSession);
    assert.equal(oldSession?.currentStatus, 'offline');
    await app.until('the Prusa firmware answers', async () => /Prusa/.test((await app.get(p.id)).firmware ?? ''));
    assert.equal((await app.get(p.id)).status, 'idle');
  });

  it('actions while idle: home and cooldown are accepted; pause, resume and cancel do not fit', async () => {
    const p = await app.create({ name: 'actions', connection_url: fastSim('live-actions') });
    await app.untilStatus(p.id, 'idle');
    const home = await action(p.id, 'home');
    assert.equal(home.status, 202);
    assert.equal(home.body.id, p.id);
    assert.equal(home.body.status, 'idle');
    assert.equal((await action(p.id, 'cooldown')).status, 202);
    for (const name of ['pause', 'resume', 'cancel']) {
      const res = await action(p.id, name);
      assert.equal(res.status, 409, name);
      assert.equal(res.body.error.code, 'invalid_state', name);
    }
    const bad = await action(p.id, 'explode');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /^action: must be one of "pause", "resume", "cancel", "home", "cooldown", "ready", "emergency_stop", "connect", "disconnect"$/);
    assert.equal((await app.call('POST', '/v1/printers/prt_nope/actions', { action: 'home' })).status, 404);
  });

  it('emergency_stop puts the printer in error until connect clears it', async () => {
    const p = await app.create({ name: 'estop', connection_url: fastSim('live-estop') });
    await app.untilStatus(p.id, 'idle');
    const stop = await action(p.id, 'emergency_stop');
    assert.equal(stop.status, 202);
    assert.equal(stop.body.status, 'error');
    assert.equal(stop.body.error.code, 'emergency_stop');
    const home = await action(p.id, 'home');
    assert.equal(home.status, 409);
    assert.equal(home.body.error.code, 'invalid_state');
    const connect = await action(p.id, 'connect');
    assert.equal(connect.status, 202);
    const back = await app.untilStatus(p.id, 'idle');
    assert.equal(back.error, null);
  });

  it('disconnect: offline without retrying; link actions are printer_offline; ready and connect still work', async () => {
    const p = await app.create({ name: 'unplugged', connection_url: fastSim('live-off') });
    await app.untilStatus(p.id, 'idle');
    const off = await action(p.id, 'disconnect');
    assert.equal(off.status, 202);
    assert.equal(off.body.status, 'offline');
    assert.equal(off.body.connecting, false);
    assert.deepEqual(off.body.temperatures, { hotend: null, bed: null, hotend_target: null, bed_target: null });
    assert.match(off.body.firmware ?? '', /Marlin/, 'the last known firmware stays');
    for (const name of ['home', 'cooldown', 'pause', 'resume', 'cancel', 'emergency_stop']) {
      const res = await action(p.id, name);
      assert.equal(res.status, 409, name);
      assert.equal(res.body.error.code, 'printer_offline', name);
    }
    const cmd = await commands(p.id, ['M105']);
    assert.equal(cmd.status, 409);
    assert.equal(cmd.body.error.code, 'printer_offline');
    assert.equal((await action(p.id, 'disconnect')).status, 202, 'disconnecting twice is harmless');
    assert.equal((await action(p.id, 'ready')).status, 202);
    const on = await action(p.id, 'connect');
    assert.equal(on.status, 202);
    assert.equal(on.body.connecting, true);
    await app.untilStatus(p.id, 'idle');
  });

  it('a printer that cannot be reached stays offline with the reason, and keeps retrying', async () => {
    const p = await app.create({ name: 'nowhere', connection_url: 'tcp://127.0.0.1:1' });
    await app.until('the connect failure reported', async () => (await app.get(p.id)).error?.code === 'connect_failed');
    const rec = await app.get(p.id);
    assert.equal(rec.status, 'offline');
    assert.equal(rec.firmware, null);
    const del = await app.call('DELETE', `/v1/printers/${p.id}`);
    assert.equal(del.status, 204, 'an offline printer can be deleted');
  });

  it('ready: stored in the row, false survives in GET; the ready action sets it and emits printer.ready', async () => {
    const p = await app.create({ name: 'bed', connection_url: fastSim('live-ready') });
    await app.untilStatus(p.id, 'idle');
    await app.t.deps.printers.setReady(p.id, false);
    assert.equal((await app.get(p.id)).ready, false);
    const row = async () => (await dbRow<{ ready: number }>(app.t.handle, 'SELECT ready FROM printers WHERE id = ?', p.id))!.ready;
    assert.equal((await row()), 0);
    const events = app.record('printer.ready');
    const res = await action(p.id, 'ready');
    assert.equal(res.status, 202);
    assert.equal(res.body.ready, true);
    assert.equal((await row()), 1);
    assert.deepEqual(events, [{ name: 'printer.ready', printer_id: p.id }]);
    await assert.rejects(app.t.deps.printers.setReady('prt_missing', true), /not found/);
  });

  it('a bed left to clear is a stored event, printer.bed_waiting, with the printer, once per change', async () => {
    const p = await app.create({ name: 'bed-wait', connection_url: fastSim('live-bed-wait') });
    await app.untilStatus(p.id, 'idle');
    const stored = async () =>
      (await app.t.deps.db.selectFrom('events').select('body').where('type', '=', 'printer.bed_waiting').execute())
        .map((r) => (JSON.parse(r.body) as { data: { object: { id: string; ready: boolean } } }).data.object)
        .filter((o) => o.id === p.id);
    await app.t.deps.printers.setReady(p.id, false);
    await app.t.deps.printers.setReady(p.id, false);
    await app.until('printer.bed_waiting stored', async () => (await stored()).length === 1);
    assert.equal((await stored())[0]!.ready, false, 'the printer as the API shows it then');
    await app.t.deps.printers.setReady(p.id, true);
    await app.t.deps.printers.setReady(p.id, false);
    await app.until('a second one after the bed was cleared and used again', async () => (await stored()).length === 2);
  });
});
