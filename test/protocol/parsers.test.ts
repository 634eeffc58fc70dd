// Pure helpers: framing vectors, the stripper, checkLine, temperature formats, M115 parsing, reply classes, motion tracking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checksum, frameLine, stripGcodeLine } from '../../src/protocol/framing.js';
import { parseTemperatures } from '../../src/protocol/temperature-parser.js';
import { parseM115 } from '../../src/protocol/firmware-info-parser.js';
import { ReplyParser } from '../../src/protocol/reply-parser.js';
import { MotionTracker, renderScriptLine } from '../../src/protocol/motion-tracker.js';
import { profileByName, profileForFirmwareName } from '../../src/printers/firmware-profiles.js';

test('framing vectors', () => {
  assert.equal(frameLine(0, 'M110 N0'), 'N0 M110 N0*125');
  assert.equal(frameLine(1, 'M115'), 'N1 M115*39');
  assert.equal(frameLine(11, 'M105'), 'N11 M105*23');
  assert.equal(checksum('N1 M115'), 39);
  assert.equal(frameLine(5, 'G28', profileByName('klipper')), 'G28');
});

test('stripper', () => {
  const cases: Array<[string, string]> = [
    ['G1 X1 Y2 ; perimeter', 'G1 X1 Y2'],
    ['  G28  \r', 'G28'],
    [';LAYER:1', ''],
    ['(whole line comment)', ''],
    ['G1 X1 (unclosed', 'G1 X1'],
    ['M117 Hello  world', 'M117 Hello  world'],
    ['', ''],
  ];
  for (const [raw, want] of cases) assert.equal(stripGcodeLine(raw), want, raw);
});

test('temperature formats of every family', () => {
  const cases: Array<[string, string, Record<string, unknown>]> = [
    ['marlin ok', 'T:210.0 /210.0 B:60.0 /60.0 @:127 B@:0', { hotend: 210, hotend_target: 210, bed: 60, bed_target: 60 }],
    ['marlin autoreport', ' T:25.3 /0.0 B:24.9 /0.0 @:0 B@:0', { hotend: 25.3, hotend_target: 0, bed: 24.9, bed_target: 0 }],
    ['marlin multi-tool', 'T:200.0 /200.0 B:60.0 /60.0 T0:200.0 /200.0 T1:25.0 /0.0 @:0 B@:0 @0:0 @1:0', { hotend: 200, hotend_target: 200, bed: 60, bed_target: 60, tools: [{ actual: 200, target: 200 }, { actual: 25, target: 0 }] }],
    ['marlin M109 wait', 'T:180.5 E:0 W:?', { hotend: 180.5 }],
    ['prusa', 'T:210.0 /210.0 B:60.0 /60.0 T0:210.0 /210.0 @:90 B@:30 P:35.1 A:28.4', { hotend: 210, hotend_target: 210, bed: 60, bed_target: 60, tools: [{ actual: 210, target: 210 }] }],
    ['rrf', 'T:210.0 /210.0 T1:20.1 /0.0 B:60.0 /60.0 C:30.0 /40.0', { hotend: 210, hotend_target: 210, bed: 60, bed_target: 60, chamber: 30, chamber_target: 40, tools: [{ actual: 0 }, { actual: 20.1, target: 0 }] }],
    ['klipper', 'B:60.0 /60.0 T0:210.1 /210.0', { bed: 60, bed_target: 60, hotend: 210.1, hotend_target: 210, tools: [{ actual: 210.1, target: 210 }] }],
    ['smoothie', 'T:21.6 /0.0 @0 B:21.3 /0.0 @0', { hotend: 21.6, hotend_target: 0, bed: 21.3, bed_target: 0 }],
    ['repetier', 'T:20.00 /0 B:21.50 /0 B@:0 @:0', { hotend: 20, hotend_target: 0, bed: 21.5, bed_target: 0 }],
    ['repetier multi', 'T0:200.00 /200 @0:10 T1:20.00 /0 @1:0 B:60.00 /60', { bed: 60, bed_target: 60, hotend: 200, hotend_target: 200, tools: [{ actual: 200, target: 200 }, { actual: 20, target: 0 }] }],
  ];
  for (const [name, line, want] of cases) assert.deepEqual(parseTemperatures(line), want, name);
  assert.equal(parseTemperatures('echo:Settings stored'), null);
});

test('M115 for each firmware family: FIRMWARE_NAME, fields, Cap lines, and the profile it selects', () => {
  const cases: Array<[string[], string, string, Record<string, boolean>]> = [
    [['FIRMWARE_NAME:Marlin bugfix-2.1.x (Sep  1 2023 12:00:00) SOURCE_CODE_URL:github.com/MarlinFirmware/Marlin PROTOCOL_VERSION:1.0 MACHINE_TYPE:3D Printer EXTRUDER_COUNT:1 UUID:cede2a2f-41a2-4748-9b12-c55c62f367ff', 'Cap:AUTOREPORT_TEMP:1', 'Cap:ADVANCED_OK:0', 'Cap:EMERGENCY_PARSER:1', 'Cap:HOST_ACTION_COMMANDS:1', 'Cap:PROMPT_SUPPORT:0'],
      'Marlin bugfix-2.1.x (Sep  1 2023 12:00:00)', 'marlin', { AUTOREPORT_TEMP: true, ADVANCED_OK: false, EMERGENCY_PARSER: true, HOST_ACTION_COMMANDS: true, PROMPT_SUPPORT: false }],
    [['FIRMWARE_NAME:Prusa-Firmware 3.13.2 based on Marlin FIRMWARE_URL:https://github.com/prusa3d/Prusa-Firmware PROTOCOL_VERSION:1.0 MACHINE_TYPE:Prusa i3 MK3S EXTRUDER_COUNT:1 UUID:00000000-0000-0000-0000-000000000000', 'Cap:AUTOREPORT_TEMP:1'],
      'Prusa-Firmware 3.13.2 based on Marlin', 'prusa', { AUTOREPORT_TEMP: true }],
    [['FIRMWARE_NAME: RepRapFirmware for Duet 2 WiFi/Ethernet FIRMWARE_VERSION: 3.4.5 ELECTRONICS: Duet WiFi 1.02 or later FIRMWARE_DATE: 2022-11-30'],
      'RepRapFirmware for Duet 2 WiFi/Ethernet', 'reprapfirmware', {}],
    [['ok FIRMWARE_NAME:Klipper FIRMWARE_VERSION:v0.12.0-85-gd785b396'], 'Klipper', 'klipper', {}],
    [['FIRMWARE_NAME:Smoothieware, FIRMWARE_URL:http%3A//smoothieware.org, X-SOURCE_CODE_URL:https://github.com/Smoothieware/Smoothieware, FIRMWARE_VERSION:edge-3332442, X-FIRMWARE_BUILD_DATE:Jan 30 2020 11:47:37, X-SYSTEM_CLOCK:100MHz, X-AXES:5'],
      'Smoothieware', 'smoothieware', {}],
    [['FIRMWARE_NAME:Repetier_1.0.4 FIRMWARE_URL:https://github.com/repetier/Repetier-Firmware/ PROTOCOL_VERSION:1.0 MACHINE_TYPE:Mendel EXTRUDER_COUNT:1 REPETIER_PROTOCOL:3', 'Cap:PROGRESS:1', 'Cap:AUTOREPORT_TEMP:0'],
      'Repetier_1.0.4', 'repetier', { PROGRESS: true, AUTOREPORT_TEMP: false }],
  ];
  for (const [lines, name, profile, caps] of cases) {
    const info = parseM115(lines)!;
    assert.equal(info.name, name);
    assert.deepEqual(info.capabilities, caps);
    assert.equal(profileForFirmwareName(info.name).name, profile, name);
  }
  const marlin = parseM115(cases[0]![0])!;
  assert.equal(marlin.fields.MACHINE_TYPE, '3D Printer');
  assert.equal(marlin.fields.PROTOCOL_VERSION, '1.0');
  const rrf = parseM115(cases[2]![0])!;
  assert.equal(rrf.fields.FIRMWARE_VERSION, '3.4.5');
  const smoothie = parseM115(cases[4]![0])!;
  assert.equal(smoothie.fields.FIRMWARE_VERSION, 'edge-3332442');
  assert.equal(smoothie.fields['X-AXES'], '5');
  assert.equal(profileForFirmwareName('SomethingElse 1.0').name, 'generic');
});

test('resend in every firmware form, with the number read strictly', () => {
  const forms: Array<[string, string, number | null, 'resend' | 'skip']> = [
    ['marlin', 'Resend: 5', 5, 'resend'],
    ['marlin', 'Resend:5', 5, 'resend'],
    ['prusa', 'Resend: 12', 12, 'resend'],
    ['smoothieware', 'rs N7', 7, 'resend'],
    ['reprapfirmware', 'rs 7', 7, 'resend'],
    ['repetier', 'Resend:65535', 65535, 'resend'],
    ['repetier', 'skip 9', 9, 'skip'],
    ['marlin', 'Resend: 5a', null, 'resend'],
    ['marlin', 'Resend: ', null, 'resend'],
  ];
  for (const [name, line, n, kind] of forms) {
    const r = new ReplyParser(profileByName(name)).parse(line);
    assert.equal(r.kind, kind, line);
    assert.equal((r as { lineNumber: number | null }).lineNumber, n, line);
  }
});

test('reply classes: ok forms, busy, start, actions, Klipper // and !!', () => {
  const m = new ReplyParser(profileByName('marlin'));
  assert.deepEqual(m.parse('ok N12 P15 B3'), { kind: 'ok', lineNumber: 12, freeSlots: 3, plannerFree: 15, data: '' });
  assert.deepEqual(m.parse('ok'), { kind: 'ok', lineNumber: null, freeSlots: null, plannerFree: null, data: '' });
  assert.equal(m.parse('echo:busy: processing').kind, 'busy');
  assert.equal(m.parse('start').kind, 'start');
  assert.deepEqual(m.parse('//action:prompt_begin Filament runout'), { kind: 'action', name: 'prompt_begin', argument: 'Filament runout' });
  assert.equal(m.parse('okay').kind, 'info');
  assert.equal(m.parse('Error:checksum mismatch, Last Line: 4').kind, 'protocol-error');
  const r = new ReplyParser(profileByName('repetier'));
  assert.deepEqual(r.parse('ok 42'), { kind: 'ok', lineNumber: 42, freeSlots: null, plannerFree: null, data: '' });
  const k = new ReplyParser(profileByName('klipper'));
  assert.equal(k.parse('// probe at 10,10 is z=1.2').kind, 'info');
  assert.equal(k.parse('!! Move out of range: 300.000 0.000 0.000 [0.000]').kind, 'fatal');
});

test('motion tracker: absolute/relative, G92, G28, filament total', () => {
  const m = new MotionTracker();
  for (const l of ['G28', 'G90', 'M82', 'G1 X10 Y20 Z0.2 F3000', 'G1 X20 E5', 'G1 E3 F2400', 'G1 E5', 'G92 E0', 'G91', 'G1 Z10', 'G90', 'M83', 'G1X30Y40E1.5', 'G28 X']) m.update(l);
  assert.deepEqual({ ...m.position }, { x: 0, y: 40, z: 10.2, e: 1.5, f: 2400 });
  assert.equal(m.totalExtruded, 6.5);
  assert.equal(renderScriptLine('G1 X{X} Y{Y} Z{Z} F{F}', m.position), 'G1 X0 Y40 Z10.2 F2400');
  m.update('G92');
  assert.deepEqual({ ...m.position }, { x: 0, y: 0, z: 0, e: 0, f: 2400 });
});
