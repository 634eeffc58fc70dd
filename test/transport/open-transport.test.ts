// createTransport: each URL kind becomes the right transport with the right baud plan; bad URLs never build one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { createTransport } from '../../src/transport/open-transport.js';
import { SerialTransport } from '../../src/transport/serial.transport.js';
import { TcpTransport } from '../../src/transport/tcp.transport.js';
import type { Transport } from '../../src/transport/transport.js';

test('serial URLs build a SerialTransport with the named baud or the candidate list', () => {
  const named = createTransport('serial:///dev/ttyACM0?baud=115200');
  assert.ok(named instanceof SerialTransport);
  assert.deepEqual(named.baudCandidates, [115200]);
  assert.equal(named.description, 'serial:///dev/ttyACM0?baud=115200');

  const auto = createTransport('/dev/ttyUSB0');
  assert.ok(auto instanceof SerialTransport);
  assert.deepEqual(auto.baudCandidates, [250000, 115200]);
  assert.equal(auto.baudRate, 250000);
  assert.equal(auto.description, 'serial:///dev/ttyUSB0');
  assert.equal(typeof auto.setBaudRate, 'function');

  const custom = createTransport('/dev/ttyUSB0', { baudCandidates: [115200, 57600] });
  assert.deepEqual(custom.baudCandidates, [115200, 57600]);
  // A baud in the URL wins over the caller's candidates.
  assert.deepEqual(createTransport('/dev/ttyUSB0?baud=500000', { baudCandidates: [115200] }).baudCandidates, [500000]);
  assert.throws(() => createTransport('/dev/ttyUSB0', { baudCandidates: [] }), /at least one baud rate/);
});

test('tcp URLs build a TcpTransport; sim URLs a transport from the simulator', () => {
  const tcp = createTransport('tcp://esp3d.local:8888');
  assert.ok(tcp instanceof TcpTransport);
  assert.equal(tcp.description, 'tcp://esp3d.local:8888');
  assert.equal((tcp as Transport).baudCandidates, undefined);
  assert.equal(createTransport('tcp://[::1]:23').description, 'tcp://[::1]:23');

  const sim = createTransport('sim://bench-1');
  for (const member of ['open', 'write', 'close'] as const) assert.equal(typeof sim[member], 'function');
});

test('a bad URL throws the parser’s 400 and builds nothing', () => {
  assert.throws(() => createTransport('ftp://printer'), (err: unknown) => err instanceof AppError && /unknown scheme/.test(err.message));
});
