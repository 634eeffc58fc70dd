// decide() tables for the bed-clear gate (ready, auto_start, clear-bed G-code) and the power budget.
import { test } from 'node:test';
import { checkDecideRow, job, printer, type DecideRow } from './scheduler-fixtures.js';

const bedRows: DecideRow[] = [
  {
    name: 'not ready, no auto_start, no clear-bed G-code: waits for a person',
    printers: [printer('p1', { ready: false })],
    jobs: [job('j1')],
    waiting: { j1: 'printers_not_ready' },
  },
  {
    name: 'auto_start makes a not-ready printer usable',
    org: { auto_start: true },
    printers: [printer('p1', { ready: false })],
    jobs: [job('j1')],
    starts: { j1: 'p1' },
  },
  {
    name: 'clear-bed G-code, bed below the threshold: clear it now, the job waits for the clear',
    printers: [printer('p1', { ready: false, has_clear_bed_gcode: true, clear_bed_temperature: 35, bed_temperature: 34.9 })],
    jobs: [job('j1')],
    clear_bed: ['p1'],
    waiting: { j1: 'bed_clearing' },
  },
  {
    name: 'clear-bed G-code, bed at the threshold: keep cooling',
    printers: [printer('p1', { ready: false, has_clear_bed_gcode: true, clear_bed_temperature: 35, bed_temperature: 35 })],
    jobs: [job('j1')],
    waiting: { j1: 'bed_clearing' },
  },
  {
    name: 'clear-bed G-code without a threshold uses 30 °C',
    printers: [
      printer('p1', { ready: false, has_clear_bed_gcode: true, bed_temperature: 29 }),
      printer('p2', { ready: false, has_clear_bed_gcode: true, bed_temperature: 31 }),
    ],
    jobs: [],
    clear_bed: ['p1'],
  },
  {
    name: 'clear-bed G-code, no bed temperature reported yet: never clear blind',
    printers: [printer('p1', { ready: false, has_clear_bed_gcode: true, clear_bed_temperature: 40 })],
    jobs: [job('j1')],
    waiting: { j1: 'bed_clearing' },
  },
  {
    name: 'a bed is cleared even when no job waits (the printer is ready for the next one)',
    printers: [printer('p2', { ready: false, has_clear_bed_gcode: true, bed_temperature: 20 }), printer('p1', { ready: false, has_clear_bed_gcode: true, bed_temperature: 20 })],
    jobs: [],
    clear_bed: ['p1', 'p2'],
  },
  {
    name: 'the clear-bed G-code runs now: not again, and no job starts there',
    printers: [printer('p1', { ready: false, has_clear_bed_gcode: true, bed_temperature: 20, clearing_bed: true })],
    jobs: [job('j1')],
    waiting: { j1: 'bed_clearing' },
  },
  {
    name: 'clear-bed G-code wins over auto_start: the part on the bed is pushed off first',
    org: { auto_start: true },
    printers: [printer('p1', { ready: false, has_clear_bed_gcode: true, bed_temperature: 20 })],
    jobs: [job('j1')],
    clear_bed: ['p1'],
    waiting: { j1: 'bed_clearing' },
  },
  {
    name: 'a ready printer with clear-bed G-code just starts',
    printers: [printer('p1', { has_clear_bed_gcode: true, bed_temperature: 60 })],
    jobs: [job('j1')],
    starts: { j1: 'p1' },
  },
  {
    name: 'a printing printer is never cleared, whatever its bed',
    printers: [printer('p1', { status: 'printing', ready: false, has_clear_bed_gcode: true, bed_temperature: 20 })],
    jobs: [],
  },
  {
    name: 'ready but offline or connecting takes nothing',
    printers: [printer('p1', { status: 'offline' }), printer('p2', { status: 'connecting' }), printer('p3', { status: 'error' })],
    jobs: [job('j1')],
    waiting: { j1: 'no_printer_online' },
  },
];

const powerRows: DecideRow[] = [
  {
    name: 'heat-ups are staggered: 3 x 800 W in a 2000 W budget start two',
    org: { power_budget_watts: 2000 },
    printers: ['p1', 'p2', 'p3'].map((id) => printer(id, { heatup_watts: 800 })),
    jobs: ['j1', 'j2', 'j3'].map((id) => job(id)),
    starts: { j1: 'p1', j2: 'p2' },
    waiting: { j3: 'power_budget' },
  },
  {
    name: 'printers heating now count against the budget',
    org: { power_budget_watts: 2000 },
    printers: [printer('hot', { status: 'printing', heating: true, heatup_watts: 1500 }), printer('p1', { heatup_watts: 800 })],
    jobs: [job('j1')],
    waiting: { j1: 'power_budget' },
  },
  {
    name: 'exactly the budget is allowed',
    org: { power_budget_watts: 2300 },
    printers: [printer('hot', { status: 'printing', heating: true, heatup_watts: 1500 }), printer('p1', { heatup_watts: 800 })],
    jobs: [job('j1')],
    starts: { j1: 'p1' },
  },
  {
    name: 'a job held by power on one printer may start on a smaller one that fits the budget',
    org: { power_budget_watts: 1000 },
    printers: [printer('big', { heatup_watts: 1200 }), printer('small', { heatup_watts: 400 })],
    jobs: [job('j1'), job('j2', { at: 1 })],
    starts: { j1: 'small' },
    waiting: { j2: 'power_budget' },
  },
  {
    name: 'a lower job may use budget a held job cannot use (backfill)',
    org: { power_budget_watts: 1000 },
    printers: [printer('big', { heatup_watts: 1200 }), printer('small', { heatup_watts: 400 })],
    jobs: [job('pinned', { pin: 'big', priority: 'urgent' }), job('j2')],
    starts: { j2: 'small' },
    waiting: { pinned: 'power_budget' },
  },
  {
    name: 'a printer of unknown draw is never held by the budget',
    org: { power_budget_watts: 100 },
    printers: [printer('hot', { status: 'printing', heating: true, heatup_watts: 900 }), printer('p1')],
    jobs: [job('j1')],
    starts: { j1: 'p1' },
  },
  {
    name: 'an idle printer already heating (a preheat) adds nothing when it starts',
    org: { power_budget_watts: 1000 },
    printers: [printer('p1', { heating: true, heatup_watts: 800 }), printer('p2', { heatup_watts: 800 })],
    jobs: [job('j1'), job('j2', { at: 1 })],
    starts: { j1: 'p1' },
    waiting: { j2: 'power_budget' },
  },
  {
    name: 'no budget: unlimited',
    printers: ['p1', 'p2', 'p3'].map((id) => printer(id, { heatup_watts: 5000 })),
    jobs: ['j1', 'j2', 'j3'].map((id) => job(id)),
    starts: { j1: 'p1', j2: 'p2', j3: 'p3' },
  },
  {
    name: 'a printer drawing more than the whole budget never starts',
    org: { power_budget_watts: 500 },
    printers: [printer('p1', { heatup_watts: 600 })],
    jobs: [job('j1')],
    waiting: { j1: 'power_budget' },
  },
];

for (const row of [...bedRows, ...powerRows]) test(row.name, () => checkDecideRow(row));
