// Pure maths of how much of a job falls inside a period: printing seconds, and the share of its filament and cost.

export interface JobSpan {
  startedMs: number;
  /** Completion instant; null while the job still runs (then "now" ends it). */
  completedMs: number | null;
  /** Seconds the job really printed (pauses excluded), as the jobs table keeps it. */
  elapsedSeconds: number;
}

export interface Overlap {
  /** Printing seconds inside the period. */
  seconds: number;
  /** Share (0..1) of the job's whole printing that lies inside the period: scales its filament and filament cost. */
  share: number;
}

/**
 * The job's printing inside [fromMs, toMs). Wall-clock overlap of [started, completed or now] with the period, scaled by
 * elapsed / wall time so pauses count for nothing, on the assumption that pauses are spread evenly over the job. A job
 * with no recorded elapsed time counts its wall time.
 */
export function jobOverlap(job: JobSpan, fromMs: number, toMs: number, nowMs: number): Overlap {
  const end = job.completedMs ?? Math.max(job.startedMs, nowMs);
  const wall = (end - job.startedMs) / 1000;
  const inside = Math.max(0, (Math.min(end, toMs) - Math.max(job.startedMs, fromMs)) / 1000);
  if (wall <= 0) {
    // A zero-length job: all of it or nothing, by where it started.
    const within = job.startedMs >= fromMs && job.startedMs < toMs;
    return { seconds: within ? Math.max(0, job.elapsedSeconds) : 0, share: within ? 1 : 0 };
  }
  const share = Math.min(1, inside / wall);
  const printing = job.elapsedSeconds > 0 ? Math.min(job.elapsedSeconds, wall) : wall;
  return { seconds: printing * share, share };
}
