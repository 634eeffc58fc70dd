// Pure parts of the metrics: the streaming rate, heater names, the queue's longest wait, and the exposition reader the
// HTTP tests rely on (it must refuse what a scraper would refuse, or those tests could not fail).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { oldestWaitSeconds } from '../../src/metrics/farm-metrics.js';
import { heaterReadings, streamingRate } from '../../src/metrics/printer-metrics.js';
import type { JobSnapshot, PrinterSnapshot } from '../../src/printers/printer-state.js';
import { parseExposition, valueOf } from './exposition-format.js';

const snapshot = (status: PrinterSnapshot['status'], job: Partial<JobSnapshot> | null): Pick<PrinterSnapshot, 'status' | 'job'> => ({
  status,
  job: job === null ? null : ({ lines_acked: 0, elapsed_ms: 0, ...job } as JobSnapshot),
});

describe('streaming rate', () => {
  const cases: Array<[string, Pick<PrinterSnapshot, 'status' | 'job'>, number]> = [
    ['printing: acknowledged lines per second of printing', snapshot('printing', { lines_acked: 5000, elapsed_ms: 10_000 }), 500],
    ['printing under a second: not measured yet', snapshot('printing', { lines_acked: 40, elapsed_ms: 900 }), 0],
    ['paused: streams nothing', snapshot('paused', { lines_acked: 5000, elapsed_ms: 10_000 }), 0],
    ['idle, no job', snapshot('idle', null), 0],
  ];
  for (const [what, snap, rate] of cases) {
    it(what, () => assert.equal(streamingRate({ snapshot: () => snap as PrinterSnapshot }), rate));
  }
});

describe('heater readings', () => {
  it('names every reported heater, keeps targets, skips heaters without a reading', () => {
    assert.deepEqual(
      heaterReadings({ hotend: 205.1, hotend_target: 210, bed: 59.8, chamber: undefined, tools: [{ actual: 205.1, target: 210 }, { actual: 24 }] }),
      [
        { heater: 'hotend', actual: 205.1, target: 210 },
        { heater: 'bed', actual: 59.8, target: undefined },
        { heater: 'T0', actual: 205.1, target: 210 },
        { heater: 'T1', actual: 24, target: undefined },
      ],
    );
    assert.deepEqual(heaterReadings({}), []);
  });
});

describe('queue wait', () => {
  it('is the age of the oldest queued job by the given clock, 0 for an empty queue, never negative', () => {
    const now = Date.parse('2026-01-01T10:00:00.000Z');
    assert.equal(oldestWaitSeconds('2026-01-01T09:58:30.000Z', now), 90);
    assert.equal(oldestWaitSeconds(null, now), 0);
    assert.equal(oldestWaitSeconds('2026-01-01T10:00:05.000Z', now), 0);
  });
});

describe('exposition reader', () => {
  const good = [
    '# HELP a_total Things.',
    '# TYPE a_total counter',
    'a_total{k="v",q="say \\"hi\\""} 3',
    '# TYPE h histogram',
    'h_bucket{le="+Inf"} 2',
    'h_sum 0.5',
    'h_count 2',
    '# TYPE g gauge',
    'g Nan',
    '# TYPE i gauge',
    'i -Inf',
    '',
  ].join('\n');

  it('reads families, labels (escapes included) and values; other comments are ignored', () => {
    const e = parseExposition(`# a note for people\n${good}`);
    assert.equal(e.types.get('h'), 'histogram');
    assert.equal(valueOf(e, 'a_total', { q: 'say "hi"' }), 3);
    assert.equal(valueOf(e, 'h_bucket', { le: '+Inf' }), 2);
    assert.ok(Number.isNaN(valueOf(e, 'g')));
    assert.equal(valueOf(e, 'i'), -Infinity);
  });

  const broken: Array<[string, string]> = [
    ['a sample before its TYPE', 'x 1\n'],
    ['an unknown type', '# TYPE x meter\nx 1\n'],
    ['a value that is no number', '# TYPE x gauge\nx one\n'],
    ['a value with a unit', '# TYPE x gauge\nx 12ms\n'],
    ['an unquoted label value', '# TYPE x gauge\nx{k=v} 1\n'],
    ['a label name with a dash', '# TYPE x gauge\nx{a-b="v"} 1\n'],
    ['a repeated label', '# TYPE x gauge\nx{k="a",k="b"} 1\n'],
    ['a _bucket of a gauge', '# TYPE x gauge\nx_bucket{le="1"} 1\n'],
    ['a family declared twice', '# TYPE x gauge\n# TYPE x gauge\n'],
    ['a TYPE line without a type', '# TYPE x\n'],
    ['a HELP line without a name', '# HELP\n'],
    ['no final newline', '# TYPE x gauge\nx 1'],
  ];
  for (const [what, text] of broken) it(`refuses ${what}`, () => assert.throws(() => parseExposition(text)));
});
