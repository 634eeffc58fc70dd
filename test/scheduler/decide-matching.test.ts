// decide() tables for matching: pin, group, material type and color, nozzle, filament left.
import { test } from 'node:test';
import { checkDecideRow, job, printer, type DecideRow } from './scheduler-fixtures.js';

const rows: DecideRow[] = [
  {
    name: 'a job without requirements takes an idle ready printer',
    printers: [printer('p1')],
    jobs: [job('j1')],
    starts: { j1: 'p1' },
  },
  {
    name: 'a pinned job takes only its printer, even when another is free',
    printers: [printer('p1'), printer('p2')],
    jobs: [job('j1', { pin: 'p2' })],
    starts: { j1: 'p2' },
  },
  {
    name: 'a pinned job whose printer is printing waits, the free printer goes to the next job',
    printers: [printer('p1', { status: 'printing' }), printer('p2')],
    jobs: [job('j1', { pin: 'p1', priority: 'urgent' }), job('j2')],
    starts: { j2: 'p2' },
    waiting: { j1: 'pinned_printer_busy' },
  },
  {
    name: 'a pin to a printer that does not exist',
    printers: [printer('p1')],
    jobs: [job('j1', { pin: 'gone' })],
    waiting: { j1: 'pinned_printer_unknown' },
  },
  {
    name: 'a binary G-code job goes to the printer that prints bgcode, a text one to any',
    printers: [printer('p1'), printer('p2', { formats: ['gcode', 'bgcode'] })],
    jobs: [job('j1', { format: 'bgcode' }), job('j2', { at: 1 })],
    starts: { j1: 'p2', j2: 'p1' },
  },
  {
    name: 'a binary G-code job pinned to a text-only printer never fits it',
    printers: [printer('p1'), printer('p2', { formats: ['gcode', 'bgcode'] })],
    jobs: [job('j1', { format: 'bgcode', pin: 'p1' })],
    waiting: { j1: 'no_printer_for_format' },
  },
  {
    name: 'format is checked before group and material: a fitting PrusaLink printer elsewhere names the group',
    printers: [printer('p1', { group: 'a' }), printer('p2', { group: 'b', formats: ['gcode', 'bgcode'] })],
    jobs: [job('j1', { format: 'bgcode', group: 'a' })],
    waiting: { j1: 'no_printer_in_group' },
  },
  {
    name: 'group restricts the job to that group',
    printers: [printer('p1', { group: 'a' }), printer('p2', { group: 'b' })],
    jobs: [job('j1', { group: 'b' })],
    starts: { j1: 'p2' },
  },
  {
    name: 'group with no printer',
    printers: [printer('p1', { group: 'a' }), printer('p2')],
    jobs: [job('j1', { group: 'c' })],
    waiting: { j1: 'no_printer_in_group' },
  },
  {
    name: 'a pinned job outside its own group cannot print',
    printers: [printer('p1', { group: 'a' })],
    jobs: [job('j1', { pin: 'p1', group: 'b' })],
    waiting: { j1: 'no_printer_in_group' },
  },
  {
    name: 'material type must be loaded; the type compares without case or spaces',
    printers: [printer('p1', { mat: 'PLA' }), printer('p2', { mat: ' petg ' })],
    jobs: [job('j1', { mat: 'PETG' })],
    starts: { j1: 'p2' },
  },
  {
    name: 'a material job fits a printer whose material is not declared (matching starts once one is)',
    printers: [printer('p1')],
    jobs: [job('j1', { mat: 'PLA' })],
    starts: { j1: 'p1' },
  },
  {
    name: 'a material job does not fit a printer with another material declared',
    printers: [printer('p1', { mat: 'PETG' })],
    jobs: [job('j1', { mat: 'PLA' })],
    waiting: { j1: 'no_printer_with_material' },
  },
  {
    name: 'a job naming no material fits any printer, loaded or not',
    printers: [printer('p1', { mat: 'TPU' })],
    jobs: [job('j1')],
    starts: { j1: 'p1' },
  },
  {
    name: 'color: the job names one, the spool must have it; a spool of unknown color does not count',
    printers: [printer('p1', { mat: 'PLA' }), printer('p2', { mat: 'PLA:Blue' }), printer('p3', { mat: 'PLA:red' })],
    jobs: [job('j1', { mat: 'PLA:RED' }), job('j2', { mat: 'PLA:green', at: 1 })],
    starts: { j1: 'p3' },
    waiting: { j2: 'no_printer_with_material' },
  },
  {
    name: 'a job naming only a type takes any color',
    printers: [printer('p1', { mat: 'PLA:red' })],
    jobs: [job('j1', { mat: 'PLA' })],
    starts: { j1: 'p1' },
  },
  {
    name: 'multi-tool: any tool holding the material fits',
    printers: [printer('p1', { mat: 'PLA:white,PVA' })],
    jobs: [job('j1', { mat: 'PVA' })],
    starts: { j1: 'p1' },
  },
  {
    name: 'nozzle must match when both are known (0.4 and 0.40 are the same)',
    printers: [printer('p1', { nozzle_diameter: 0.6 }), printer('p2', { nozzle_diameter: 0.4 })],
    jobs: [job('j1', { nozzle: 0.4 })],
    starts: { j1: 'p2' },
  },
  {
    name: 'an unknown nozzle on either side does not block',
    printers: [printer('p1')],
    jobs: [job('j1', { nozzle: 0.6 }), job('j2', { at: 1 })],
    starts: { j1: 'p1' },
    waiting: { j2: 'printers_busy' },
  },
  {
    name: 'nozzle mismatch is named only once material fits',
    printers: [printer('p1', { mat: 'PLA', nozzle_diameter: 0.6 }), printer('p2', { mat: 'PETG', nozzle_diameter: 0.4 })],
    jobs: [job('j1', { mat: 'PLA', nozzle: 0.4 })],
    waiting: { j1: 'nozzle_mismatch' },
  },
  {
    name: 'filament left: 100 g job needs 105 g; 104 g is too little, 105 g is enough',
    printers: [printer('p1', { mat: 'PLA@104' }), printer('p2', { mat: 'PLA@105' })],
    jobs: [job('j1', { mat: 'PLA', usage: 100 })],
    starts: { j1: 'p2' },
  },
  {
    name: 'the +5 % margin is exact: 7 g needs 7.35 g, and 7.35 g is enough',
    printers: [printer('p1', { mat: 'PLA@7.35' })],
    jobs: [job('j1', { mat: 'PLA', usage: 7 })],
    starts: { j1: 'p1' },
  },
  {
    name: 'every fitting spool too light',
    printers: [printer('p1', { mat: 'PLA@50' }), printer('p2', { mat: 'PETG@900' })],
    jobs: [job('j1', { mat: 'PLA', usage: 100 })],
    waiting: { j1: 'insufficient_material' },
  },
  {
    name: 'an unknown remaining weight never blocks',
    printers: [printer('p1', { mat: 'PLA' })],
    jobs: [job('j1', { mat: 'PLA', usage: 5000 })],
    starts: { j1: 'p1' },
  },
  {
    name: 'a job naming no material but with a usage estimate needs a spool (any) with enough',
    printers: [printer('p1', { mat: 'PLA@20' }), printer('p2', { mat: 'PETG@20,PLA@400' })],
    jobs: [job('j1', { usage: 300 })],
    starts: { j1: 'p2' },
  },
  {
    name: 'filament left is per job: the light job fits the light spool, the heavy one waits',
    printers: [printer('p1', { mat: 'PLA@200' })],
    jobs: [job('heavy', { mat: 'PLA', usage: 500 }), job('light', { mat: 'PLA', usage: 100, at: 1 })],
    starts: { light: 'p1' },
    waiting: { heavy: 'insufficient_material' },
  },
];

for (const row of rows) test(row.name, () => checkDecideRow(row));
