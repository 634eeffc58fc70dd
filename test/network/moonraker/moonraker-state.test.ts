// Tables for the pure Moonraker mapping: Klippy states to our status and offline reasons, print endings, status merges,
// temperatures, and the connection URL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endOf, linkView, mergeStatus, printView, temperaturesOf, type KlippyState, type PrintState } from '../../../src/printers/moonraker/moonraker-state.js';
import { parseMoonrakerUrl } from '../../../src/printers/moonraker/moonraker-url.js';
import { unwrap } from '../../../src/printers/moonraker/moonraker-client.js';

test('Klippy state and print state -> status, offline reason, error', () => {
  const shutdownMsg = 'MCU \'mcu\' shutdown: Timer too close\nOnce the underlying issue is corrected, use the "FIRMWARE_RESTART" command';
  const rows: Array<[KlippyState, string, PrintState, string, string | null, string | null]> = [
    ['ready', '', 'standby', 'idle', null, null],
    ['ready', '', 'complete', 'idle', null, null],
    ['ready', '', 'cancelled', 'idle', null, null],
    ['ready', '', 'error', 'idle', null, null],
    ['ready', '', 'printing', 'printing', null, null],
    ['ready', '', 'paused', 'paused', null, null],
    ['startup', '', 'standby', 'connecting', null, null],
    ['shutdown', shutdownMsg, 'printing', 'error', 'firmware_error', "MCU 'mcu' shutdown: Timer too close"],
    ['shutdown', '', 'standby', 'error', 'firmware_error', 'Klipper is shut down'],
    ['error', 'Option "foo" is not valid in section "printer"', 'standby', 'error', 'firmware_error', 'Option "foo" is not valid in section "printer"'],
    ['disconnected', '', 'printing', 'offline', 'printer_disconnected', 'Moonraker is up but Klipper is not connected to it'],
  ];
  for (const [klippy, msg, print, status, reason, message] of rows) {
    const v = linkView(klippy, msg, print);
    assert.deepEqual([v.status, v.offline_reason, v.error?.message ?? null], [status, reason, message], `${klippy}/${print}`);
  }
});

test('how a print ended, from print_stats.state', () => {
  const rows: Array<[PrintState, string, unknown]> = [
    ['printing', '', null],
    ['paused', '', null],
    ['complete', '', { status: 'completed' }],
    ['cancelled', '', { status: 'cancelled' }],
    ['error', 'Move out of range: 300 0 0', { status: 'failed', message: 'Move out of range: 300 0 0' }],
    ['error', '', { status: 'failed', message: 'Klipper stopped the print with an error' }],
    ['standby', '', { status: 'failed', message: 'the printer dropped the print (its file was reset)' }],
  ];
  for (const [state, message, want] of rows) assert.deepEqual(endOf(state, message), want, state);
});

test('status updates merge field by field and the print view reads them', () => {
  let o = mergeStatus({}, {
    print_stats: { state: 'printing', filename: 'a.gcode', print_duration: 12.5, total_duration: 14, filament_used: 30.2, message: '' },
    virtual_sdcard: { file_position: 100, file_size: 400, progress: 0.25 },
    extruder: { temperature: 199.96, target: 200 },
  });
  o = mergeStatus(o, { virtual_sdcard: { file_position: 200, progress: 0.5 }, heater_bed: { temperature: 60.04, target: 60 } });
  o = mergeStatus(o, 'garbage');
  o = mergeStatus(o, { extruder: 7, print_stats: [1] });
  assert.deepEqual(printView(o), {
    state: 'printing', filename: 'a.gcode', message: '', filePosition: 200, fileSize: 400, progress: 50,
    printDuration: 12.5, totalDuration: 14, filamentUsed: 30.2,
  });
  assert.deepEqual(temperaturesOf(o), { hotend: 200, hotend_target: 200, bed: 60, bed_target: 60 });
  assert.deepEqual(printView({ print_stats: { state: 'nonsense' } }).state, 'standby');
  assert.deepEqual(temperaturesOf({}), {});
});

test('connection URLs', () => {
  const pin = 'AB:'.repeat(31) + 'AB';
  const rows: Array<[string, unknown]> = [
    ['moonraker://voron.local', { httpBase: 'http://voron.local:7125', wsUrl: 'ws://voron.local:7125/websocket', secure: false, fingerprint: null }],
    ['moonraker://10.0.0.5:80', { httpBase: 'http://10.0.0.5:80', wsUrl: 'ws://10.0.0.5:80/websocket', secure: false, fingerprint: null }],
    [`moonraker+https://voron.local?fingerprint=${pin}`, { httpBase: 'https://voron.local:7130', wsUrl: 'wss://voron.local:7130/websocket', secure: true, fingerprint: 'ab'.repeat(32) }],
    ['moonraker+https://voron.local:443', { httpBase: 'https://voron.local:443', wsUrl: 'wss://voron.local:443/websocket', secure: true, fingerprint: null }],
  ];
  for (const [url, want] of rows) assert.deepEqual(parseMoonrakerUrl(url), want, url);
  const bad: Array<[string, RegExp]> = [
    ['octoprint://x', /not a Moonraker URL/],
    ['moonraker://u:p@x', /credentials in api_key/],
    ['moonraker://x/api', /takes no path/],
    ['moonraker://x?fingerprint=ab', /fingerprint pins a certificate: use moonraker\+https/],
    ['moonraker+https://x?fingerprint=abc', /64 hex digits/],
    ['moonraker+https://x?key=1', /unknown parameter "key"/],
  ];
  for (const [url, why] of bad) assert.throws(() => parseMoonrakerUrl(url), why, url);
});

test('HTTP answers: the result wrapper, JSON errors, HTML and garbage', () => {
  const b = (s: string): Buffer => Buffer.from(s);
  assert.equal(unwrap('GET /x', 200, 'application/json', b('{"result":"ok"}')), 'ok');
  const rows: Array<[number, string, string, RegExp, string | null]> = [
    [401, 'application/json', '{"error":{"code":401,"message":"Unauthorized"}}', /api key was refused/, 'auth_failed'],
    [400, 'application/json', '{"error":{"code":400,"message":"Must home axis first"}}', /Must home axis first \(HTTP 400\)/, null],
    [500, 'application/json', '{"error":{"code":500,"message":"boom"}}', /boom \(HTTP 500\)/, null],
    [200, 'text/html', '<html><body>nginx</body></html>', /answered an HTML page \(HTTP 200\)/, 'unreachable'],
    [502, 'text/plain', '\u0000\u0001 garbage', /not JSON \(HTTP 502\)/, 'unreachable'],
    [200, 'application/json', '{"jsonrpc":"2.0"}', /no "result"/, 'unreachable'],
  ];
  for (const [status, type, body, msg, reason] of rows) {
    assert.throws(() => unwrap('GET /x', status, type, b(body)), (err: Error & { reason?: unknown }) => msg.test(err.message) && err.reason === reason, body);
  }
});

test('the upload answer is bare, as real Moonraker sends it (no "result" around it); a wrapped one is read too', () => {
  const b = (s: string): Buffer => Buffer.from(s);
  // The body real Moonraker (Arksine/moonraker HEAD) answered a 201 upload with, volatile values fixed.
  const real = '{"item":{"path":"job_1.gcode","root":"gcodes","modified":1700000000.5,"size":1234,"permissions":"rw"},"print_started":false,"print_queued":false,"action":"create_file"}';
  const bare = unwrap<{ item: { path: string; size: number } }>('POST /server/files/upload', 201, 'application/json', b(real), 'bare');
  assert.deepEqual([bare.item.path, bare.item.size], ['job_1.gcode', 1234]);
  const wrapped = unwrap<{ item: { path: string } }>('POST /server/files/upload', 201, 'application/json', b(`{"result":${real}}`), 'bare');
  assert.equal(wrapped.item.path, 'job_1.gcode');
  assert.throws(() => unwrap('POST /server/files/upload', 201, 'application/json', b(real)), /no "result"/, 'a wrapped endpoint still insists on result');
});
