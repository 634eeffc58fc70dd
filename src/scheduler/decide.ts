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
  const refused_by = new Map<string, string>();
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
    } else if (heldByPower) {
      waiting.set(job.id, 'power_budget');
    } else {
      const held = heldBy(job, fitting, nearness, taken);
      waiting.set(job.id, held.reason);
      if (held.reason === 'printer_refused') refused_by.set(job.id, printers[held.printer]!.id);
    }
  });

  const clear_bed = printers
    .filter((_, i) => states[i] === 'clear_now')
    .map((p) => ({ printer_id: p.id }))
    .sort((a, b) => compareIds(a.printer_id, b.printer_id));
  return { starts, clear_bed, waiting, refused_by };
}

/** How near a printer is to taking a job; the reason names the nearest one's state. (A power-held printer, nearer
 *  still, is settled before heldBy() is asked.) */
const NEARNESS: Readonly<Record<PrinterAvailability, number>> = {
  offline: 0,
  // Online and idle, but it takes nothing until someone acts: nearer than a printer to bring online, farther than a print to end.
  refused: 1,
  busy: 2,
  not_ready: 3,
  cooling: 4,
  clear_now: 4,
  clearing: 4,
  // A fitting free printer reaches heldBy() only once an earlier job of this pass took it: busy from now on.
  free: 2,
};

/** The reason naming the fitting printer nearest to taking the job, and that printer (its index). */
function heldBy(job: SchedulerJob, fitting: readonly number[], nearness: Int8Array, taken: Uint8Array): { reason: WaitingReason; printer: number } {
  let nearest = 0;
  let printer = -1;
  for (const i of fitting) {
    const n = taken[i] === 1 ? NEARNESS.busy : nearness[i]!;
    if (n > nearest) {
      nearest = n;
      printer = i;
    }
    if (nearest === NEARNESS.cooling) break;
  }
  const pinned = job.printer_id !== null;
  return { reason: reasonFor(nearest, pinned), printer };
}

function reasonFor(nearest: number, pinned: boolean): WaitingReason {
  switch (nearest) {
    case 0:
      return pinned ? 'pinned_printer_offline' : 'no_printer_online';
    case 1:
      return 'printer_refused';
    case 2:
      return pinned ? 'pinned_printer_busy' : 'printers_busy';
    case 3:
      return 'printers_not_ready';
    default:
      return 'bed_clearing';
  }
}
