// The bridge's pacing on a printer it publishes (a recording link, a hand-moved elapsed clock): a state change goes out
// at once, telemetry at most once a second; a bus event publishes at once; a removed printer is cleared.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import { EventBus } from '../../src/events/event-bus.js';
import { silentLogger } from '../../src/logger.js';
import { HomeAssistantBridge, type PublishLink } from '../../src/homeassistant/ha-bridge.js';
import type { PrinterRecord } from '../../src/printers/printer-record.js';
import type { PrinterSnapshot } from '../../src/printers/printer-state.js';
import type { DbHandle } from '../../src/storage/db.js';
import { openTestDatabase } from '../helpers/test-database.js';

class RecordingLink implements PublishLink {
  readonly sent: { topic: string; payload: string; at: number }[] = [];
  constructor(private readonly now: () => number) {}
  publishRetained(topic: string, payload: string): void {
    this.sent.push({ topic, payload, at: this.now() });
  }
  clearRetained(topic: string): void {
    this.sent.push({ topic, payload: '', at: this.now() });
  }
  publishNow(topic: string, payload: string): void {
    this.sent.push({ topic, payload, at: this.now() });
  }
  republish(): void {}
  states(topic: string): any[] {
    return this.sent.filter((m) => m.topic === topic).map((m) => (m.payload === '' ? null : { ...JSON.parse(m.payload), at: m.at }));
  }
}

const record = { id: 'prt_a', name: 'A', model: null, firmware: null, materials: [], material_type: 'PLA', material_color: 'black', ready: true, node_id: 'nod_1' } as unknown as PrinterRecord;

describe('Home Assistant bridge pacing', () => {
  let handle: DbHandle;
  before(async () => {
    handle = await openTestDatabase(new Date().toISOString());
  });
  after(() => handle.close());

  it('telemetry at most once a second, state changes at once, bus events at once', async () => {
    let elapsed = 0;
    const bus = new EventBus();
    const link = new RecordingLink(() => elapsed);
    let snap: PrinterSnapshot = { printer_id: 'prt_a', url: 'sim://a', status: 'idle', firmware: null, temperatures: { hotend: 20, bed: 20 }, ready: true, job: null, error: null };
    const bridge = new HomeAssistantBridge(
      {
        bus,
        db: handle.db,
        clock: new ManualClock(),
        logger: silentLogger,
        nodeId: 'nod_1',
        ownPrinters: async () => [record],
        printer: async () => record,
        snapshot: () => snap,
        job: async () => { throw new Error('no job'); },
        runAction: async () => undefined,
        tickMs: 1e9,
        monotonic: () => elapsed,
      },
      link,
    );
    await bridge.start();
    const topic = 'printfarm/printer/prt_a/state';
    try {
      assert.equal(link.states(topic).length, 1);
      assert.equal(link.states(topic)[0].filament, 'PLA black');
      for (const t of [100, 400, 999]) {
        elapsed = t;
        snap = { ...snap, temperatures: { hotend: 20 + t / 100, bed: 20 } };
        bridge.tick();
      }
      assert.equal(link.states(topic).length, 1, 'no telemetry within the second');
      elapsed = 1000;
      bridge.tick();
      assert.equal(link.states(topic).length, 2);
      assert.equal(link.states(topic)[1].hotend, 30);
      // A state change does not wait for the second.
      elapsed = 1100;
      snap = { ...snap, status: 'error', error: { code: 'firmware_error', message: 'heater' } };
      bridge.tick();
      assert.equal(link.states(topic).length, 3);
      assert.equal(link.states(topic)[2].status, 'error');
      assert.equal(link.states(topic)[2].problem, 'ON');
      elapsed = 1200;
      snap = { ...snap, temperatures: { hotend: 50, bed: 20 } };
      bridge.tick();
      assert.equal(link.states(topic).length, 3);
      // A bus event is published without waiting for a tick.
      elapsed = 1300;
      snap = { ...snap, status: 'offline', offline_reason: 'unreachable' };
      bus.emit('printer.offline', { printer_id: 'prt_a' });
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(link.states(topic).length, 4);
      assert.equal(link.states(topic)[3].offline_reason, 'unreachable');
      const times = link.states(topic).map((s) => s.at);
      assert.deepEqual(times, [0, 1000, 1100, 1300]);
      // Removed: its entities and state are cleared (empty retained payloads).
      bus.emit('printer.removed', { printer_id: 'prt_a' });
      assert.equal(link.states(topic).at(-1), null);
      assert.equal(link.sent.filter((m) => m.topic.startsWith('homeassistant/') && m.payload === '').length, 18);
    } finally {
      bridge.stop();
    }
  });
});
