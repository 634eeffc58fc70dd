// The scheduler's pure core: queued jobs + printers + organization settings -> which job starts where, which bed to clear, why the rest wait.
import { createJobMatcher } from './job-matcher.js';
import { createPowerBudget } from './power-budget.js';
import { compareIds, preferenceRanks } from './printer-preference.js';
import { classifyPrinter, type PrinterAvailability } from './printer-state.js';
import { queueOrder } from './queue-order.js';
import type { Decisions, SchedulerInput, SchedulerJob, StartDecision } from './scheduler-types.js';
import type { WaitingReason } from './waiting-reasons.js';

/**
 * One pass over the queue in order (urgent first, oldest first): each job takes the free printer it fits that the
 * fewest queued jobs could use, within the power budget. Copies of a batch are separate jobs, so they spread over
 * all free printers that fit in the same pass. Same input, same output: nothing here reads a clock or a random source.
 */
export function decide(input: SchedulerInput): Decisions {
  const { printers, org } = input;
  const queue = queueOrder(input.jobs);
  const matcher = createJobMatcher(printers);
  const states = printers.map((p) => classifyPrinter(p, org));
  const eligibility = queue.map((job) => matcher.eligible(job));
  const rank = preferenceRanks(printers, eligibility);
  const power = createPowerBudget(printers, org);
  const taken = new Uint8Array(printers.length);
  // Read once per printer instead of once per waiting job and printer; a start raises nothing, it marks busy (below).
  const nearness = Int8Array.from(states, (s) => NEARNESS[s]);
  let freeLeft = states.filter((s) => s === 'free').length;

  const starts: StartDecision[] = [];
  const waiting = new Map<string, WaitingReason>();
  queue.forEach((job, k) => {
    const { reason, printers: fitting } = eligibility[k]!;
    if (reason !== null) {
      waiting.set(job.id, reason);
      return;
    }
    let best = -1;
    let heldByPower = false;
    if (freeLeft > 0) {
      for (const i of fitting) {
        if (states[i] !== 'free' || taken[i] === 1) continue;
        if (!power.allows(i)) {
          heldByPower = true;
          continue;
        }
        if (best < 0 || rank[i]! < rank[best]!) best = i;
      }
    }
    if (best >= 0) {
      starts.push({ job_id: job.id, printer_id: printers[best]!.id });
      taken[best] = 1;
      freeLeft -= 1;
      power.add(best);
    } else {
      waiting.set(job.id, heldByPower ? 'power_budget' : heldBy(job, fitting, nearness, taken));
    }
  });

  const clear_bed = printers
    .filter((_, i) => states[i] === 'clear_now')
    .map((p) => ({ printer_id: p.id }))
    .sort((a, b) => compareIds(a.printer_id, b.printer_id));
  return { starts, clear_bed, waiting };
}

/** How near a printer is to taking a job; the reason names the nearest one's state. (A power-held printer, nearer
 *  still, is settled before heldBy() is asked.) */
const NEARNESS: Readonly<Record<PrinterAvailability, number>> = {
  offline: 0,
  busy: 1,
  not_ready: 2,
  cooling: 3,
  clear_now: 3,
  clearing: 3,
  // A fitting free printer reaches heldBy() only once an earlier job of this pass took it: busy from now on.
  free: 1,
};

function heldBy(job: SchedulerJob, fitting: readonly number[], nearness: Int8Array, taken: Uint8Array): WaitingReason {
  let nearest = 0;
  for (const i of fitting) {
    const n = taken[i] === 1 ? NEARNESS.busy : nearness[i]!;
    if (n > nearest) nearest = n;
    if (nearest === 3) break;
  }
  const pinned = job.printer_id !== null;
  switch (nearest) {
    case 0:
      return pinned ? 'pinned_printer_offline' : 'no_printer_online';
    case 1:
      return pinned ? 'pinned_printer_busy' : 'printers_busy';
    case 2:
      return 'printers_not_ready';
    default:
      return 'bed_clearing';
  }
}
