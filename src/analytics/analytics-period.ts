// Turns the from / to / tz query parameters into a checked period: defaults, whole-UTC-day dates, order, zone.
import { isValidTimeZone } from '../auth/organization.service.js';
import { badRequest, quoteInput } from '../errors.js';
import { parseDateParam } from '../http/list-query.js';

export const DEFAULT_PERIOD_DAYS = 30;
const DAY_MS = 86_400_000;

export interface Period {
  from: string;
  to: string;
  fromMs: number;
  toMs: number;
}

/**
 * `to` defaults to now, `from` to DEFAULT_PERIOD_DAYS before `to`. A date alone: `from` is the start of that UTC day,
 * `to` the end of it (the whole day is in). The period is [from, to); `to` must be later than `from`.
 */
export function resolvePeriod(query: { from?: string; to?: string }, nowMs: number): Period {
  const toMs =
    query.to === undefined
      ? nowMs
      : (() => {
          const r = parseDateParam('to', query.to);
          return Date.parse(r.endExclusive ?? r.exact);
        })();
  const fromMs = query.from === undefined ? toMs - DEFAULT_PERIOD_DAYS * DAY_MS : Date.parse(parseDateParam('from', query.from).start);
  if (toMs <= fromMs) throw badRequest('query parameter to: must be later than from');
  return { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), fromMs, toMs };
}

/** The `tz` parameter, else the organization's zone; an unknown zone is a 400 naming `tz`. */
export function resolveZone(tz: string | undefined, organizationZone: string): string {
  if (tz === undefined) return organizationZone;
  if (!isValidTimeZone(tz)) throw badRequest(`query parameter tz: ${quoteInput(tz)} is not an IANA time zone (e.g. Europe/Berlin)`);
  return tz;
}
