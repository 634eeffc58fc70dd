// Connection URL parsing: every accepted form and every rejected one with the reason it names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { parseTransportUrl } from '../../src/transport/transport-url.js';

const good: Array<[string, Record<string, unknown>]> = [
  ['serial:///dev/ttyACM0?baud=250000', { kind: 'serial', path: '/dev/ttyACM0', baud: 250000, candidates: [250000] }],
  ['serial:///dev/ttyUSB1?baud=115200', { kind: 'serial', path: '/dev/ttyUSB1', baud: 115200, candidates: [115200] }],
  ['serial:///dev/ttyACM0', { kind: 'serial', path: '/dev/ttyACM0', baud: undefined, candidates: [250000, 115200] }],
  ['serial:///dev/ttyACM0?baud=1000000', { kind: 'serial', path: '/dev/ttyACM0', baud: 1000000, candidates: [1000000] }],
  ['serial:///dev/ttyACM0?baud=500000', { kind: 'serial', path: '/dev/ttyACM0', baud: 500000, candidates: [500000] }],
  ['SERIAL:///dev/ttyACM0', { kind: 'serial', path: '/dev/ttyACM0', baud: undefined, candidates: [250000, 115200] }],
  [
    'serial:///dev/serial/by-id/usb-Prusa_Research__prusa3d.com__Original_Prusa_i3_MK3_CZPX1234-if00',
    {
      kind: 'serial',
      path: '/dev/serial/by-id/usb-Prusa_Research__prusa3d.com__Original_Prusa_i3_MK3_CZPX1234-if00',
      baud: undefined,
      candidates: [250000, 115200],
    },
  ],
  ['serial:///dev/serial/by-id/usb-1a86_USB%20Serial-if00', { kind: 'serial', path: '/dev/serial/by-id/usb-1a86_USB Serial-if00' }],
  ['/dev/ttyACM0', { kind: 'serial', path: '/dev/ttyACM0', baud: undefined, candidates: [250000, 115200] }],
  ['  /dev/ttyUSB0  ', { kind: 'serial', path: '/dev/ttyUSB0' }],
  ['/dev/ttyUSB0?baud=115200', { kind: 'serial', path: '/dev/ttyUSB0', baud: 115200, candidates: [115200] }],
  ['tcp://192.168.1.50:23', { kind: 'tcp', host: '192.168.1.50', port: 23 }],
  ['tcp://esp3d.local:8888', { kind: 'tcp', host: 'esp3d.local', port: 8888 }],
  ['tcp://esp3d.local:8888/', { kind: 'tcp', host: 'esp3d.local', port: 8888 }],
  ['tcp://[fe80::1]:3000', { kind: 'tcp', host: 'fe80::1', port: 3000 }],
  ['sim://bench-1', { kind: 'sim', name: 'bench-1', params: {} }],
  ['sim://demo?baud=115200&noise=0.01', { kind: 'sim', name: 'demo', params: { baud: '115200', noise: '0.01' } }],
];

const bad: Array<[string, RegExp]> = [
  ['', /empty/],
  ['   ', /empty/],
  ['ttyACM0', /no scheme/],
  ['http://printer.local', /unknown scheme "http:"/],
  ['usb:///dev/ttyACM0', /unknown scheme "usb:"/],
  ['serial://dev/ttyACM0', /"dev" is read as a host.*three slashes/],
  ['serial://', /absolute device path/],
  ['serial:///', /absolute device path/],
  ['serial:///dev/', /absolute device path/],
  ['serial:///dev/ttyACM0?baud=12345', /baud "12345" is not a standard rate/],
  ['serial:///dev/ttyACM0?baud=fast', /baud "fast" is not a standard rate/],
  ['serial:///dev/ttyACM0?baud=', /baud "" is not a standard rate/],
  ['serial:///dev/ttyACM0?baud=-250000', /not a standard rate/],
  ['serial:///dev/ttyACM0?baud=250000.0', /not a standard rate/],
  ['serial:///dev/ttyACM0?baud=115200&baud=250000', /"baud" is given twice/],
  ['serial:///dev/ttyACM0?speed=115200', /unknown parameter "speed" \(known: baud\)/],
  ['serial:///dev/tty%ZZ', /bad %-escape|not a URL/],
  ['/dev/ttyACM0?baud=7', /not a standard rate/],
  ['tcp://printer.local', /missing port/],
  ['tcp://:23', /missing host|not a URL/],
  ['tcp://printer.local:0', /out of range/],
  ['tcp://printer.local:70000', /not a URL|out of range/],
  ['tcp://printer.local:23/serial', /takes no path/],
  ['tcp://user:secret@printer.local:23', /takes no credentials/],
  ['tcp://printer.local:23?timeout=5', /unknown parameter "timeout" \(this kind takes none\)/],
  ['sim://', /missing printer name/],
];

test('good connection URLs parse into their typed descriptions', () => {
  for (const [url, expected] of good) {
    const parsed = parseTransportUrl(url);
    const { candidates, ...fields } = expected;
    for (const [key, value] of Object.entries(fields)) {
      assert.deepEqual((parsed as unknown as Record<string, unknown>)[key], value, `${url}: ${key}`);
    }
    if (candidates !== undefined) {
      assert.equal(parsed.kind, 'serial');
      if (parsed.kind === 'serial') assert.deepEqual(parsed.baudCandidates(), candidates, `${url}: candidates`);
    }
    if (parsed.kind === 'sim') assert.equal(parsed.url.protocol, 'sim:');
  }
});

test('bad connection URLs are refused with a 400 naming the URL and the reason', () => {
  for (const [url, reason] of bad) {
    assert.throws(
      () => parseTransportUrl(url),
      (err: unknown) => {
        assert.ok(err instanceof AppError, `${JSON.stringify(url)} threw ${String(err)}`);
        assert.equal(err.status, 400);
        assert.equal(err.code, 'invalid_request');
        assert.match(err.message, reason, `${JSON.stringify(url)}: ${err.message}`);
        assert.ok(err.message.startsWith('invalid connection URL'), err.message);
        return true;
      },
      JSON.stringify(url),
    );
  }
});

test('the candidate list is a fresh copy each call', () => {
  const parsed = parseTransportUrl('/dev/ttyACM0');
  assert.equal(parsed.kind, 'serial');
  if (parsed.kind !== 'serial') return;
  parsed.baudCandidates().pop();
  assert.deepEqual(parsed.baudCandidates(), [250000, 115200]);
});
