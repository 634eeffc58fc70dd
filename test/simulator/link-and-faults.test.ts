// The modelled cable (baud, RX overflow, latency, speed) and every fault injection option, all on a manual clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frame, harness, type Harness } from './sim-harness.js';

function handshake(h: Harness): void {
  h.write('N0 M110 N0*125\n');
  h.waitFor(/^ok/, 10_000);
  h.take();
}

function jobText(count: number, from = 1): { text: string; lines: string[] } {
  const lines: string[] = [];
  let text = '';
  for (let i = 0; i < count; i++) {
    const line = `G1 X${(i % 50) + 1} Y${i % 7} E${(i * 0.1).toFixed(1)}`;
    lines.push(line);
    text += frame(from + i, line);
  }
  return { text, lines };
}

test('bytes take 10 bits each at the baud rate, both ways', () => {
  const h = harness({ baud: '1000' }); // 100 bytes/s: 10 ms a byte
  h.advance(5000); // let the banner drain first
  h.take();
  const t0 = h.clock.now();
  h.write('N0 M110 N0*125\n'); // 15 bytes up (150 ms), "ok\n" down (30 ms)
  h.waitFor(/^ok$/, 1000);
  assert.equal(Math.round(h.clock.now() - t0), 180);
  h.close();
});

test('latency_ms delays each direction by half; speed scales simulated time', () => {
  const h = harness({ baud: '0', latency_ms: '20' });
  h.advance(100);
  const t0 = h.clock.now();
  h.write('N0 M110 N0*125\n');
  h.waitFor(/^ok$/, 1000);
  assert.equal(Math.round(h.clock.now() - t0), 20);
  h.close();

  const fast = harness({ baud: '0', speed: '10' });
  handshake(fast);
  const t1 = fast.clock.now();
  fast.write(frame(1, 'G1 X100 F6000') + frame(2, 'M400'));
  fast.advance(1);
  fast.take();
  fast.waitFor(/^ok$/, 5000);
  assert.equal(Math.round(fast.clock.now() - t1), 100, 'a 1 s move takes 100 ms at speed=10');
  fast.close();
});

test('a host that over-sends overflows the RX buffer: bytes are lost and the stream breaks into a resend', () => {
  const h = harness({ baud: '250000', rx: '64', slots: '1' });
  handshake(h);
  const job = jobText(10, 2);
  h.write(frame(1, 'G4 S1') + job.text); // the dwell holds the only slot while ~200 bytes arrive
  h.advance(3000);
  assert.ok(h.printer.stats.bytesLostOverflow > 0, 'bytes were lost');
  // What is left is a torn line in the firmware's buffer; the next line the host sends completes it wrongly.
  h.write(frame(12, 'M105'));
  h.advance(100);
  assert.ok(h.lines.some((l) => l.startsWith('Resend: ')), 'the damage was detected');
  for (const line of h.printer.executedJobLines()) assert.ok(line === 'G4 S1' || job.lines.includes(line), line);

  // Native USB (baud=0) pushes back instead: nothing is lost and everything runs.
  const usb = harness({ baud: '0', rx: '64', slots: '1', speed: 'max' });
  handshake(usb);
  usb.write(frame(1, 'G4 S1') + job.text);
  usb.advance(3000);
  assert.equal(usb.printer.stats.bytesLostOverflow, 0);
  assert.deepEqual(usb.printer.executedJobLines(), ['G4 S1', ...job.lines]);
  h.close();
  usb.close();
});

test('at a finite baud each line still on the wire behind a bad one gets its own error and the same resend', () => {
  const h = harness({ baud: '250000' });
  h.advance(100);
  handshake(h);
  h.write(frame(1, 'G90').replace(/\*\d+/, '*0') + frame(2, 'G90') + frame(3, 'G90'));
  h.advance(50);
  assert.deepEqual(h.take(), [
    'Error:checksum mismatch, Last Line: 0',
    'Resend: 1',
    'ok',
    'Error:Line Number is not Last Line Number+1, Last Line: 0',
    'Resend: 1',
    'ok',
    'Error:Line Number is not Last Line Number+1, Last Line: 0',
    'Resend: 1',
    'ok',
  ]);
  assert.equal(h.printer.stats.resendsRequested, 3);
  h.close();
});

test('error_rate corrupts bytes: checksum errors and resends, never a corrupted command executed; seeded', () => {
  const run = (seed: string): Harness => {
    const h = harness({ baud: '0', speed: 'max', error_rate: '0.01', seed });
    h.advance(1);
    h.write(jobText(100).text);
    h.advance(100);
    return h;
  };
  const a = run('7');
  const sent = new Set(jobText(100).lines);
  assert.ok(a.printer.stats.bytesCorrupted > 0);
  assert.ok(a.printer.stats.checksumErrors + a.printer.stats.sequenceErrors > 0);
  assert.ok(a.printer.stats.resendsRequested > 0);
  // The only foreign thing a firmware runs is the digits of a checksum split off by a flipped `*` or read after a
  // flush: a bare number, harmless as an unknown command. Nothing that moves the machine gets through.
  for (const line of a.printer.executed) assert.ok(sent.has(line) || /^\d+$/.test(line), `corrupted line executed: ${line}`);
  const again = run('7');
  assert.deepEqual(again.raw(), a.raw(), 'the same seed replays the same faults');
  const other = run('8');
  assert.notDeepEqual(other.raw(), a.raw());
  for (const h of [a, again, other]) h.close();
});

test('loss_rate drops bytes on the wire, which the checks catch', () => {
  const h = harness({ baud: '0', speed: 'max', loss_rate: '0.01' });
  h.advance(1);
  h.write(jobText(100).text);
  h.advance(100);
  const sent = new Set(jobText(100).lines);
  assert.ok(h.printer.stats.bytesLostOnWire > 0);
  assert.ok(h.printer.stats.resendsRequested > 0);
  for (const line of h.printer.executed) assert.ok(sent.has(line) || /^\d+$/.test(line), line);
  h.close();
});

test('drop_ok_every=3 swallows every third ok while the commands still run', () => {
  const h = harness({ baud: '0', drop_ok_every: '3' });
  h.advance(1);
  h.take();
  let text = 'N0 M110 N0*125\n';
  for (let i = 1; i <= 8; i++) text += frame(i, 'G90');
  h.write(text);
  h.advance(10);
  assert.equal(h.take().filter((l) => l === 'ok').length, 6);
  assert.equal(h.printer.stats.oksDropped, 3);
  assert.equal(h.printer.executedCount, 9);
  h.close();
});

test('duplicate_resend=1 repeats the resend request and its ok', () => {
  const h = harness({ baud: '0', duplicate_resend: '1' });
  handshake(h);
  h.write(frame(1, 'G90') + frame(2, 'G90').replace(/\*\d+/, '*0'));
  h.advance(10);
  assert.deepEqual(h.take(), ['Error:checksum mismatch, Last Line: 1', 'Resend: 2', 'ok', 'Resend: 2', 'ok', 'ok']);
  h.close();
});

test('reset_after_lines: the board restarts with start and forgets the line numbers', () => {
  const h = harness({ baud: '0', reset_after_lines: '3' });
  h.advance(1);
  h.take();
  h.write('N0 M110 N0*125\n' + frame(1, 'G90') + frame(2, 'G90') + frame(3, 'G90'));
  h.advance(10);
  const out = h.take();
  assert.deepEqual(out.slice(0, 4), ['ok', 'ok', 'ok', 'start']);
  assert.deepEqual(h.printer.executed, ['M110 N0', 'G90', 'G90']);
  h.write(frame(3, 'G90'));
  h.advance(10);
  assert.equal(h.take()[0], 'Error:Line Number is not Last Line Number+1, Last Line: 0');
  h.close();
});

test('reset() mid-print drops what was queued and planned and prints start', () => {
  const h = harness({ baud: '0' });
  handshake(h);
  h.write(jobText(10, 1).text);
  h.advance(10);
  assert.ok(h.printer.queueDepth.planner > 0);
  h.printer.reset();
  h.advance(10);
  assert.ok(h.take().includes('start'));
  assert.deepEqual(h.printer.queueDepth, { commands: 0, planner: 0, rxBytes: 0 });
  h.close();
});

test('unplug_after_lines and unplug(): the link goes dead and listeners hear of it', () => {
  const h = harness({ baud: '0', unplug_after_lines: '2' });
  let unplugged = 0;
  h.printer.onUnplug(() => unplugged++);
  h.advance(1);
  h.take();
  h.write('N0 M110 N0*125\n' + frame(1, 'G90') + frame(2, 'G90'));
  h.advance(10);
  assert.equal(unplugged, 1);
  assert.equal(h.printer.isConnected, false);
  assert.deepEqual(h.printer.executed, ['M110 N0', 'G90']);
  h.write(frame(3, 'M105'));
  h.advance(100);
  h.take();
  h.advance(100);
  assert.deepEqual(h.take(), []);
  h.close();
});

test('runaway_after_lines and thermalRunaway(): Thermal Runaway, then halted', () => {
  const h = harness({ baud: '0', runaway_after_lines: '2' });
  h.advance(1);
  h.take();
  h.write('N0 M110 N0*125\n' + frame(1, 'M104 S200') + frame(2, 'M105'));
  h.advance(10);
  assert.deepEqual(h.take().slice(-2), ['Error:Thermal Runaway, system stopped! Heater_ID: 0', 'Error:Printer halted. kill() called!']);
  assert.equal(h.printer.isHalted, true);
  assert.equal(h.printer.temperatures().hotendTarget, 0);
  h.printer.reset();
  h.advance(10);
  assert.equal(h.printer.isHalted, false);
  h.printer.thermalRunaway();
  h.advance(10);
  assert.ok(h.take().includes('Error:Thermal Runaway, system stopped! Heater_ID: 0'));
  h.close();
});

test('boot_ms ignores input while booting; boot_noise puts garbage before start', () => {
  const h = harness({ baud: '0', boot_ms: '500', boot_noise: '1' });
  h.write('N0 M110 N0*125\n');
  h.advance(400);
  assert.equal(h.lines.length, 0);
  h.advance(200);
  assert.equal(h.raw()[0], 0, 'a NUL byte first');
  assert.ok(h.lines.some((l) => l.endsWith('start')));
  assert.ok(!h.lines.includes('ok'), 'the line sent during boot was eaten');
  assert.ok(h.printer.stats.bytesDiscarded >= 15);
  h.close();
});

test('starvation: planner gaps between moves are measured, deliberate waits are not', () => {
  const h = harness({ baud: '0' });
  handshake(h);
  h.write(frame(1, 'G1 X10 F600'));
  h.advance(1500); // the 1 s move ends at ~1000, the planner is empty for ~500 ms
  h.write(frame(2, 'G1 X20'));
  h.advance(10);
  assert.equal(h.printer.stats.starvationEvents, 1);
  assert.ok(Math.abs(h.printer.stats.starvationMs - 500) < 5, String(h.printer.stats.starvationMs));
  h.write(frame(3, 'G4 S1') + frame(4, 'G1 X30'));
  h.advance(3000);
  assert.equal(h.printer.stats.starvationEvents, 1, 'the gap around G4 is on purpose');
  h.close();
});

test('hostWrite pushes back above 16 KiB on the cable; drain follows at the baud rate, or as a USB firmware reads', () => {
  const serial = harness({ baud: '250000', slots: '1' });
  handshake(serial);
  let drains = 0;
  serial.printer.onDrain(() => drains++);
  serial.write(frame(1, 'G4 S10'));
  serial.advance(10);
  assert.equal(serial.write(`M117 ${'x'.repeat(80)}\n`.repeat(250)), false, '21 KiB is over the mark');
  serial.advance(100);
  assert.equal(drains, 0);
  serial.advance(200); // (21250 - 16384) bytes at 25 bytes/ms: ~195 ms
  assert.equal(drains, 1);
  assert.ok(serial.printer.stats.bytesLostOverflow > 0, 'the firmware was busy, so RX overflowed meanwhile');
  serial.close();

  const usb = harness({ baud: '0', slots: '1', speed: 'max' });
  handshake(usb);
  let usbDrains = 0;
  usb.printer.onDrain(() => usbDrains++);
  const lines = Array.from({ length: 250 }, (_, i) => `M117 ${String(i).padStart(80, 'x')}`);
  assert.equal(usb.write(lines.map((l) => `${l}\n`).join('')), false);
  usb.advance(10);
  assert.equal(usbDrains, 1);
  assert.equal(usb.printer.stats.bytesLostOverflow, 0);
  assert.deepEqual(usb.printer.executedJobLines(), lines);
  usb.close();
});
