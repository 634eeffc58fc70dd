// The temperature ring by table (capacity, wrap-around, nulls, the since() window) and the sampler's 5 s slots on a manual
// clock: one sample a slot whatever the wake-ups, only connected printers, a deleted printer's ring dropped.
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import { EventBus } from '../../src/events/event-bus.js';
import type { PrinterSnapshot, PrinterStatus } from '../../src/printers/printer-state.js';
import { serialStatsOf } from '../../src/printers/serial-stats.js';
import { TemperatureHistory, type SampledSession } from '../../src/printers/temperature-history.js';
import { TEMPERATURE_RING_CAPACITY, TemperatureRing, type TemperatureSample } from '../../src/printers/temperature-ring.js';

const sample = (at: number, hotend: number | null = at / 10): TemperatureSample => ({ at, hotend, hotend_target: 215, bed: null, bed_target: 60 });

describe('TemperatureRing', () => {
  const cases: Array<{ name: string; capacity: number; pushed: number[]; since?: number; expected: number[] }> = [
    { name: 'empty', capacity: 3, pushed: [], expected: [] },
    { name: 'partly filled, oldest first', capacity: 3, pushed: [10, 20], expected: [10, 20] },
    { name: 'exactly full', capacity: 3, pushed: [10, 20, 30], expected: [10, 20, 30] },
    { name: 'one past full drops the oldest', capacity: 3, pushed: [10, 20, 30, 40], expected: [20, 30, 40] },
    { name: 'wrapped twice and more', capacity: 3, pushed: [10, 20, 30, 40, 50, 60, 70], expected: [50, 60, 70] },
    { name: 'capacity 1 keeps the last', capacity: 1, pushed: [10, 20, 30], expected: [30] },
    { name: 'since: at the boundary is included', capacity: 5, pushed: [10, 20, 30, 40], since: 20, expected: [20, 30, 40] },
    { name: 'since: between samples', capacity: 5, pushed: [10, 20, 30, 40], since: 25, expected: [30, 40] },
    { name: 'since: after the newest', capacity: 5, pushed: [10, 20], since: 21, expected: [] },
    { name: 'since: over a wrapped ring', capacity: 3, pushed: [10, 20, 30, 40, 50], since: 35, expected: [40, 50] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const ring = new TemperatureRing(c.capacity);
      for (const at of c.pushed) ring.push(sample(at));
      const got = ring.since(c.since);
      assert.deepEqual(got.map((s) => s.at), c.expected);
      assert.equal(ring.size, Math.min(c.pushed.length, c.capacity));
      for (const s of got) assert.deepEqual(s, sample(s.at), 'every value comes back as pushed');
    });
  }

  it('keeps null apart from 0 and negative readings', () => {
    const ring = new TemperatureRing(4);
    ring.push({ at: 1, hotend: null, hotend_target: 0, bed: -5.5, bed_target: null });
    assert.deepEqual(ring.since(), [{ at: 1, hotend: null, hotend_target: 0, bed: -5.5, bed_target: null }]);
  });

  it('defaults to an hour at 5 s and holds no more however long it runs', () => {
    assert.equal(TEMPERATURE_RING_CAPACITY, 720);
    const ring = new TemperatureRing();
    for (let i = 0; i < 5000; i++) ring.push(sample(i * 5000));
    const all = ring.since();
    assert.equal(all.length, 720);
    assert.equal(all[0]!.at, (5000 - 720) * 5000);
    assert.equal(all.at(-1)!.at, 4999 * 5000);
  });

  it('refuses a capacity that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, NaN]) assert.throws(() => new TemperatureRing(bad), /positive integer/);
  });
});

/** A session stand-in: the sampler reads only printerId and snapshot(). */
function fakeSession(printerId: string, status: PrinterStatus, hotend: number): SampledSession & { hotend: number; status: PrinterStatus } {
  const s = {
    printerId,
    status,
    hotend,
    snapshot: (): PrinterSnapshot => ({
      printer_id: printerId,
      url: `sim://${printerId}`,
      status: s.status,
      firmware: null,
      temperatures: { hotend: s.hotend, hotend_target: 210, bed: 55 },
      ready: true,
      job: null,
      error: null,
    }),
  };
  return s;
}

describe('TemperatureHistory', () => {
  it('samples once per 5 s slot of the clock, only connected printers, and reads a window of minutes', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    const bus = new EventBus();
    const a = fakeSession('prt_a', 'idle', 20);
    const b = fakeSession('prt_b', 'offline', 20);
    const history = new TemperatureHistory({ sessions: { list: () => [a, b] }, clock, bus });
    assert.equal(history.tick(), true, 'the first tick samples');
    assert.equal(history.tick(), false, 'the clock did not move: no second sample at the same instant');
    clock.advance(4_999);
    assert.equal(history.tick(), false, 'still the same 5 s slot');
    for (let i = 0; i < 10; i++) {
      clock.advance(5_000);
      a.hotend += 10;
      assert.equal(history.tick(), true);
    }
    const all = history.read('prt_a', 60);
    assert.equal(all.length, 11);
    assert.deepEqual(all.slice(0, 2), [
      { at: Date.UTC(2026, 0, 1, 12, 0, 0), hotend: 20, hotend_target: 210, bed: 55, bed_target: null },
      { at: Date.UTC(2026, 0, 1, 12, 0, 9, 999), hotend: 30, hotend_target: 210, bed: 55, bed_target: null },
    ]);
    assert.deepEqual(history.read('prt_b', 60), [], 'an offline printer is not sampled');
    assert.equal(history.printers, 1);
    // The last minute: samples at or after now - 60 s.
    const lastMinute = history.read('prt_a', 1);
    assert.ok(lastMinute.every((s) => s.at >= clock.now() - 60_000));
    assert.equal(lastMinute.length, 11, 'all 11 lie within 54.999 s');
    clock.advance(60_000);
    assert.deepEqual(history.read('prt_a', 1).map((s) => s.at), [clock.now() - 60_000], 'the window moves with the clock');
    b.status = 'printing';
    clock.advance(5_000);
    history.tick();
    assert.equal(history.read('prt_b', 60).length, 1, 'sampled once connected');
    bus.emit('printer.removed', { printer_id: 'prt_a' });
    assert.equal(history.read('prt_a', 60).length, 12, 'only a started history listens for deletions');
    history.forget('prt_a');
    assert.deepEqual(history.read('prt_a', 60), []);
  });

  it('started, it drops a deleted printer on printer.removed and keeps at most capacity samples per printer', () => {
    const clock = new ManualClock();
    const bus = new EventBus();
    const sessions = Array.from({ length: 50 }, (_, i) => fakeSession(`prt_${i}`, 'idle', 20));
    const history = new TemperatureHistory({ sessions: { list: () => sessions }, clock, bus });
    history.start();
    try {
      for (let i = 0; i < 800; i++) {
        clock.advance(5_000);
        history.tick();
      }
      assert.equal(history.printers, 50);
      for (const s of sessions) assert.equal(history.read(s.printerId, 60).length, 720, `${s.printerId} holds an hour`);
      bus.emit('printer.removed', { printer_id: 'prt_7' });
      assert.equal(history.printers, 49);
      assert.deepEqual(history.read('prt_7', 60), []);
    } finally {
      history.stop();
    }
    assert.equal(history.printers, 0, 'stop lets go of every ring');
  });
});

test('serial stats: null without a session or before the first link, else the counters under their API names', () => {
  assert.equal(serialStatsOf(undefined), null);
  assert.equal(serialStatsOf({ stats: () => null, linkInfo: () => ({ connectedAt: null, baudRate: null }) }), null);
  const stats = { linesSent: 7, linesAcked: 6, bytesWritten: 120, resends: 2, linesResent: 3, timeouts: 1, spuriousOks: 4, firmwareErrors: 5 };
  assert.deepEqual(serialStatsOf({ stats: () => stats, linkInfo: () => ({ connectedAt: Date.UTC(2026, 0, 1), baudRate: 250000 }) }), {
    connected_since: '2026-01-01T00:00:00.000Z',
    baud_rate: 250000,
    lines_sent: 7,
    lines_acked: 6,
    bytes_written: 120,
    resends: 2,
    lines_resent: 3,
    timeouts: 1,
    errors: 5,
    spurious_oks: 4,
  });
});
