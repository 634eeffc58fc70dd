// The job and forecast shapes the dashboard reads from /v1/jobs and /v1/queue/forecast, and the priority ladder.

export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const PRIORITY_WORDS: Record<Priority, string> = { low: 'Low', normal: 'Normal', high: 'High', urgent: 'Urgent' };

export type JobStatus = 'queued' | 'printing' | 'paused' | 'completed' | 'failed' | 'cancelled';

/** A job as GET /v1/jobs/:id shows it (the fields the pages use). */
export interface Job {
  id: string;
  name: string;
  status: JobStatus;
  priority: Priority;
  printer_id: string | null;
  progress: number;
  file_id?: string;
  estimated_duration: number | null;
  elapsed_time: number;
  estimated_remaining: number | null;
  material: { type: string | null; color: string | null; estimated_usage: number | null; used?: Record<string, number> | null };
  cost?: number | null;
  nozzle_diameter: number | null;
  group: string | null;
  tags: string[];
  batch_id: string | null;
  waiting_reason: string | null;
  error: { code: string; message: string } | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  updated_at: string;
}

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
