// forecast() tables: the farm's timeline from estimated durations, under the same matching rules as decide().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_JOB_DURATION_S, forecast } from '../../src/scheduler/forecast.js';
import type { ForecastOptions, SchedulerJob, SchedulerOrg, SchedulerPrinter } from '../../src/scheduler/scheduler-types.js';
import type { WaitingReason } from '../../src/scheduler/waiting-reasons.js';
import { job, ORG, printer, T0 } from './scheduler-fixtures.js';

interface ForecastRow {
  name: string;
  org?: Partial<SchedulerOrg>;
  options?: ForecastOptions;
  printers: SchedulerPrinter[];
  jobs: SchedulerJob[];
  /** [job, printer, start, end] in minutes after now; a trailing '*' on the job id: the default duration was used. */
  entries?: Array<[string, string, number, number]>;
  unplaced?: Record<string, WaitingReason>;
}

const h = (hours: number): number => hours * 3600;

const rows: ForecastRow[] = [
  {
    name: 'two free printers: each takes a job now, the third follows on the first to finish',
    printers: [printer('p1'), printer('p2')],
    jobs: [job('a', { duration: h(1) }), job('b', { duration: h(2), at: 1 }), job('c', { duration: h(1), at: 2 })],
    entries: [['a', 'p1', 0, 60], ['b', 'p2', 0, 120], ['c', 'p1', 60, 120]],
  },
  {
    name: 'a printing printer is free when its current job ends',
    printers: [printer('p1', { status: 'printing', current_job_remaining_s: 600 })],
    jobs: [job('a', { duration: h(1) })],
    entries: [['a', 'p1', 10, 70]],
  },
  {
    name: 'unknown remaining time and a job without estimate take the default duration',
    options: { default_duration_s: 1800 },
    printers: [printer('p1', { status: 'paused' })],
    jobs: [job('a')],
    entries: [['a*', 'p1', 30, 60]],
  },
  {
    name: 'the default default is one hour',
    printers: [printer('p1')],
    jobs: [job('a')],
    entries: [['a*', 'p1', 0, DEFAULT_JOB_DURATION_S / 60]],
  },
  {
    name: 'changeover between prints, and before the first print on a printer that is not ready',
    options: { changeover_s: 300 },
    printers: [printer('p1'), printer('p2', { ready: false })],
    jobs: [job('a', { duration: h(1) }), job('b', { duration: h(1), at: 1 }), job('c', { duration: h(1), at: 2 })],
    entries: [['a', 'p1', 0, 60], ['b', 'p2', 5, 65], ['c', 'p1', 65, 125]],
  },
  {
    name: 'when printers free up, the most urgent job goes first, however young',
    printers: [printer('p1', { status: 'printing', current_job_remaining_s: 600 })],
    jobs: [job('old', { duration: h(1), at: 0 }), job('urgent', { priority: 'urgent', duration: h(1), at: 5 })],
    entries: [['urgent', 'p1', 10, 70], ['old', 'p1', 70, 130]],
  },
  {
    name: 'a pinned job waits for its printer while others take the free one',
    printers: [printer('p1'), printer('p2', { status: 'printing', current_job_remaining_s: h(2) })],
    jobs: [job('pinned', { pin: 'p2', priority: 'high', duration: h(1) }), job('any', { duration: h(1) })],
    entries: [['any', 'p1', 0, 60], ['pinned', 'p2', 120, 180]],
  },
  {
    name: 'material matching: PETG waits for the PETG printer, PLA runs on the PLA printer',
    printers: [printer('pla', { mat: 'PLA' }), printer('petg', { mat: 'PETG', status: 'printing', current_job_remaining_s: h(1) })],
    jobs: [job('p1', { mat: 'PETG', duration: h(1) }), job('p2', { mat: 'PETG', duration: h(1), at: 1 }), job('l1', { mat: 'PLA', duration: h(3), at: 2 })],
    entries: [['l1', 'pla', 0, 180], ['p1', 'petg', 60, 120], ['p2', 'petg', 120, 180]],
  },
  {
    name: 'copies of a batch spread at once',
    printers: [printer('p1'), printer('p2'), printer('p3')],
    jobs: ['c1', 'c2', 'c3', 'c4'].map((id) => job(id, { batch: 'bat', duration: h(2) })),
    entries: [['c1', 'p1', 0, 120], ['c2', 'p2', 0, 120], ['c3', 'p3', 0, 120], ['c4', 'p1', 120, 240]],
  },
  {
    name: 'offline printers take nothing; jobs only they fit are unplaced, with the reason decide() gives',
    printers: [printer('p1', { mat: 'PLA' }), printer('off', { status: 'offline', mat: 'ABS' })],
    jobs: [
      job('abs', { mat: 'ABS' }),
      job('pin-off', { pin: 'off' }),
      job('tpu', { mat: 'TPU' }),
      job('pin-gone', { pin: 'nope' }),
      job('ok', { duration: h(1), at: 1 }),
    ],
    entries: [['ok', 'p1', 0, 60]],
    unplaced: { abs: 'no_printer_online', 'pin-off': 'pinned_printer_offline', tpu: 'no_printer_with_material', 'pin-gone': 'pinned_printer_unknown' },
  },
  {
    name: 'a printer held for refused starts takes nothing; jobs only it fits are unplaced with printer_refused',
    printers: [printer('p1', { mat: 'PLA' }), printer('held', { start_refused: true, mat: 'ABS' }), printer('off', { status: 'offline', mat: 'ABS' })],
    jobs: [job('abs', { mat: 'ABS' }), job('pin-held', { pin: 'held' }), job('ok', { duration: h(1), at: 1 })],
    entries: [['ok', 'p1', 0, 60]],
    unplaced: { abs: 'printer_refused', 'pin-held': 'printer_refused' },
  },
  {
    name: 'a free printer no job fits stays out of the way',
    printers: [printer('tpu', { mat: 'TPU' }), printer('pla', { mat: 'PLA', status: 'printing', current_job_remaining_s: 60 })],
    jobs: [job('a', { mat: 'PLA', duration: h(1) }), job('b', { mat: 'PLA', duration: h(1), at: 1 })],
    entries: [['a', 'pla', 1, 61], ['b', 'pla', 61, 121]],
  },
  {
    name: 'the power budget is not modelled: heat-ups last minutes, prints hours',
    org: { power_budget_watts: 500 },
    printers: [printer('p1', { heatup_watts: 400 }), printer('p2', { heatup_watts: 400 })],
    jobs: [job('a', { duration: h(1) }), job('b', { duration: h(1) })],
    entries: [['a', 'p1', 0, 60], ['b', 'p2', 0, 60]],
  },
];

for (const row of rows) {
  test(`forecast: ${row.name}`, () => {
    const plan = forecast({ jobs: row.jobs, printers: row.printers, org: { ...ORG, ...row.org }, now: T0 }, row.options);
    const min = (ms: number): number => (ms - T0) / 60_000;
    assert.deepEqual(
      plan.entries.map((e) => [e.job_id + (e.uses_default_duration ? '*' : ''), e.printer_id, min(e.start_at), min(e.end_at)]),
      row.entries ?? [],
    );
    assert.deepEqual(Object.fromEntries(plan.unplaced.map((u) => [u.job_id, u.reason])), row.unplaced ?? {});
  });
}

test('forecast() is the same for the same input in any order, and leaves it untouched', () => {
  const printers = [printer('p2', { status: 'printing', current_job_remaining_s: 900 }), printer('p1', { mat: 'PLA' })];
  const jobs = [job('b', { at: 1, duration: 700 }), job('a', { duration: 500 }), job('c', { mat: 'PLA', at: 1 })];
  const input = { jobs, printers, org: ORG, now: T0 };
  const before = structuredClone(input);
  const plan = forecast(input);
  assert.deepEqual(input, before);
  assert.deepEqual(forecast({ ...input, jobs: [...jobs].reverse(), printers: [...printers].reverse() }), plan);
});
