// decide() tables for waiting reasons: every code has a situation that yields it, and the precedence between them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDetail, WAITING_REASON_TEXT, WAITING_REASONS, type WaitingReason } from '../../src/scheduler/waiting-reasons.js';
import { decide } from '../../src/scheduler/decide.js';
import { checkDecideRow, job, ORG, printer, type DecideRow } from './scheduler-fixtures.js';

/** One row per code, the simplest situation that yields it. */
const oneEach: Array<DecideRow & { reason: WaitingReason }> = [
  { reason: 'pinned_printer_unknown', name: '', printers: [printer('p1')], jobs: [job('j', { pin: 'p9' })] },
  { reason: 'no_printer_for_format', name: '', printers: [printer('p1')], jobs: [job('j', { format: 'bgcode' })] },
  {
    reason: 'printer_model_mismatch',
    name: '',
    printers: [printer('p1', { formats: ['3mf'], model: 'A1' })],
    jobs: [job('j', { format: '3mf', slicedFor: 'C12' })],
  },
  { reason: 'no_printer_in_group', name: '', printers: [printer('p1')], jobs: [job('j', { group: 'g' })] },
  { reason: 'no_printer_with_material', name: '', printers: [printer('p1', { mat: 'PLA' })], jobs: [job('j', { mat: 'ABS' })] },
  { reason: 'nozzle_mismatch', name: '', printers: [printer('p1', { nozzle_diameter: 0.4 })], jobs: [job('j', { nozzle: 0.6 })] },
  { reason: 'insufficient_material', name: '', printers: [printer('p1', { mat: 'PLA@10' })], jobs: [job('j', { mat: 'PLA', usage: 10 })] },
  { reason: 'pinned_printer_offline', name: '', printers: [printer('p1', { status: 'offline' }), printer('p2')], jobs: [job('j', { pin: 'p1' })] },
  { reason: 'no_printer_online', name: '', printers: [printer('p1', { status: 'error' })], jobs: [job('j')] },
  { reason: 'printer_refused', name: '', printers: [printer('p1', { start_refused: true })], jobs: [job('j')] },
  { reason: 'pinned_printer_busy', name: '', printers: [printer('p1', { status: 'paused' }), printer('p2')], jobs: [job('j', { pin: 'p1' })] },
  { reason: 'printers_busy', name: '', printers: [printer('p1', { status: 'printing' })], jobs: [job('j')] },
  { reason: 'printers_not_ready', name: '', printers: [printer('p1', { ready: false })], jobs: [job('j')] },
  { reason: 'bed_clearing', name: '', printers: [printer('p1', { ready: false, has_clear_bed_gcode: true })], jobs: [job('j')] },
  { reason: 'power_budget', name: '', org: { power_budget_watts: 100 }, printers: [printer('p1', { heatup_watts: 200 })], jobs: [job('j')] },
];

for (const row of oneEach) {
  test(`reason ${row.reason}`, () => checkDecideRow({ ...row, name: row.reason, waiting: { j: row.reason } }));
}

test('every reason code has a row above and words for the operator', () => {
  assert.deepEqual(oneEach.map((r) => r.reason), [...WAITING_REASONS]);
  for (const code of WAITING_REASONS) {
    const text = WAITING_REASON_TEXT[code];
    assert.ok(text.label.length > 0 && text.label.length <= 30, code);
    assert.match(text.detail, /\.$/, code);
  }
  assert.deepEqual(Object.keys(WAITING_REASON_TEXT).sort(), [...WAITING_REASONS].sort());
});

/** When several things hold a job, the reason names the printer nearest to taking it. */
const precedence: DecideRow[] = [
  {
    name: 'group is checked before material',
    printers: [printer('p1', { group: 'a', mat: 'PLA' })],
    jobs: [job('j', { group: 'b', mat: 'PETG' })],
    waiting: { j: 'no_printer_in_group' },
  },
  {
    name: 'material is checked inside the group only',
    printers: [printer('p1', { group: 'a', mat: 'PLA' }), printer('p2', { group: 'b', mat: 'PETG' })],
    jobs: [job('j', { group: 'a', mat: 'PETG' })],
    waiting: { j: 'no_printer_with_material' },
  },
  {
    name: 'a fitting printer that is offline says offline, not that the material is missing',
    printers: [printer('p1', { status: 'offline', mat: 'PETG' }), printer('p2', { mat: 'PLA' })],
    jobs: [job('j', { mat: 'PETG' })],
    waiting: { j: 'no_printer_online' },
  },
  {
    name: 'busy beats offline',
    printers: [printer('p1', { status: 'offline' }), printer('p2', { status: 'printing' })],
    jobs: [job('j')],
    waiting: { j: 'printers_busy' },
  },
  {
    name: 'not ready beats busy (clearing that bed starts the job)',
    printers: [printer('p1', { status: 'printing' }), printer('p2', { ready: false })],
    jobs: [job('j')],
    waiting: { j: 'printers_not_ready' },
  },
  {
    name: 'bed clearing by itself beats a bed waiting for a person',
    printers: [printer('p1', { ready: false }), printer('p2', { ready: false, has_clear_bed_gcode: true })],
    jobs: [job('j')],
    waiting: { j: 'bed_clearing' },
  },
  {
    name: 'power beats everything: a free printer only waits for a heat-up to end',
    org: { power_budget_watts: 100 },
    printers: [printer('p1', { ready: false, has_clear_bed_gcode: true }), printer('p2', { heatup_watts: 200 })],
    jobs: [job('j')],
    waiting: { j: 'power_budget' },
  },
  {
    name: 'a printer taken by a more urgent job in the same pass counts as busy',
    printers: [printer('p1'), printer('p2', { status: 'offline' })],
    jobs: [job('first', { priority: 'high' }), job('second')],
    starts: { first: 'p1' },
    waiting: { second: 'printers_busy' },
  },
  {
    name: 'taken this pass, but a not-ready printer also fits: not ready is nearer',
    printers: [printer('p1'), printer('p2', { ready: false })],
    jobs: [job('first', { priority: 'high' }), job('second')],
    starts: { first: 'p1' },
    waiting: { second: 'printers_not_ready' },
  },
  {
    name: 'pinned and taken this pass by a more urgent job pinned to the same printer',
    printers: [printer('p1')],
    jobs: [job('first', { pin: 'p1', priority: 'high' }), job('second', { pin: 'p1' })],
    starts: { first: 'p1' },
    waiting: { second: 'pinned_printer_busy' },
  },
  {
    name: 'filament is checked after the nozzle',
    printers: [printer('p1', { mat: 'PLA@10', nozzle_diameter: 0.4 }), printer('p2', { mat: 'PLA@900', nozzle_diameter: 0.6 })],
    jobs: [job('j', { mat: 'PLA', nozzle: 0.4, usage: 100 })],
    waiting: { j: 'insufficient_material' },
  },
  {
    name: 'a printer held for refused starts takes no job, pinned or not; another free printer takes it',
    printers: [printer('p1', { start_refused: true }), printer('p2', { group: 'other' })],
    jobs: [job('pinned', { pin: 'p1', priority: 'high' }), job('any'), job('later', { at: 1 })],
    starts: { any: 'p2' },
    waiting: { pinned: 'printer_refused', later: 'printers_busy' },
  },
  {
    name: 'a refusing printer is nearer than an offline one (it is online; one retry starts the job)',
    printers: [printer('p1', { status: 'offline' }), printer('p2', { start_refused: true })],
    jobs: [job('j')],
    waiting: { j: 'printer_refused' },
  },
  {
    name: 'a print to end is nearer than a refusing printer',
    printers: [printer('p1', { start_refused: true }), printer('p2', { status: 'printing' })],
    jobs: [job('j')],
    waiting: { j: 'printers_busy' },
  },
  {
    name: 'a held printer still clears its bed (the hold only keeps jobs away)',
    printers: [printer('p1', { start_refused: true, ready: false, has_clear_bed_gcode: true, bed_temperature: 25 })],
    jobs: [job('j')],
    waiting: { j: 'bed_clearing' },
    clear_bed: ['p1'],
  },
  {
    name: 'no printers at all',
    printers: [],
    jobs: [job('j')],
    waiting: { j: 'no_printer_online' },
  },
];

for (const row of precedence) test(row.name, () => checkDecideRow(row));

test('a job held by a refusing printer names that printer (its words come from it)', () => {
  const out = decide({
    jobs: [job('j', { group: 'h' }), job('k', { group: 'g' })],
    printers: [printer('p1', { status: 'offline', group: 'h' }), printer('p2', { start_refused: true, group: 'h' }), printer('p3', { group: 'g', status: 'printing' })],
    org: ORG,
  });
  assert.deepEqual(Object.fromEntries(out.waiting), { j: 'printer_refused', k: 'printers_busy' });
  assert.deepEqual(Object.fromEntries(out.refused_by), { j: 'p2' });
});

test('a 3MF job waiting for its format or model says which in words', () => {
  assert.match(formatDetail('printer_model_mismatch', { file_format: '3mf', printer_model_id: 'C12' }) ?? '', /sliced for a Bambu Lab P1S \(C12\).*set a Bambu printer's model to P1S/);
  assert.match(formatDetail('printer_model_mismatch', { file_format: '3mf', printer_model_id: 'Q9' }) ?? '', /sliced for a Bambu Lab Q9 and/);
  assert.match(formatDetail('no_printer_for_format', { file_format: '3mf' }) ?? '', /only Bambu printers print/);
  assert.match(formatDetail('no_printer_for_format', { file_format: 'bgcode' }) ?? '', /only PrusaLink printers print/);
  assert.equal(formatDetail('printers_busy', { file_format: '3mf', printer_model_id: 'C12' }), null);
});
