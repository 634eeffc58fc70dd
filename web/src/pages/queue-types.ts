// The job (the server's record type) and forecast shapes the dashboard reads, and the priority ladder.

import type { JobRecord } from '../../../src/jobs/job-record.js';

/** The server's priority ladder, low to urgent (checked against the record's type). */
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const satisfies readonly JobRecord['priority'][];
export type Priority = (typeof PRIORITIES)[number];

export const PRIORITY_WORDS: Record<Priority, string> = { low: 'Low', normal: 'Normal', high: 'High', urgent: 'Urgent' };

/** A job as GET /v1/jobs/:id shows it: the server's own record type. */
export type Job = JobRecord;
export type JobStatus = JobRecord['status'];

/** The answer of POST /v1/jobs: the first job created, with the ids of all copies. */
export interface JobCreated {
  success: true;
  data: Job & { job_ids?: string[] };
}

export interface ForecastEntry {
  job_id: string;
  job_name: string;
  printer_id: string;
  start_at: string;
  end_at: string;
  uses_default_duration: boolean;
}

export interface Forecast {
  generated_at: string;
  entries: ForecastEntry[];
  unplaced: Array<{ job_id: string; job_name: string; reason: string; reason_text: string }>;
}

export const ACTIVE_STATUSES = ['printing', 'paused', 'queued'] as const;
export const FINISHED_STATUSES = ['completed', 'failed', 'cancelled'] as const;

/** One step up (towards urgent) or down (towards low), or null at the end of the ladder. */
export function priorityStep(p: Priority, direction: 1 | -1): Priority | null {
  const i = PRIORITIES.indexOf(p) + direction;
  return i >= 0 && i < PRIORITIES.length ? PRIORITIES[i]! : null;
}
