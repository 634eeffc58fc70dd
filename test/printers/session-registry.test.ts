// Session registry (add/get/list/remove/closeAll over real sim sessions) and the reconnect back-off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../src/events/event-bus.js';
import { PrinterSession } from '../../src/printers/printer-session.js';
import { SessionRegistry } from '../../src/printers/session-registry.js';
import { ReconnectPolicy } from '../../src/printers/reconnect-policy.js';

test('reconnect back-off doubles from 1 s to 30 s and resets after a success', () => {
  const p = new ReconnectPolicy();
  assert.deepEqual(Array.from({ length: 8 }, () => p.nextDelay()), [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  p.reset();
  assert.equal(p.nextDelay(), 1000);
  assert.throws(() => new ReconnectPolicy({ initialMs: 0 }), /back-off/);
});

test('the registry holds one session per printer and closes them all', async () => {
  const bus = new EventBus();
  const offline: string[] = [];
  bus.on('printer.offline', (p) => offline.push(p.printer_id));
  const reg = new SessionRegistry();
  const make = (id: string): PrinterSession =>
    new PrinterSession({ printerId: id, url: `sim://${id}?speed=max`, bus, drainQuietMs: 20 });
  const a = make('prt_a');
  const b = make('prt_b');
  reg.add(a);
  reg.add(b);
  assert.throws(() => reg.add(make('prt_a')), /already has a session/);
  assert.equal(reg.get('prt_a'), a);
  assert.equal(reg.get('prt_zz'), undefined);
  assert.throws(() => reg.require('prt_zz'), /not found/);
  assert.deepEqual(reg.list().map((s) => s.printerId), ['prt_a', 'prt_b']);
  await Promise.all(reg.list().map((s) => s.connect()));
  assert.ok(reg.list().every((s) => s.snapshot().status === 'idle'));

  assert.equal(await reg.remove('prt_a'), true);
  assert.equal(await reg.remove('prt_a'), false);
  assert.equal(a.snapshot().status, 'offline');
  assert.equal(reg.size, 1);
  const late = await reg.closeAll(10_000);
  assert.deepEqual(late, []);
  assert.equal(reg.size, 0);
  assert.equal(b.snapshot().status, 'offline');
  assert.deepEqual(offline.sort(), ['prt_a', 'prt_b']);
});
