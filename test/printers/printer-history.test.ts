// Over HTTP with sim:// printers: the temperature history (samples every 5 s of the app's manual clock, the minutes
// window, 400/404, dropped with the printer) and the record's `serial` statistics counting commands, errors and resends.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fastSim, startPrintersApp, type PrintersApp } from './printers-api-harness.js';

interface Sample {
  at: string;
  hotend: number | null;
  hotend_target: number | null;
  bed: number | null;
  bed_target: number | null;
}

describe('printer temperature history and serial statistics', () => {
  let app: PrintersApp;
  before(async () => {
    app = await startPrintersApp();
  });
  after(() => app.close());

  const temperatures = (id: string, query = '') => app.call('GET', `/v1/printers/${id}/temperatures${query}`);

  it('samples a connected printer every 5 s of the clock, oldest first, and filters by minutes', async () => {
    const p = await app.create({ name: 'thermo', connection_url: fastSim('hist-thermo') });
    await app.untilStatus(p.id, 'idle');
    const before = await temperatures(p.id);
    assert.equal(before.status, 200, JSON.stringify(before.body));
    assert.equal(before.body.printer_id, p.id);
    assert.equal(before.body.interval_seconds, 5);
    const startCount = before.body.samples.length;

    // Heat up, then let the farm's own sampler (a real 1 s timer reading the manual clock) take one sample per 5 s step.
    const heat = await app.call('POST', `/v1/printers/${p.id}/commands`, { commands: ['M104 S200', 'M140 S60', 'M105'] });
    assert.equal(heat.status, 200, JSON.stringify(heat.body));
    await app.until('targets reported', async () => {
      const t = (await app.get(p.id)).temperatures;
      return t.hotend_target === 200 && t.bed_target === 60;
    });
    app.t.clock.advance(5_000);
    await app.until('the sampler to take a sample on its own', async () => (await temperatures(p.id)).body.samples.length === startCount + 1, 5_000);
    // Further steps through the history's tick (what the timer calls), so the test needs no real waiting.
    for (let i = 0; i < 13; i++) {
      app.t.clock.advance(5_000);
      assert.equal(app.t.deps.temperatures.tick(), true);
    }
    const all = (await temperatures(p.id)).body.samples as Sample[];
    assert.equal(all.length, startCount + 14);
    const times = all.map((s) => Date.parse(s.at));
    assert.deepEqual([...times].sort((a, b) => a - b), times, 'oldest first');
    const last = all.at(-1)!;
    assert.equal(last.at, new Date(app.t.clock.now()).toISOString());
    assert.equal(last.hotend_target, 200);
    assert.equal(last.bed_target, 60);
    assert.equal(typeof last.hotend, 'number');
    assert.equal(typeof last.bed, 'number');
    for (let i = 1; i < 14; i++) assert.equal(times.at(-i)! - times.at(-i - 1)!, 5_000, 'one sample per 5 s');

    // The last minute holds the samples of the last 60 s of the clock only (12 steps back and the current one).
    const minute = await temperatures(p.id, '?minutes=1');
    assert.equal(minute.status, 200);
    assert.deepEqual(
      (minute.body.samples as Sample[]).map((s) => s.at),
      all.filter((s) => Date.parse(s.at) >= app.t.clock.now() - 60_000).map((s) => s.at),
    );
    assert.equal(minute.body.samples.length, 13);
    assert.equal((await temperatures(p.id, '?minutes=60')).body.samples.length, all.length);
  });

  it('400 names minutes when it is out of range or not an integer; 404 for an unknown printer; printers:read suffices', async () => {
    const p = await app.create({ name: 'bad-query', connection_url: fastSim('hist-bad-query') });
    for (const q of ['?minutes=0', '?minutes=61', '?minutes=abc', '?minutes=1.5', '?minutes=', '?minutes=-1', '?minutes=1&minutes=2']) {
      const res = await temperatures(p.id, q);
      assert.equal(res.status, 400, `${q}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.error.message, /minutes/, q);
    }
    const unknown = await temperatures(p.id, '?hours=1');
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error.message, /hours/);
    const missing = await temperatures('prt_doesnotexist0000000');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'resource_not_found');
    const { mintTestKey } = await import('../helpers/test-app.js');
    const reader = await mintTestKey(app.t, ['printers:read'], 'reader');
    assert.equal((await app.call('GET', `/v1/printers/${p.id}/temperatures`, undefined, reader)).status, 200);
    const other = await mintTestKey(app.t, ['jobs:read'], 'jobs only');
    assert.equal((await app.call('GET', `/v1/printers/${p.id}/temperatures`, undefined, other)).status, 403);
  });

  it('a printer never connected has no samples; deleting a printer drops its history', async () => {
    const never = await app.create({ name: 'never', connection_url: 'tcp://127.0.0.1:1' });
    app.t.clock.advance(5_000);
    app.t.deps.temperatures.tick();
    const none = await temperatures(never.id);
    assert.equal(none.status, 200);
    assert.deepEqual(none.body.samples, []);
    assert.equal((await app.get(never.id)).serial, null, 'no link ever opened: no serial statistics');

    const p = await app.create({ name: 'doomed', connection_url: fastSim('hist-doomed') });
    await app.untilStatus(p.id, 'idle');
    app.t.clock.advance(5_000);
    app.t.deps.temperatures.tick();
    assert.equal((await temperatures(p.id)).body.samples.length, 1);
    const withRing = app.t.deps.temperatures.printers;
    assert.equal((await app.call('DELETE', `/v1/printers/${p.id}`)).status, 204);
    assert.equal(app.t.deps.temperatures.printers, withRing - 1, 'the ring is gone');
    assert.deepEqual(app.t.deps.temperatures.read(p.id, 60), []);
    assert.equal((await temperatures(p.id)).status, 404);
  });

  it('serial: present once connected, counting commands and firmware errors; connected_since and baud_rate', async () => {
    const p = await app.create({ name: 'stats', connection_url: `${fastSim('hist-stats')}&baud=115200` });
    const idle = await app.untilStatus(p.id, 'idle');
    const first = idle.serial!;
    assert.ok(first, 'serial is present once the session opened its link');
    assert.equal(first.baud_rate, 115200);
    assert.ok(first.connected_since !== null && Math.abs(Date.parse(first.connected_since) - Date.now()) < 60_000, 'connected_since is a recent real time');
    assert.ok(first.lines_sent >= 2, 'the handshake sent M110 and M115');
    assert.equal(first.errors, 0);
    const res = await app.call('POST', `/v1/printers/${p.id}/commands`, { commands: ['M105', 'G28', 'M9999', 'M105'] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const after = (await app.get(p.id)).serial!;
    assert.ok(after.lines_sent >= first.lines_sent + 4, `4 more lines sent: ${first.lines_sent} -> ${after.lines_sent}`);
    assert.ok(after.lines_acked >= first.lines_acked + 4);
    assert.ok(after.bytes_written > first.bytes_written);
    assert.equal(after.errors, 1, 'the unknown command');
    assert.equal(after.connected_since, first.connected_since);
    assert.deepEqual(Object.keys(after).sort(), [
      'baud_rate', 'bytes_written', 'connected_since', 'errors', 'lines_acked', 'lines_resent', 'lines_sent', 'resends', 'spurious_oks', 'timeouts',
    ]);
    // fields= takes the new field like any other.
    const listed = await app.call('GET', `/v1/printers?fields=id,serial&sort=created_at`);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const row = (listed.body.data as Array<{ id: string; serial: unknown }>).find((r) => r.id === p.id)!;
    assert.deepEqual(Object.keys(row), ['id', 'serial']);

    // Disconnected: the last link's counters stay, connected_since goes null.
    assert.equal((await app.call('POST', `/v1/printers/${p.id}/actions`, { action: 'disconnect' })).status, 202);
    const offline = await app.untilStatus(p.id, 'offline');
    assert.equal(offline.serial!.connected_since, null);
    assert.equal(offline.serial!.lines_sent, after.lines_sent);
    assert.equal(offline.serial!.baud_rate, 115200);
  });

  it('serial: a noisy line shows resends and lines written again', async () => {
    // Corrupted bytes on the host -> printer wire: the firmware asks for lines again.
    const p = await app.create({ name: 'noisy', connection_url: `${fastSim('hist-noisy')}&error_rate=0.01&seed=7` });
    await app.untilStatus(p.id, 'idle');
    const commands = Array.from({ length: 20 }, (_, i) => `G1 X${10 + i} Y${20 + i} F3000`);
    for (let round = 0; round < 5; round++) {
      const res = await app.call('POST', `/v1/printers/${p.id}/commands`, { commands });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const serial = (await app.get(p.id)).serial!;
    assert.ok(serial.resends > 0, `resends counted: ${JSON.stringify(serial)}`);
    assert.ok(serial.lines_resent > 0, 'and the lines written again');
    assert.ok(serial.lines_sent >= 100);
  });
});
