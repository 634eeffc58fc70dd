// The queue's order: urgent > high > normal > low, then oldest first, then id, so equal inputs give equal decisions.
import { compareIds } from './printer-preference.js';
import type { JobPriority, SchedulerJob } from './scheduler-types.js';

const PRIORITY_RANK: Readonly<Record<JobPriority, number>> = { urgent: 0, high: 1, normal: 2, low: 3 };

export const compareQueued = (a: SchedulerJob, b: SchedulerJob): number =>
  PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] || a.created_at - b.created_at || compareIds(a.id, b.id);

/** A sorted copy; the input is not touched. */
export const queueOrder = (jobs: readonly SchedulerJob[]): SchedulerJob[] => [...jobs].sort(compareQueued);
