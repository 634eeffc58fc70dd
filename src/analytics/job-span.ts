// Reads a job row's timing (ISO text from SQL) into the JobSpan the overlap maths takes.
import type { JobSpan } from './job-overlap.js';

export interface JobTiming {
  status: string;
  started_at: string;
  completed_at: string | null;
  elapsed_time: number;
}

/** A running job (printing, paused) ends "now"; a final job without a completion time (should not exist) is zero-length. */
export function spanOf(row: JobTiming): JobSpan {
  const startedMs = Date.parse(row.started_at);
  const running = row.status === 'printing' || row.status === 'paused';
  const completedMs = row.completed_at !== null ? Date.parse(row.completed_at) : running ? null : startedMs;
  return { startedMs, completedMs, elapsedSeconds: Number(row.elapsed_time) };
}
