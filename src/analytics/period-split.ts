// Pure cut of a period [from, to) into whole UTC days (or hours), which the roll-ups answer, and the cut edges around them.
import type { Window } from './period-pages.js';

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

export interface PeriodSplit {
  /** Whole units [from, to) as ISO instants; null when the period holds none. */
  whole: Window | null;
  /** The parts of the period outside `whole` (the whole period when there is no whole unit), in order. */
  edges: Window[];
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The whole `unit`s (DAY_MS or HOUR_MS, counted from the epoch, i.e. UTC) inside [from, to), and the edges around them. */
export function splitPeriod(from: string, to: string, unit: number): PeriodSplit {
  const fromMs = Date.parse(from);
  const toMs = Date.parse(to);
  const first = Math.ceil(fromMs / unit) * unit;
  const last = Math.floor(toMs / unit) * unit;
  if (first >= last) return { whole: null, edges: [{ from, to }] };
  const edges: Window[] = [];
  if (fromMs < first) edges.push({ from, to: iso(first) });
  if (last < toMs) edges.push({ from: iso(last), to });
  return { whole: { from: iso(first), to: iso(last) }, edges };
}

/** The roll-up key of a unit start: 'YYYY-MM-DD' for a day, 'YYYY-MM-DDTHH' for an hour (prefixes of ISO text). */
export const unitKey = (instant: string, unit: number): string => instant.slice(0, unit === DAY_MS ? 10 : 13);

/** Start (UTC ms) of an hour key. */
export const hourKeyMs = (key: string): number => Date.parse(`${key}:00:00.000Z`);
