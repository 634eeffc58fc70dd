// Tables: OctoPrint's states, jobs, temperatures, ends and terminal logs in our vocabulary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplyMatcher, inferEnd, mapJob, mapState, mapTemperatures, offlineReasonFor, sentCommand } from '../../../src/printers/octoprint/octoprint-state-map.js';
import { parseOctoPrintUrl } from '../../../src/printers/octoprint/octoprint-url.js';

test('state flags and texts map to status, activity and offline reason', () => {
  const rows: Array<[Parameters<typeof mapState>[0], string, string, string | null]> = [
    [{ text: 'Operational', flags: { operational: true, ready: true } }, 'idle', 'idle', null],
    [{ text: 'Printing', flags: { operational: true, printing: true } }, 'printing', 'printing', null],
    [{ text: 'Pausing', flags: { operational: true, printing: true, pausing: true } }, 'printing', 'pausing', null],
    [{ text: 'Paused', flags: { operational: true, paused: true } }, 'paused', 'paused', null],
    [{ text: 'Cancelling', flags: { operational: true, printing: true, cancelling: true } }, 'printing', 'cancelling', null],
    [{ text: 'Resuming' }, 'printing', 'resuming', null],
    [{ text: 'Finishing' }, 'printing', 'finishing', null],
    [{ text: 'Starting' }, 'printing', 'starting', null],
    [{ text: 'Offline', flags: { closedOrError: true } }, 'offline', 'none', 'printer_disconnected'],
    [{ text: 'Detecting serial connection' }, 'offline', 'none', 'printer_disconnected'],
    [{ text: 'Error', flags: { error: true, closedOrError: true }, error: 'Thermal Runaway' }, 'error', 'none', 'firmware_error'],
    [{ text: 'Offline after error' }, 'error', 'none', 'firmware_error'],
    [{ text: 'Error: Printer halted. kill() called!' }, 'error', 'none', 'firmware_error'],
    [{}, 'offline', 'none', 'printer_disconnected'],
  ];
  for (const [state, status, activity, reason] of rows) {
    const m = mapState(state);
    assert.deepEqual([m.status, m.activity, m.offlineReason], [status, activity, reason], JSON.stringify(state));
  }
  assert.equal(mapState({ text: 'Error', flags: { error: true }, error: 'Thermal Runaway' }).message, 'Thermal Runaway');
});

test('request failures map to offline reasons', () => {
  const rows = [
    ['auth', 'auth_failed'],
    ['tls', 'tls_error'],
    ['unreachable', 'unreachable'],
    ['server', 'unreachable'],
    ['garbage', 'unreachable'],
  ] as const;
  for (const [kind, reason] of rows) assert.equal(offlineReasonFor(kind), reason, kind);
});

test('job and progress: file position first, completion where there is none', () => {
  assert.equal(mapJob({ job: { file: { name: null } } }), null);
  assert.deepEqual(mapJob({ job: { file: { name: 'a.gcode', path: 'a.gcode', size: 1000 } }, progress: { filepos: 250, completion: 25, printTime: 12 } }), {
    fileName: 'a.gcode', filepos: 250, size: 1000, progress: 25, printSeconds: 12,
  });
  assert.equal(mapJob({ job: { file: { name: 'a.gcode', size: 1000 } }, progress: { filepos: 500, completion: null } })!.progress, 50);
  assert.equal(mapJob({ job: { file: { name: 'a.gcode' } }, progress: { completion: 140 } })!.progress, 100);
});

test('how a print ended when no event said so', () => {
  const idle = mapState({ text: 'Operational' });
  const err = mapState({ text: 'Error', flags: { error: true } });
  const base = { now: idle, lastActivity: 'printing' as const, cancelRequested: false, lastFilepos: 500, size: 1000, lastProgress: 50 };
  assert.equal(inferEnd(base), 'cancelled');
  assert.equal(inferEnd({ ...base, now: err }), 'failed');
  assert.equal(inferEnd({ ...base, lastFilepos: 1000 }), 'completed');
  assert.equal(inferEnd({ ...base, lastActivity: 'finishing' }), 'completed');
  assert.equal(inferEnd({ ...base, cancelRequested: true, lastFilepos: 1000 }), 'cancelled');
  assert.equal(inferEnd({ ...base, lastActivity: 'cancelling' }), 'cancelled');
});

test('temperatures from /api/printer and from the push temps list', () => {
  assert.deepEqual(mapTemperatures({ tool0: { actual: 210.5, target: 215 }, bed: { actual: 60, target: null } }), { hotend: 210.5, hotend_target: 215, bed: 60 });
  assert.deepEqual(mapTemperatures([{ time: 1, tool0: { actual: 1, target: 0 } }, { time: 2, tool0: { actual: 2, target: 0 }, tool1: { actual: 3, target: 5 } }]), {
    hotend: 2, hotend_target: 0, tools: [{ actual: 2, target: 0 }, { actual: 3, target: 5 }],
  });
  assert.equal(mapTemperatures([]), null);
  assert.equal(mapTemperatures('garbage'), null);
});

test('console replies are read from the terminal log', () => {
  assert.equal(sentCommand('Send: N12 M115*35'), 'M115');
  const log = [
    'Send: M105', 'Recv: ok T:20 /0 B:20 /0',
    'Send: N5 M115*30', 'Recv:  T:20.1 /0.0 B:20.0 /0.0', 'Recv: FIRMWARE_NAME:Marlin', 'Recv: Cap:AUTOREPORT_TEMP:1', 'Recv: ok',
  ];
  const m = new ReplyMatcher('M115');
  const replies = log.map((l) => m.feed(l)).filter((r) => r !== null);
  assert.deepEqual(replies, [{ ok: true, lines: ['FIRMWARE_NAME:Marlin', 'Cap:AUTOREPORT_TEMP:1'] }]);
  const t = new ReplyMatcher('M105');
  assert.deepEqual(['Send: M105', 'Recv: ok T:20 /0 B:20 /0'].map((l) => t.feed(l))[1], { ok: true, lines: ['T:20 /0 B:20 /0'] });
  const bad = new ReplyMatcher('G1 X999');
  assert.deepEqual(['Send: G1 X999', 'Recv: Error:out of range'].map((l) => bad.feed(l))[1], { ok: false, lines: ['Error:out of range'] });
});

test('URLs: http, https with a pinned fingerprint, and refusals', () => {
  assert.deepEqual(parseOctoPrintUrl('octoprint://pi.local:5000'), { httpBase: 'http://pi.local:5000', socketUrl: 'ws://pi.local:5000/sockjs/websocket', secure: false, fingerprint: null });
  const fp = 'ab'.repeat(32);
  const s = parseOctoPrintUrl(`octoprint+https://10.0.0.2?fingerprint=${fp.match(/../g)!.join(':')}`);
  assert.equal(s.httpBase, 'https://10.0.0.2:443');
  assert.equal(s.fingerprint, fp);
  assert.equal(parseOctoPrintUrl('octoprint://pi.local/octoprint').socketUrl, 'ws://pi.local:80/octoprint/sockjs/websocket');
  assert.throws(() => parseOctoPrintUrl('moonraker://x'));
  assert.throws(() => parseOctoPrintUrl(`octoprint://x?fingerprint=${fp}`));
  assert.throws(() => parseOctoPrintUrl('octoprint+https://x?fingerprint=abc'));
});
