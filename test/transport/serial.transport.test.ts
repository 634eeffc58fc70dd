// Both serial transports (node-serialport's for the main thread, the addon's fd on the thread's own loop for worker
// threads) against a real pseudo-terminal pair from socat, the far end played by a second serialport: one contract.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SerialPort } from 'serialport';
import { SerialTransport } from '../../src/transport/serial.transport.js';
import { WorkerSerialTransport } from '../../src/transport/serial-worker.transport.js';
import { createPtyPair, hasSocat, type PtyPair } from '../helpers/socat-pty.js';
import { recorder, waitFor } from '../helpers/transport-recorder.js';

const skip = hasSocat() ? false : 'socat is not installed (apt-get install socat)';

/** The printer's end of the pair: a plain serialport collecting what the host sent. */
async function openPeer(path: string): Promise<{ port: SerialPort; received: () => Buffer; close: () => Promise<void> }> {
  const port = new SerialPort({ path, baudRate: 250000, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  const chunks: Buffer[] = [];
  port.on('data', (c: Buffer) => chunks.push(c));
  port.on('error', () => undefined);
  return {
    port,
    received: () => Buffer.concat(chunks),
    close: () => new Promise<void>((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve())),
  };
}

const transports = [
  ['serial transport', SerialTransport],
  ['worker-thread serial transport', WorkerSerialTransport],
] as const;

for (const [name, Serial] of transports) {
  describe(`${name} over a socat pty pair`, { skip }, () => {
    let pair: PtyPair;
    before(async () => {
      pair = await createPtyPair();
    });
    after(async () => {
      await pair?.close();
    });

    test('lines both ways, CRLF and NUL bytes handled, close twice is safe', async (ctx) => {
      const peer = await openPeer(pair.devicePath);
      const t = new Serial({ path: pair.hostPath, baudCandidates: [250000] });
      ctx.after(() => Promise.all([t.close(), peer.close()]));
      const rec = recorder();
      await t.open(rec.handlers);
      assert.equal(t.description, `serial://${pair.hostPath}?baud=250000`);

      assert.equal(typeof t.write('N0 M110 N0*125\n'), 'boolean');
      t.write(Buffer.from('N1 M115*39\n'));
      await waitFor(() => peer.received().includes('N1 M115*39\n'), 'the host lines at the peer');
      assert.equal(peer.received().toString(), 'N0 M110 N0*125\nN1 M115*39\n');

      peer.port.write('\0\0\0start\r\nok\r\n\0echo:  External Reset\r\nok T:21.3 /0.0 B:20.9 /0.0 @:0 B@:0\nJ\u00fcnk\x01\n');
      await waitFor(() => rec.lines.length >= 5, 'five lines from the peer');
      assert.deepEqual(rec.lines, ['start', 'ok', 'echo:  External Reset', 'ok T:21.3 /0.0 B:20.9 /0.0 @:0 B@:0', 'J\u00fcnk\x01']);

      await Promise.all([t.close(), t.close()]);
      await t.close();
      assert.deepEqual(rec.closes, [null]);
      assert.throws(() => t.write('M105\n'), /not open/);
      await peer.close();
    });

    test('pty ioctl errors (DTR/RTS, low latency) do not fail open', async (ctx) => {
      const peer = await openPeer(pair.devicePath);
      ctx.after(() => peer.close());
      // The precondition that makes this test mean something: on a pty the modem-line ioctl really fails.
      const setError = await new Promise<Error | null>((resolve) => peer.port.set({ dtr: true, rts: true }, resolve));
      assert.match(String(setError), /Inappropriate ioctl/);

      const t = new Serial({ path: pair.hostPath, baudCandidates: [250000, 115200] });
      ctx.after(() => t.close());
      const rec = recorder();
      await t.open(rec.handlers);
      assert.equal(t.lowLatency.asyncLowLatency, false);
      assert.equal(t.lowLatency.latencyTimerMs, null);
      assert.equal(t.description, `serial://${pair.hostPath}`);
      assert.deepEqual(t.baudCandidates, [250000, 115200]);
      assert.equal(t.baudRate, 250000);
      await t.setBaudRate(115200);
      assert.equal(t.baudRate, 115200);
      t.write('M105\n');
      await waitFor(() => peer.received().toString() === 'M105\n', 'a line after the baud change');
      await t.close();
      assert.deepEqual(rec.closes, [null]);

      // A reconnect starts again from the first candidate, with fresh handlers.
      const again = recorder();
      await t.open(again.handlers);
      assert.equal(t.baudRate, 250000);
      peer.port.write('ok\n');
      await waitFor(() => again.lines.length === 1, 'a line after reopening');
      assert.deepEqual(rec.lines, []);
      await t.close();
      assert.deepEqual(again.closes, [null]);
      assert.deepEqual(rec.closes, [null]);
      await peer.close();
    });

    test('a 1 MB burst each way arrives intact and in order, with write backpressure honoured', async (ctx) => {
      const peer = await openPeer(pair.devicePath);
      const t = new Serial({ path: pair.hostPath, baudCandidates: [250000] });
      ctx.after(() => Promise.all([t.close(), peer.close()]));
      const rec = recorder();
      await t.open(rec.handlers);

      const lineFor = (i: number): string => `N${i} G1 X${(i % 200).toFixed(3)} Y${((i * 7) % 200).toFixed(3)} E${(i / 1000).toFixed(5)}*${i % 256}\n`;
      const lines: string[] = [];
      let bytes = 0;
      for (let i = 0; bytes < 1024 * 1024; i++) {
        lines.push(lineFor(i));
        bytes += lines[i]!.length;
      }
      const expected = lines.join('');

      // Host to printer: stop at every false and resume on onDrain, the way a session streams.
      let falses = 0;
      for (let i = 0; i < lines.length; i++) {
        if (!t.write(lines[i]!)) {
          falses++;
          const seen = rec.drains();
          await waitFor(() => rec.drains() > seen, 'onDrain');
        }
      }
      assert.ok(falses > 0, 'write() reported backpressure at least once');
      await waitFor(() => peer.received().length >= expected.length, 'the whole burst at the peer');
      assert.equal(peer.received().length, expected.length);
      assert.ok(peer.received().equals(Buffer.from(expected)), 'peer bytes equal the burst, in order');

      // Printer to host, CRLF-terminated as Marlin does.
      const reply = lines.map((l) => `echo:${l.slice(0, -1)}\r\n`).join('');
      peer.port.write(reply);
      await waitFor(() => rec.lines.length >= lines.length, 'every line at the host');
      assert.equal(rec.lines.length, lines.length);
      for (let i = 0; i < lines.length; i++) {
        if (rec.lines[i] !== `echo:${lines[i]!.slice(0, -1)}`) assert.fail(`line ${i} differs: ${rec.lines[i]}`);
      }
      await t.close();
      await peer.close();
    });

    test('bytes written past a false are queued in order, none dropped or reordered', async (ctx) => {
      const peer = await openPeer(pair.devicePath);
      const t = new Serial({ path: pair.hostPath, baudCandidates: [250000] });
      ctx.after(() => Promise.all([t.close(), peer.close()]));
      const rec = recorder();
      await t.open(rec.handlers);
      // 256 KiB in one go without waiting for onDrain: the tty's buffer fills and the rest must wait in the transport.
      const chunks = Array.from({ length: 4096 }, (_, i) => `N${i} G1 X${i % 200} Y${(i * 7) % 200} E${(i / 1000).toFixed(4)} ; ${'x'.repeat(20)}\n`);
      const results = chunks.map((c) => t.write(c));
      assert.ok(results.includes(false), 'the burst outran the tty');
      const expected = chunks.join('');
      await waitFor(() => peer.received().length >= expected.length, 'the whole burst at the peer');
      assert.ok(peer.received().equals(Buffer.from(expected)), 'peer bytes equal the burst, in order');
      await waitFor(() => rec.drains() > 0, 'onDrain once the queue emptied');
      await t.close();
      await peer.close();
    });

    test('a second open of a port in use is refused clearly', async (ctx) => {
      const first = new Serial({ path: pair.hostPath, baudCandidates: [115200] });
      const second = new Serial({ path: pair.hostPath, baudCandidates: [115200] });
      ctx.after(() => Promise.all([first.close(), second.close()]));
      await first.open(recorder().handlers);
      await assert.rejects(second.open(recorder().handlers), /cannot open serial port .*: port is in use by another program/);
      await first.close();
    });
  });

  describe(`${name}: missing device and pulled cable`, { skip }, () => {
    test('open() of a missing device rejects with a clear message', async () => {
      const t = new Serial({ path: '/dev/ttyACM-printfarm-missing', baudCandidates: [250000] });
      const rec = recorder();
      await assert.rejects(t.open(rec.handlers), {
        message: 'cannot open serial port /dev/ttyACM-printfarm-missing: no such device (unplugged, or a wrong path?)',
      });
      await t.close();
      assert.deepEqual(rec.closes, []);
      assert.throws(() => t.write('M105\n'), /not open/);
    });

    test('killing socat mid-stream reports onClose(error) exactly once', async (ctx) => {
      const pair = await createPtyPair();
      try {
        const peer = await openPeer(pair.devicePath);
        const t = new Serial({ path: pair.hostPath, baudCandidates: [250000] });
        ctx.after(() => Promise.all([t.close(), peer.close()]));
        const rec = recorder();
        await t.open(rec.handlers);
        // Traffic in both directions when the cable goes.
        const stream = setInterval(() => {
          peer.port.write('ok T:210.0 /210.0\n');
          t.write('N5 G1 X10 Y10*99\n');
        }, 2);
        ctx.after(() => clearInterval(stream));
        await waitFor(() => rec.lines.length > 20, 'lines flowing');
        pair.process.kill('SIGKILL');
        await waitFor(() => rec.closes.length > 0, 'onClose');
        clearInterval(stream);
        assert.equal(t.write('M105\n'), false, 'a lost link takes no more bytes');
        await sleep(200);
        await t.close();
        await t.close();
        assert.equal(rec.closes.length, 1);
        assert.ok(rec.closes[0] instanceof Error);
        assert.match(rec.closes[0].message, /^link lost: device disconnected \(.*host\)$/);
        assert.throws(() => t.write('M105\n'), /not open/);
        assert.ok(rec.lines.every((l) => l === 'ok T:210.0 /210.0'), 'no torn lines delivered');
        await peer.close();
      } finally {
        await pair.close();
      }
    });
  });
}
