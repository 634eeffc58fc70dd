// The farm's timeline: which queued job starts on which printer and when, from estimated durations (pure).
import { createJobMatcher } from './job-matcher.js';
import { preferenceRanks } from './printer-preference.js';
import { classifyPrinter } from './printer-state.js';
import { queueOrder } from './queue-order.js';
import type { Forecast, ForecastEntry, ForecastInput, ForecastOptions, ForecastUnplaced, SchedulerJob } from './scheduler-types.js';

/** Duration assumed for a job the slicer gave no estimate for (and for a current print of unknown remaining time). */
export const DEFAULT_JOB_DURATION_S = 3600;

/**
 * Plays decide() forward in time. At each moment printers become free, the queue is walked in order and each job
 * takes the free printer it fits that decide() would choose; that printer is free again when the job's estimated
 * duration (plus the changeover) has passed. Offline printers, and printers held for refused starts, take nothing. Not
 * modelled: the power budget (heat-ups last minutes, prints hours), spools running down, jobs created later, prints
 * failing.
 */
export function forecast(input: ForecastInput, options: ForecastOptions = {}): Forecast {
  const defaultMs = (options.default_duration_s ?? DEFAULT_JOB_DURATION_S) * 1000;
  const changeoverMs = (options.changeover_s ?? 0) * 1000;
  const { printers, org, now } = input;
  const queue = queueOrder(input.jobs);
  const matcher = createJobMatcher(printers);
  const states = printers.map((p) => classifyPrinter(p, org));
  const eligibility = queue.map((job) => matcher.eligible(job));
  const rank = preferenceRanks(printers, eligibility);

  const active = new Uint8Array(printers.length);
  const freeAt = new Float64Array(printers.length);
  printers.forEach((p, i) => {
    const state = states[i]!;
    // A printer held for refused starts takes nothing until someone acts: like an offline one, no time can be promised.
    active[i] = state === 'offline' || state === 'refused' ? 0 : 1;
    if (state === 'free') freeAt[i] = now;
    else if (state === 'busy') freeAt[i] = now + remainingMs(p.current_job_remaining_s, defaultMs) + changeoverMs;
    // Not ready, cooling or clearing: assume the bed is cleared within one changeover.
    else freeAt[i] = now + changeoverMs;
  });

  const unplaced: ForecastUnplaced[] = [];
  const pending: SchedulerJob[] = [];
  queue.forEach((job, k) => {
    const { reason, printers: fitting } = eligibility[k]!;
    if (reason !== null) unplaced.push({ job_id: job.id, reason });
    else if (!fitting.some((i) => active[i] === 1)) {
      const refused = fitting.some((i) => states[i] === 'refused');
      unplaced.push({ job_id: job.id, reason: refused ? 'printer_refused' : job.printer_id !== null ? 'pinned_printer_offline' : 'no_printer_online' });
    } else pending.push(job);
  });

  const entries: ForecastEntry[] = [];
  const placed = new Uint8Array(pending.length);
  let head = 0;
  for (;;) {
    while (head < pending.length && placed[head] === 1) head++;
    const t = earliest(active, freeAt);
    if (head >= pending.length || t === Infinity) break;
    const free: number[] = [];
    active.forEach((a, i) => {
      if (a === 1 && freeAt[i] === t) free.push(i);
    });
    for (let k = head; k < pending.length && free.length > 0; k++) {
      if (placed[k] === 1) continue;
      const job = pending[k]!;
      let best = -1;
      for (const i of free) if (matcher.fits(job, i) && (best < 0 || rank[i]! < rank[best]!)) best = i;
      if (best < 0) continue;
      const known = job.estimated_duration_s !== null && job.estimated_duration_s > 0;
      const end = t + (known ? job.estimated_duration_s! * 1000 : defaultMs);
      entries.push({ job_id: job.id, printer_id: printers[best]!.id, start_at: t, end_at: end, uses_default_duration: !known });
      placed[k] = 1;
      freeAt[best] = end + changeoverMs;
      free.splice(free.indexOf(best), 1);
    }
    // Every job still pending was offered these printers and fits none of them: they take nothing more.
    for (const i of free) active[i] = 0;
  }
  return { entries, unplaced };
}

const remainingMs = (remainingS: number | null, defaultMs: number): number =>
  remainingS !== null && remainingS >= 0 ? remainingS * 1000 : defaultMs;

function earliest(active: Uint8Array, freeAt: Float64Array): number {
  let t = Infinity;
  active.forEach((a, i) => {
    if (a === 1 && freeAt[i]! < t) t = freeAt[i]!;
  });
  return t;
}
