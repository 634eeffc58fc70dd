// The analytics period: presets (24 h, 7 d, 30 d) or custom days, turned into the from/to/interval query of /v1/analytics.
import { now as serverNow } from '../lib/clock.js';

export type Preset = '24h' | '7d' | '30d' | 'custom';
export type Interval = 'hour' | 'day' | 'week' | 'month';

export interface PeriodChoice {
  preset: Preset;
  /** Custom days as YYYY-MM-DD (both inclusive, UTC days as the API reads dates). */
  from: string;
  to: string;
  /** '' picks one from the length of the period. */
  interval: Interval | '';
}

export const PRESETS: { value: Preset; label: string }[] = [
  { value: '24h', label: 'Last 24 hours' },
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
  { value: 'custom', label: 'Custom' },
];

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const PRESET_MS: Record<Exclude<Preset, 'custom'>, number> = { '24h': DAY, '7d': 7 * DAY, '30d': 30 * DAY };

export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The query of the period (from/to as the API takes them) and its length, or a sentence saying what is wrong. */
export function periodQuery(choice: PeriodChoice, now = serverNow()): { from: string; to: string; ms: number } | { problem: string } {
  if (choice.preset !== 'custom') {
    const ms = PRESET_MS[choice.preset];
    return { from: new Date(now - ms).toISOString(), to: new Date(now).toISOString(), ms };
  }
  if (!/^\d{4}-\d{2}-\d{2}$/.test(choice.from) || !/^\d{4}-\d{2}-\d{2}$/.test(choice.to)) return { problem: 'Pick both a first and a last day.' };
  const start = Date.parse(`${choice.from}T00:00:00Z`);
  const end = Date.parse(`${choice.to}T00:00:00Z`) + DAY;
  if (Number.isNaN(start) || Number.isNaN(end)) return { problem: 'One of the days is not a real date.' };
  if (end <= start) return { problem: 'The last day must not be before the first day.' };
  // A date alone is a whole UTC day for the API: to=<last day> includes it.
  return { from: choice.from, to: choice.to, ms: end - start };
}

/** The bucket width used when none is chosen: about 24 to 100 points. */
export function autoInterval(ms: number): Interval {
  if (ms <= 3 * DAY) return 'hour';
  if (ms <= 120 * DAY) return 'day';
  if (ms <= 730 * DAY) return 'week';
  return 'month';
}

/** Buckets an interval would make, to refuse choices the API refuses (more than 1000). */
export function bucketCount(ms: number, interval: Interval): number {
  const width = interval === 'hour' ? HOUR : interval === 'day' ? DAY : interval === 'week' ? 7 * DAY : 28 * DAY;
  return Math.ceil(ms / width);
}

/** The export and the page describe the period in words: "last 7 days", "2026-03-01 to 2026-03-31". */
export function periodWords(choice: PeriodChoice): string {
  if (choice.preset === 'custom') return choice.from === choice.to ? choice.from : `${choice.from} to ${choice.to}`;
  return PRESETS.find((p) => p.value === choice.preset)?.label.toLowerCase() ?? choice.preset;
}
