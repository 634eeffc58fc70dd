// Tables for the pure analytics maths: calendar buckets across DST in Europe/Berlin, job overlap with a period, CSV cells.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bucketLabel, bucketRange, bucketStart, nextBucket, type Interval } from '../../src/analytics/time-buckets.js';
import { jobOverlap } from '../../src/analytics/job-overlap.js';
import { csvCell, csvRow } from '../../src/analytics/csv-writer.js';

const ms = (iso: string): number => Date.parse(iso);
const iso = (n: number): string => new Date(n).toISOString();

describe('bucketStart', () => {
  const cases: [string, Interval, string, string][] = [
    // instant, interval, zone, expected bucket start (UTC)
    ['2026-03-29T12:00:00Z', 'day', 'Europe/Berlin', '2026-03-28T23:00:00.000Z'], // spring-forward day starts at +01:00
    ['2026-03-30T12:00:00Z', 'day', 'Europe/Berlin', '2026-03-29T22:00:00.000Z'], // next day at +02:00
    ['2026-10-25T12:00:00Z', 'day', 'Europe/Berlin', '2026-10-24T22:00:00.000Z'], // fall-back day starts at +02:00
    ['2026-03-28T23:30:00Z', 'day', 'Europe/Berlin', '2026-03-28T23:00:00.000Z'], // 00:30 local on the 29th
    ['2026-03-28T22:59:59Z', 'day', 'Europe/Berlin', '2026-03-27T23:00:00.000Z'],
    ['2026-03-29T01:30:00Z', 'hour', 'Europe/Berlin', '2026-03-29T01:00:00.000Z'], // 03:30 CEST
    ['2026-10-25T00:30:00Z', 'hour', 'Europe/Berlin', '2026-10-25T00:00:00.000Z'], // first 02:xx
    ['2026-10-25T01:30:00Z', 'hour', 'Europe/Berlin', '2026-10-25T01:00:00.000Z'], // repeated 02:xx is its own bucket
    ['2026-01-01T10:45:00Z', 'hour', 'Asia/Kolkata', '2026-01-01T10:30:00.000Z'], // half-hour zone
    ['2026-04-01T05:00:00Z', 'week', 'Europe/Berlin', '2026-03-29T22:00:00.000Z'], // Wed -> Monday 30 March 00:00 CEST
    ['2026-03-29T12:00:00Z', 'week', 'Europe/Berlin', '2026-03-22T23:00:00.000Z'], // Sunday -> Monday 23 March (CET)
    ['2026-03-31T21:59:00Z', 'month', 'Europe/Berlin', '2026-02-28T23:00:00.000Z'], // 23:59 local 31 March
    ['2026-03-31T22:00:00Z', 'month', 'Europe/Berlin', '2026-03-31T22:00:00.000Z'], // 00:00 local 1 April
    ['2026-12-31T23:59:59Z', 'month', 'UTC', '2026-12-01T00:00:00.000Z'],
    ['2026-03-08T12:00:00Z', 'day', 'America/New_York', '2026-03-08T05:00:00.000Z'], // US spring forward (23 h day)
  ];
  for (const [at, interval, tz, want] of cases) {
    it(`${interval} of ${at} in ${tz}`, () => assert.equal(iso(bucketStart(ms(at), interval, tz)), want));
  }
});

describe('bucket sequences', () => {
  it('days across both Berlin transitions are 23 and 25 hours long', () => {
    const spring = bucketStart(ms('2026-03-29T12:00:00Z'), 'day', 'Europe/Berlin');
    assert.equal((nextBucket(spring, 'day', 'Europe/Berlin') - spring) / 3_600_000, 23);
    const fall = bucketStart(ms('2026-10-25T12:00:00Z'), 'day', 'Europe/Berlin');
    assert.equal((nextBucket(fall, 'day', 'Europe/Berlin') - fall) / 3_600_000, 25);
  });

  it('the fall-back day has 25 hour buckets with distinct labels', () => {
    const from = ms('2026-10-24T22:00:00Z');
    const hours = bucketRange(from, ms('2026-10-25T23:00:00Z'), 'hour', 'Europe/Berlin', 100)!;
    assert.equal(hours.length, 25);
    const labels = hours.map((h) => bucketLabel(h, 'hour', 'Europe/Berlin'));
    assert.equal(new Set(labels).size, 25);
    assert.deepEqual(labels.slice(2, 4), ['2026-10-25T02:00+02:00', '2026-10-25T02:00+01:00']);
  });

  it('months cover a year with local labels, and a range past the cap gives null', () => {
    const months = bucketRange(ms('2026-01-15T00:00:00Z'), ms('2026-12-31T23:00:00Z'), 'month', 'Europe/Berlin', 100)!;
    assert.equal(months.length, 12);
    assert.equal(bucketLabel(months[0]!, 'month', 'Europe/Berlin'), '2026-01');
    assert.equal(bucketLabel(months[11]!, 'month', 'Europe/Berlin'), '2026-12');
    assert.equal(bucketRange(0, ms('2026-01-01T00:00:00Z'), 'hour', 'UTC', 1000), null);
  });
});

describe('jobOverlap', () => {
  const H = 3_600_000;
  const from = ms('2026-03-01T00:00:00Z');
  const to = from + 24 * H;
  const cases: [string, number, number | null, number, number, { seconds: number; share: number }][] = [
    // name, started, completed, elapsed s, now, expected
    ['inside', from + H, from + 3 * H, 7200, to, { seconds: 7200, share: 1 }],
    ['inside with a pause', from + H, from + 3 * H, 3600, to, { seconds: 3600, share: 1 }],
    ['straddles start', from - H, from + H, 7200, to, { seconds: 3600, share: 0.5 }],
    ['straddles start, paused', from - H, from + 3 * H, 7200, to, { seconds: 5400, share: 0.75 }],
    ['straddles end', to - H, to + 3 * H, 14400, to + 5 * H, { seconds: 3600, share: 0.25 }],
    ['covers the whole period', from - 12 * H, to + 12 * H, 48 * 3600, to, { seconds: 24 * 3600, share: 0.5 }],
    ['before', from - 5 * H, from - H, 3600, to, { seconds: 0, share: 0 }],
    ['after', to, to + H, 3600, to + 2 * H, { seconds: 0, share: 0 }],
    ['running until now', from + 20 * H, null, 7200, from + 22 * H, { seconds: 7200, share: 1 }],
    ['running past the period', from + 20 * H, null, 8 * 3600, from + 28 * H, { seconds: 4 * 3600, share: 0.5 }],
    ['no elapsed recorded: wall time', from + H, from + 2 * H, 0, to, { seconds: 3600, share: 1 }],
    ['zero length inside', from + H, from + H, 0, to, { seconds: 0, share: 1 }],
  ];
  for (const [name, started, completed, elapsed, now, want] of cases) {
    it(name, () => assert.deepEqual(jobOverlap({ startedMs: started, completedMs: completed, elapsedSeconds: elapsed }, from, to, now), want));
  }
});

describe('CSV', () => {
  const cells: [Parameters<typeof csvCell>[0], string][] = [
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\r\nlf', '"cr\r\nlf"'],
    ['=SUM(A1:A9)', "'=SUM(A1:A9)"],
    ['+1', "'+1"],
    ['-2+3', "'-2+3"],
    ['@cmd', "'@cmd"],
    ['\tx', "'\tx"],
    ['=HYPERLINK("http://x","y")', '"\'=HYPERLINK(""http://x"",""y"")"'],
    ['', ''],
    [null, ''],
    [undefined, ''],
    [-2.5, '-2.5'],
    [0, '0'],
    [Number.NaN, ''],
    [true, 'true'],
  ];
  for (const [value, want] of cells) it(`cell ${JSON.stringify(value)}`, () => assert.equal(csvCell(value), want));
  it('rows end with CRLF', () => assert.equal(csvRow(['a', 1, null, 'b,c']), 'a,1,,"b,c"\r\n'));
});
