// Which free printer a job takes when several fit: the one the fewest queued jobs could use, then the lowest id.
import type { SchedulerPrinter } from './scheduler-types.js';
import type { Eligibility } from './job-matcher.js';

/**
 * rank[i] is printer i's place in that order (lower is taken first). Preferring the least wanted printer keeps the
 * only printer with a rare material (or nozzle, or group) free for the job that needs it, when a job that could
 * print anywhere comes first in the queue. The id breaks ties, so the input order never changes a decision.
 */
export function preferenceRanks(printers: readonly SchedulerPrinter[], eligibility: readonly Eligibility[]): Int32Array {
  const demand = new Int32Array(printers.length);
  for (const e of eligibility) for (const i of e.printers) demand[i]! += 1;
  const order = printers.map((_, i) => i);
  order.sort((a, b) => demand[a]! - demand[b]! || compareIds(printers[a]!.id, printers[b]!.id));
  const rank = new Int32Array(printers.length);
  order.forEach((printerIndex, place) => {
    rank[printerIndex] = place;
  });
  return rank;
}

/** Code-unit order, not localeCompare: the same on every machine and in every locale. */
export const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
