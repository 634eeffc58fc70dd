// How each firmware family the simulator imitates speaks: checksum rule, error and resend replies, ok style, banners, M115.
import type { SimProfileName } from './simulator-options.js';

export interface HeaterReport {
  hotend: number;
  hotendTarget: number;
  bed: number;
  bedTarget: number;
  hotendPower: number;
  bedPower: number;
}

export interface DialectContext {
  advancedOk: boolean;
  autoreport: boolean;
  /** Marlin built with EMERGENCY_PARSER (M115 says so in Cap:EMERGENCY_PARSER). */
  emergencyParser: boolean;
  /** Marlin built with MeatPack (Cap:MEATPACK). */
  meatpack: boolean;
}

export interface FirmwareDialect {
  /** Whether N/`*` are checked at all (Klipper ignores both). */
  checksLines: boolean;
  /** Which `*` ends the checksummed part. */
  star: 'first' | 'last';
  /** Whether the line number sequence is checked (RepRapFirmware only verifies the checksum). */
  checksSequence: boolean;
  /** What a bad line gets: resend + ok (Marlin), `rs N` (Smoothieware), nothing (RepRapFirmware). */
  onBadLine: 'resend-ok' | 'rs' | 'drop';
  /** Marlin flushes its receive buffer on a bad line; lines already read still execute. */
  discardOnError: boolean;
  /** `Error:` text lines before the resend request. */
  errorLines: boolean;
  resendLine(n: number): string;
  /** Repetier acknowledges on receipt with `ok <n>`; others after processing. */
  okOnReceipt: boolean;
  /** Repetier answers `skip <n>` for a line it already has. */
  skipDuplicates: boolean;
  /** Line numbers compared modulo 2^bits (Repetier: 16). */
  lineNumberBits: number;
  /** Marlin's emergency parser acts on M112 as the bytes arrive; the others act when the line is read. */
  emergencyParser: boolean;
  /** Klipper only honours a bare `M112` (no N, no `*`). */
  bareEmergencyOnly: boolean;
  busyLines: boolean;
  /** Repetier prints `wait` every second while idle. */
  waitWhenIdle: boolean;
  supportsAutoreport: boolean;
  eol: string;
  /** Error text for a fatal halt or a warning, in the family's style. */
  errorLine(text: string): string;
  unknownCommand(command: string): string[];
  /** The data of the M105 reply (goes after `ok `, or alone for ok-on-receipt firmware). */
  temperatures(t: HeaterReport): string;
  m115(ctx: DialectContext): string[];
  /** Klipper puts the M115 answer on the ok line itself. */
  m115InOk: boolean;
  banner(): string[];
  haltLines(reason: 'M112' | 'runaway'): string[];
  /** With software endstops on, a move past the limits is cut at the limit (Marlin family) or refused with an error. */
  softEndstops: 'clamp' | 'refuse';
  /** What the firmware prints for a refused move (ok follows, the position stays). */
  moveOutOfRange(code: string, target: { X: number; Y: number; Z: number; E: number }): string[];
  /** The M211 report, or none. */
  softEndstopReport(on: boolean, max: { X: number; Y: number; Z: number }): string[];
}

const f2 = (n: number): string => n.toFixed(2);
const f3 = (n: number): string => n.toFixed(3);

const f1 = (n: number): string => n.toFixed(1);
const marlinTemps = (t: HeaterReport): string =>
  `T:${f1(t.hotend)} /${f1(t.hotendTarget)} B:${f1(t.bed)} /${f1(t.bedTarget)} @:${t.hotendPower} B@:${t.bedPower}`;

const marlinCaps = (ctx: DialectContext): string[] => {
  const caps: Array<[string, boolean]> = [
    ['SERIAL_XON_XOFF', false],
    ['BINARY_FILE_TRANSFER', false],
    ['EEPROM', true],
    ['VOLUMETRIC', true],
    ['AUTOREPORT_POS', false],
    ['AUTOREPORT_TEMP', ctx.autoreport],
    ['PROGRESS', false],
    ['PRINT_JOB', true],
    ['AUTOLEVEL', false],
    ['RUNOUT', false],
    ['Z_PROBE', false],
    ['LEVELING_DATA', false],
    ['SOFTWARE_POWER', false],
    ['TOGGLE_LIGHTS', false],
    ['EMERGENCY_PARSER', ctx.emergencyParser],
    ['HOST_ACTION_COMMANDS', true],
    ['PROMPT_SUPPORT', false],
    ['SDCARD', false],
    ['AUTOREPORT_SD_STATUS', false],
    ['THERMAL_PROTECTION', true],
    ['ARCS', true],
    ['MEATPACK', ctx.meatpack],
    ['ADVANCED_OK', ctx.advancedOk],
  ];
  return caps.map(([name, on]) => `Cap:${name}:${on ? 1 : 0}`);
};

const marlin: FirmwareDialect = {
  checksLines: true,
  star: 'last',
  checksSequence: true,
  onBadLine: 'resend-ok',
  discardOnError: true,
  errorLines: true,
  resendLine: (n) => `Resend: ${n}`,
  okOnReceipt: false,
  skipDuplicates: false,
  lineNumberBits: 32,
  emergencyParser: true,
  bareEmergencyOnly: false,
  busyLines: true,
  waitWhenIdle: false,
  supportsAutoreport: true,
  eol: '\n',
  errorLine: (text) => `Error:${text}`,
  unknownCommand: (cmd) => [`echo:Unknown command: "${cmd}"`],
  temperatures: marlinTemps,
  m115: (ctx) => [
    'FIRMWARE_NAME:Marlin bugfix-2.1.x (virtual) SOURCE_CODE_URL:github.com/MarlinFirmware/Marlin PROTOCOL_VERSION:1.0 ' +
      'MACHINE_TYPE:Virtual Printer EXTRUDER_COUNT:1 UUID:cede2a2f-41a2-4748-9b12-c55c62f367ff',
    ...marlinCaps(ctx),
  ],
  m115InOk: false,
  banner: () => [
    'start',
    'echo:Marlin bugfix-2.1.x',
    'echo: Last Updated: 2026-01-01 | Author: (virtual printer)',
    'echo:Compiled: Jan  1 2026',
    'echo: Free Memory: 2048  PlannerBufferBytes: 1232',
    'echo:SD card ok',
  ],
  haltLines: (reason) =>
    reason === 'runaway'
      ? ['Error:Thermal Runaway, system stopped! Heater_ID: 0', 'Error:Printer halted. kill() called!']
      : ['Error:Printer halted. kill() called!'],
  // Marlin's apply_motion_limits() constrains the target to the soft endstops without a message; M211 shows them.
  softEndstops: 'clamp',
  moveOutOfRange: () => [],
  softEndstopReport: (on, max) => [
    `echo:Soft endstops: ${on ? 'ON' : 'OFF'}  Min:  X0.00 Y0.00 Z0.00   Max:  X${f2(max.X)} Y${f2(max.Y)} Z${f2(max.Z)}`,
  ],
};

const prusa: FirmwareDialect = {
  ...marlin,
  star: 'first',
  emergencyParser: false,
  m115: (ctx) => [
    'FIRMWARE_NAME:Prusa-Firmware 3.14.0 based on Marlin FIRMWARE_URL:https://github.com/prusa3d/Prusa-Firmware ' +
      'PROTOCOL_VERSION:1.0 MACHINE_TYPE:Prusa i3 MK3S EXTRUDER_COUNT:1 UUID:00000000-0000-0000-0000-000000000000',
    `Cap:AUTOREPORT_TEMP:${ctx.autoreport ? 1 : 0}`,
    'Cap:AUTOREPORT_FANS:0',
    'Cap:AUTOREPORT_POSITION:0',
    'Cap:EXTENDED_M20:1',
    'Cap:PRUSA_MMU2:0',
    `Cap:ADVANCED_OK:${ctx.advancedOk ? 1 : 0}`,
  ],
  banner: () => ['start', 'echo: 3.14.0-8180', 'echo: Free Memory: 3156  PlannerBufferBytes: 1760', 'echo:SD card ok'],
};

const smoothieware: FirmwareDialect = {
  ...marlin,
  star: 'first',
  onBadLine: 'rs',
  discardOnError: false,
  errorLines: false,
  resendLine: (n) => `rs N${n}`,
  emergencyParser: false,
  busyLines: false,
  eol: '\r\n',
  errorLine: (text) => `error:${text}`,
  unknownCommand: () => [],
  temperatures: (t) =>
    `T:${f1(t.hotend)} /${f1(t.hotendTarget)} @${t.hotendPower} B:${f1(t.bed)} /${f1(t.bedTarget)} @${t.bedPower}`,
  m115: () => [
    'FIRMWARE_NAME:Smoothieware, FIRMWARE_URL:http%3A//smoothieware.org, ' +
      'X-SOURCE_CODE_URL:https://github.com/Smoothieware/Smoothieware, FIRMWARE_VERSION:edge-virtual, ' +
      'X-FIRMWARE_BUILD_DATE:Jan  1 2026 00:00:00, X-SYSTEM_CLOCK:100MHz, X-AXES:5, X-GRBL_MODE:0, X-ARCS:1',
  ],
  banner: () => ['Smoothie', 'ok'],
  haltLines: (reason) =>
    reason === 'runaway'
      ? ['Error: MINTEMP or MAXTEMP triggered on T. Check your temperature sensors!', 'HALTED, M999 or $X to exit HALT state']
      : ['!!', 'HALTED, M999 or $X to exit HALT state'],
};

const reprapfirmware: FirmwareDialect = {
  ...marlin,
  checksSequence: false,
  onBadLine: 'drop',
  discardOnError: false,
  errorLines: false,
  emergencyParser: false,
  busyLines: false,
  supportsAutoreport: false,
  errorLine: (text) => `Error: ${text}`,
  unknownCommand: (cmd) => [`Error: ${cmd.split(' ')[0]}: Command is not supported`],
  temperatures: (t) => `T:${f1(t.hotend)} /${f1(t.hotendTarget)} B:${f1(t.bed)} /${f1(t.bedTarget)}`,
  m115: () => [
    'FIRMWARE_NAME: RepRapFirmware for Duet 3 MB6HC FIRMWARE_VERSION: 3.5.1 ELECTRONICS: Duet 3 MB6HC v1.01 ' +
      'FIRMWARE_DATE: 2026-01-01 00:00:00',
  ],
  banner: () => [],
  haltLines: (reason) =>
    reason === 'runaway' ? ['Error: Heater 1 fault: temperature rising much more slowly than the expected'] : ['Emergency stop'],
  softEndstops: 'refuse',
  moveOutOfRange: (code) => [`Error: ${code}: target position outside machine limits`],
  softEndstopReport: () => [],
};

const repetier: FirmwareDialect = {
  ...marlin,
  star: 'first',
  // Repetier prints its error text only with debug errors enabled.
  errorLines: false,
  resendLine: (n) => `Resend:${n}`,
  okOnReceipt: true,
  skipDuplicates: true,
  lineNumberBits: 16,
  emergencyParser: false,
  busyLines: false,
  waitWhenIdle: true,
  unknownCommand: (cmd) => [`Unknown command:${cmd}`],
  m115: (ctx) => [
    'FIRMWARE_NAME:Repetier_1.0.4 FIRMWARE_URL:https://github.com/repetier/Repetier-Firmware/ PROTOCOL_VERSION:1.0 ' +
      'MACHINE_TYPE:Virtual EXTRUDER_COUNT:1 REPETIER_PROTOCOL:3',
    `Cap:AUTOREPORT_TEMP:${ctx.autoreport ? 1 : 0}`,
    'Cap:EEPROM:1',
    'Cap:EMERGENCY_PARSER:0',
  ],
  banner: () => ['start', 'Info:Free RAM:3722', 'Info:SD init fail'],
};

const klipper: FirmwareDialect = {
  ...marlin,
  checksLines: false,
  checksSequence: false,
  emergencyParser: false,
  bareEmergencyOnly: true,
  busyLines: false,
  supportsAutoreport: false,
  errorLine: (text) => `!! ${text}`,
  unknownCommand: (cmd) => [`// Unknown command:"${cmd.split(' ')[0]}"`],
  temperatures: (t) => `B:${f1(t.bed)} /${f1(t.bedTarget)} T0:${f1(t.hotend)} /${f1(t.hotendTarget)}`,
  m115: () => ['FIRMWARE_NAME:Klipper FIRMWARE_VERSION:v0.12.0-virtual'],
  m115InOk: true,
  banner: () => ['// Klipper state: Ready'],
  haltLines: (reason) =>
    reason === 'runaway'
      ? ['!! Heater extruder not heating at expected rate', '// Klipper state: Shutdown']
      : ['!! Shutdown due to M112 command', '// Klipper state: Shutdown'],
  softEndstops: 'refuse',
  moveOutOfRange: (_code, t) => [`!! Move out of range: ${f3(t.X)} ${f3(t.Y)} ${f3(t.Z)} [${f3(t.E)}]`],
  softEndstopReport: () => [],
};

export const DIALECTS: Record<SimProfileName, FirmwareDialect> = {
  marlin,
  prusa,
  smoothieware,
  reprapfirmware,
  repetier,
  klipper,
};
