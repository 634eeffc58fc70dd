// sim:// behind the Transport seam, on the real-time loop: open, lines, record, unplug, close, URL errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSimTransport } from '../../src/transport/sim.transport.js';
import type { TransportHandlers } from '../../src/transport/transport.js';

interface Recorder extends TransportHandlers {
  lines: string[];
  closed: Array<Error | null>;
  until(pred: (lines: string[]) => boolean, ms?: number): Promise<void>;
}

function recorder(): Recorder {
  const r: Recorder = {
    lines: [],
    closed: [],
    onLine: (line) => r.lines.push(line),
    onDrain: () => {},
    onClose: (err) => r.closed.push(err),
    until: async (pred, ms = 5000) => {
      const deadline = Date.now() + ms;
      while (!pred(r.lines)) {
        if (Date.now() > deadline) throw new Error(`timed out; lines so far: ${JSON.stringify(r.lines.slice(-10))}`);
        await new Promise((res) => setTimeout(res, 5));
      }
    },
  };
  return r;
}

test('a sim:// printer boots on open, answers framed lines and records what ran', async () => {
  const t = createSimTransport(new URL('sim://bench-1?profile=marlin&baud=250000&speed=max&record=1'));
  assert.equal(t.description, 'sim://bench-1?profile=marlin&baud=250000&speed=max&record=1');
  const r = recorder();
  await t.open(r);
  await r.until((l) => l.includes('start'));
  assert.equal(t.write('N0 M110 N0*125\nN1 M115*39\n'), true);
  await r.until((l) => l.filter((x) => x === 'ok').length === 2);
  assert.ok(r.lines.some((l) => l.startsWith('FIRMWARE_NAME:Marlin')));
  assert.deepEqual(t.printer.executed, ['M110 N0', 'M115']);
  await t.close();
  await t.close();
  assert.deepEqual(r.closed, [null]);
});

test('CRLF from the firmware becomes clean lines', async () => {
  const t = createSimTransport(new URL('sim://s?profile=smoothieware&baud=0'));
  const r = recorder();
  await t.open(r);
  await r.until((l) => l.length >= 2);
  assert.deepEqual(r.lines.slice(0, 2), ['Smoothie', 'ok']);
  await t.close();
});

test('a pulled cable closes the transport with an error, once', async () => {
  const t = createSimTransport(new URL('sim://p?baud=0&unplug_after_lines=2&record=1'));
  const r = recorder();
  await t.open(r);
  t.write('N0 M110 N0*125\nN1 M115*39\nN2 M105*37\n');
  const deadline = Date.now() + 5000;
  while (r.closed.length === 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 5));
  assert.equal(r.closed.length, 1);
  assert.match(String(r.closed[0]), /cable was pulled/);
  assert.deepEqual(t.printer.executed, ['M110 N0', 'M115']);
  await t.close();
  assert.equal(r.closed.length, 1);
  // Plugging back in: open again, the board boots again.
  const again = recorder();
  await t.open(again);
  await again.until((l) => l.includes('start'));
  await t.close();
});

test('a backlog on a slow link makes write() return false, and onDrain follows', async () => {
  const t = createSimTransport(new URL('sim://slow?baud=0&slots=1&rx=16&speed=max'));
  let drains = 0;
  const r = recorder();
  r.onDrain = () => drains++;
  await t.open(r);
  // 20 KiB of comments-only lines: the firmware reads them quickly, but they must first queue on the cable.
  assert.equal(t.write(';'.repeat(20 * 1024) + '\n'), false);
  const deadline = Date.now() + 5000;
  while (drains === 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 5));
  assert.equal(drains, 1);
  await t.close();
});

test('bad URLs throw naming the option', () => {
  assert.throws(() => createSimTransport(new URL('sim://x?bogus=1')), /unknown simulator option "bogus"/);
  assert.throws(() => createSimTransport(new URL('sim://x?speed=0')), /"speed"/);
  assert.throws(() => createSimTransport(new URL('sim://x?profile=grbl')), /"profile"/);
});
