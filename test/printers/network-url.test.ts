// Network printer URLs, one parser for every driver: kinds, default ports, the +https form, pins, and refusals.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { networkKindOf, parseNetworkUrl, printerKindOf, uploadName, withFingerprint } from '../../src/printers/network-url.js';

const PIN = 'AB:'.repeat(31) + 'AB';

test('kinds, default ports and base addresses', () => {
  const rows: Array<[string, Partial<ReturnType<typeof parseNetworkUrl>>]> = [
    ['moonraker://voron.local', { kind: 'moonraker', port: 7125, baseUrl: 'http://voron.local:7125', secure: false }],
    ['moonraker+https://voron.local', { kind: 'moonraker', port: 7130, baseUrl: 'https://voron.local:7130', secure: true }],
    ['octoprint://pi.local:5000/octo/', { kind: 'octoprint', port: 5000, baseUrl: 'http://pi.local:5000/octo' }],
    ['octoprint+https://pi.local', { kind: 'octoprint', port: 443, baseUrl: 'https://pi.local:443' }],
    ['prusalink://192.168.1.70', { kind: 'prusalink', port: 80, baseUrl: 'http://192.168.1.70:80', storage: null }],
    ['prusalink://mk4?storage=local', { kind: 'prusalink', storage: 'local' }],
    ['MOONRAKER://[fd00::5]:7125', { kind: 'moonraker', host: 'fd00::5', baseUrl: 'http://[fd00::5]:7125' }],
    ['moonraker://10.0.0.5:80', { port: 80, baseUrl: 'http://10.0.0.5:80' }],
    ['octoprint+https://pi:443/', { port: 443 }],
    ['moonraker://[fd00::5]', { port: 7125 }],
    [`prusalink+https://mk4?fingerprint=${PIN}`, { fingerprint: 'ab'.repeat(32) }],
  ];
  for (const [url, want] of rows) {
    const got = parseNetworkUrl(url);
    for (const [k, v] of Object.entries(want)) assert.deepEqual(got[k as keyof typeof got], v, `${url} ${k}`);
  }
});

test('refusals name the rule', () => {
  const bad: Array<[string, RegExp]> = [
    ['moonraker://', /a host is required|not a valid address/],
    ['moonraker://u:p@x', /credentials in api_key/],
    ['moonraker://x/path', /takes no path/],
    ['prusalink://x/path', /takes no path/],
    ['octoprint://x?fingerprint=' + 'a'.repeat(64), /use octoprint\+https/],
    ['octoprint+https://x?fingerprint=abc', /64 hex digits/],
    ['prusalink://x?storage=sd', /storage is usb or local/],
    ['moonraker://x?storage=usb', /unknown parameter "storage"/],
    ['moonraker://x#frag', /fragment/],
  ];
  for (const [url, why] of bad) assert.throws(() => parseNetworkUrl(url), why, url);
});

test('which links are network printers, and the upload name follows the content', () => {
  assert.equal(networkKindOf('serial:///dev/ttyACM0'), null);
  assert.equal(networkKindOf('tcp://10.0.0.1:23'), null);
  assert.equal(networkKindOf('octoprint+https://x'), 'octoprint');
  assert.equal(printerKindOf('sim://a'), 'serial');
  assert.equal(uploadName({ jobId: 'job_1', remoteName: 'job_1-abc.gcode' }, 'bgcode'), 'job_1-abc.bgcode');
  assert.equal(uploadName({ jobId: 'job_1', remoteName: 'job_1-abc.gcode' }, 'gcode.3mf'), 'job_1-abc.gcode.3mf');
  assert.equal(uploadName({ jobId: 'job_1', remoteName: 'job_1-abc.gcode.3mf' }, 'gcode'), 'job_1-abc.gcode');
  assert.equal(uploadName({ jobId: 'job_1' }, 'gcode'), 'job_1.gcode');
});

test('bambu://HOST?serial=SERIAL: MQTT on 8883, FTPS on 990 unless ftp_port, always TLS, a pin without +https', () => {
  const u = parseNetworkUrl('bambu://192.168.1.30?serial=01P00A000000001');
  assert.deepEqual([u.kind, u.port, u.serial, u.ftpPort, u.fingerprint], ['bambu', 8883, '01P00A000000001', 990, null]);
  const pinned = parseNetworkUrl(`bambu://127.0.0.1:18883?serial=X1C0001&ftp_port=2990&fingerprint=${PIN}`);
  assert.deepEqual([pinned.port, pinned.ftpPort, pinned.fingerprint], [18883, 2990, 'ab'.repeat(32)]);
  assert.equal(printerKindOf('bambu://p1s?serial=S1234'), 'bambu');
  assert.throws(() => parseNetworkUrl('bambu://p1s'), /needs its serial/);
  assert.throws(() => parseNetworkUrl('bambu+https://p1s?serial=S1234'), /always TLS/);
  assert.throws(() => parseNetworkUrl('bambu://p1s?serial=S1234&ftp_port=0'), /ftp_port is a port/);
  assert.throws(() => parseNetworkUrl('bambu://p1s?serial=S1234&storage=usb'), /unknown parameter "storage"/);
  for (const kind of ['moonraker', 'octoprint', 'prusalink']) assert.equal(parseNetworkUrl(`${kind}://h`).serial, null);
});

test('withFingerprint sets the pin and keeps every other part of the URL', () => {
  const fp = 'AB:'.repeat(31) + 'CD';
  const hex = 'ab'.repeat(31) + 'cd';
  assert.equal(withFingerprint('bambu://10.0.0.5?serial=01P00A1', fp), `bambu://10.0.0.5?serial=01P00A1&fingerprint=${hex}`);
  assert.equal(withFingerprint('bambu://10.0.0.5:8883?fingerprint=00&serial=S&ftp_port=990', hex), `bambu://10.0.0.5:8883?serial=S&ftp_port=990&fingerprint=${hex}`);
  assert.equal(parseNetworkUrl(withFingerprint('bambu://h?serial=01P00A000000001', fp)).fingerprint, hex);
});
