// The Bambu protocol core: partial reports merged into one state, the printer's words mapped to ours, requests built.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hmsEntry, isFullReport, mergeReport, readReport } from '../../../src/protocol/bambu/bambu-report.js';
import { gcodeLine, printAction, projectFile, pushAll } from '../../../src/protocol/bambu/bambu-requests.js';
import { bambuError, bambuMeaning, failureWords } from '../../../src/protocol/bambu/bambu-status.js';

const full = {
  command: 'push_status', msg: 0, sequence_id: '7', gcode_state: 'RUNNING', mc_percent: 10, mc_remaining_time: 42,
  layer_num: 3, total_layer_num: 90, nozzle_temper: 219.5, nozzle_target_temper: 220, bed_temper: 59, bed_target_temper: 60,
  cooling_fan_speed: '15', hms: [], print_error: 0, gcode_file: 'job.gcode.3mf', subtask_name: 'job',
  ams: { ams: [{ id: '0', tray: [{ id: '0', tray_type: 'PLA', tray_color: 'FF0000FF', remain: 80 }, { id: '1', tray_type: 'PETG', tray_color: '00FF00FF', remain: -1 }] }], tray_now: '0' },
};

describe('bambu reports', () => {
  it('a P1/A1 partial report changes only the fields it names (transcript)', () => {
    let s = mergeReport({}, full, true);
    s = mergeReport(s, { command: 'push_status', msg: 1, mc_percent: 11 });
    s = mergeReport(s, { msg: 1, nozzle_temper: 220 });
    s = mergeReport(s, { msg: 1, ams: { tray_now: '1' } });
    const r = readReport(s);
    assert.equal(r.progress, 11);
    assert.equal(r.gcodeState, 'RUNNING');
    assert.deepEqual(r.temperatures, { hotend: 220, hotend_target: 220, bed: 59, bed_target: 60 });
    assert.equal(r.trays.length, 2, 'a partial ams object keeps the units it does not name');
    assert.equal((s.ams as Record<string, unknown>).tray_now, '1');
    assert.equal(s.command, undefined);
  });

  it('a full report replaces what was held', () => {
    const s = mergeReport(mergeReport({}, { ...full, chamber_temper: 30 }, true), { ...full, mc_percent: 0 }, true);
    assert.equal(readReport(s).temperatures.chamber, undefined);
    assert.equal(readReport(s).progress, 0);
  });

  it('tells full reports from partial ones', () => {
    assert.equal(isFullReport(full), true);
    assert.equal(isFullReport({ msg: 1, mc_percent: 3 }), false);
    assert.equal(isFullReport({ mc_percent: 3 }), false);
  });

  it('reads layers, fan, trays (global index, colour without alpha, unknown remain)', () => {
    const r = readReport(mergeReport({}, full, true));
    assert.equal(r.layer, 3);
    assert.equal(r.totalLayers, 90);
    assert.equal(r.remainingMinutes, 42);
    assert.equal(r.partFanPercent, 100);
    assert.deepEqual(r.trays, [
      { index: 0, type: 'PLA', color: 'FF0000', remainPercent: 80 },
      { index: 1, type: 'PETG', color: '00FF00', remainPercent: null },
    ]);
    assert.equal(r.activeTray, 0);
  });

  it('reads the tray in use: none (255), the external spool (254), a tray, nothing reported', () => {
    const table: Array<[unknown, number | null]> = [['255', null], ['254', 254], ['5', 5], [undefined, null], ['x', null]];
    for (const [now, want] of table) assert.equal(readReport({ ams: { ams: [], tray_now: now } }).activeTray, want, String(now));
  });

  it('spells HMS codes as the printer does, with module and severity', () => {
    assert.deepEqual(hmsEntry(0x07002000, 0x00020001), { code: 'HMS_0700_2000_0002_0001', severity: 'serious', module: 'AMS' });
    assert.deepEqual(hmsEntry(0x0c008000, 0x00010004), { code: 'HMS_0C00_8000_0001_0004', severity: 'fatal', module: 'camera' });
  });
});

describe('bambu states', () => {
  const table: Array<[string | null, string | null, boolean, string | null]> = [
    ['IDLE', 'idle', false, null],
    ['PREPARE', 'printing', true, null],
    ['RUNNING', 'printing', true, null],
    ['PAUSE', 'paused', true, null],
    ['FINISH', 'idle', false, 'completed'],
    ['FAILED', 'idle', false, 'failed'],
    ['INIT', null, false, null],
    [null, null, false, null],
  ];
  for (const [state, status, active, ends] of table) {
    it(`${state} → ${status}`, () => {
      const m = bambuMeaning(state);
      assert.deepEqual([m.status, m.jobActive, m.ends], [status, active, ends]);
    });
  }

  it('a fatal HMS error stops the printer; a serious one only when no print is on', () => {
    const base = readReport(mergeReport({}, full, true));
    const serious = { ...base, hms: [hmsEntry(0x07002000, 0x00020001)] };
    assert.equal(bambuError(serious), null, 'during a print a serious error pauses it (the status shows that)');
    assert.match(bambuError({ ...serious, gcodeState: 'IDLE' }) ?? '', /serious AMS error HMS_0700_2000_0002_0001/);
    assert.match(bambuError({ ...base, hms: [hmsEntry(0x03000000, 0x00010001)] }) ?? '', /fatal motion controller error/);
    assert.equal(bambuError(base), null);
  });

  it('a failure in words: HMS entries, else the print_error code', () => {
    const base = readReport(mergeReport({}, full, true));
    assert.match(failureWords({ ...base, printError: 0x0300400c }), /print_error 0300400C/);
    assert.match(failureWords({ ...base, hms: [hmsEntry(0x05000000, 0x00030001)] }), /common mainboard error HMS_0500_0000_0003_0001/);
  });
});

describe('bambu requests', () => {
  it('builds the documented messages', () => {
    assert.deepEqual(pushAll(1), { pushing: { sequence_id: '1', command: 'pushall' } });
    assert.deepEqual(printAction(2, 'pause'), { print: { sequence_id: '2', command: 'pause', param: '' } });
    assert.deepEqual(gcodeLine(3, 'G28'), { print: { sequence_id: '3', command: 'gcode_line', param: 'G28\n' } });
    const p = projectFile(4, { fileName: 'j1.gcode.3mf', plate: 2, taskName: 'j1', useAms: true, amsMapping: [1, 0], bedLevelling: true, timelapse: false }).print!;
    assert.equal(p.command, 'project_file');
    assert.equal(p.param, 'Metadata/plate_2.gcode');
    assert.equal(p.url, 'file:///sdcard/j1.gcode.3mf');
    assert.deepEqual(p.ams_mapping, [1, 0]);
    assert.equal(p.use_ams, true);
    assert.equal(p.bed_levelling, true);
    assert.equal(p.timelapse, false);
  });
});
