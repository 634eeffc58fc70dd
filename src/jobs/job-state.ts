// The job state machine, in one function: every change of a job's status goes through transition().
import { invalidState } from '../errors.js';

export const JOB_STATUSES = ['queued', 'printing', 'paused', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const FINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

/** What happened to a job; `fail` carries the error the job will show. */
export type JobTrigger =
  | { type: 'start'; printerId: string }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'complete' }
  | { type: 'fail'; error: { code: string; message: string } }
  | { type: 'cancel' }
  /**
   * The printer refused the start before a line was sent: back to the queue, as if never claimed (no event); `waiting`
   * is the reason it shows at once (the scheduler's next pass may name another).
   */
  | { type: 'requeue'; waiting?: { reason: string; detail: string | null } };

/** Public event names the transitions publish (api-decisions "States"). */
export type JobEventType = 'job.started' | 'job.paused' | 'job.resumed' | 'job.completed' | 'job.failed' | 'job.cancelled';

export interface JobTransition {
  from: JobStatus;
  to: JobStatus;
  event: JobEventType | null;
  /** Columns that change with the status (timestamps are filled by the caller from its clock). */
  sets: {
    started: boolean;
    completed: boolean;
    /** Back in the queue: start time, progress and (for an unpinned job) the printer are forgotten. */
    requeued: boolean;
    error: { code: string; message: string } | null;
    printerId: string | null;
  };
}

const TABLE: Record<JobTrigger['type'], { from: readonly JobStatus[]; to: JobStatus; event: JobEventType | null }> = {
  start: { from: ['queued'], to: 'printing', event: 'job.started' },
  pause: { from: ['printing'], to: 'paused', event: 'job.paused' },
  resume: { from: ['paused'], to: 'printing', event: 'job.resumed' },
  complete: { from: ['printing'], to: 'completed', event: 'job.completed' },
  fail: { from: ['printing', 'paused'], to: 'failed', event: 'job.failed' },
  cancel: { from: ['queued', 'printing', 'paused'], to: 'cancelled', event: 'job.cancelled' },
  requeue: { from: ['printing'], to: 'queued', event: null },
};

const VERB: Record<JobTrigger['type'], string> = {
  start: 'start',
  pause: 'pause',
  resume: 'resume',
  complete: 'complete',
  fail: 'fail',
  cancel: 'cancel',
  requeue: 'requeue',
};

/** The next state for `trigger` from `from`, or 409 invalid_state saying why not. */
export function transition(jobId: string, from: JobStatus, trigger: JobTrigger): JobTransition {
  const rule = TABLE[trigger.type];
  if (!rule.from.includes(from)) {
    const hint = FINAL_STATUSES.includes(from) ? ' (it has ended)' : '';
    throw invalidState(`cannot ${VERB[trigger.type]} job ${jobId}: it is ${from}${hint}`);
  }
  return {
    from,
    to: rule.to,
    event: rule.event,
    sets: {
      started: trigger.type === 'start',
      completed: FINAL_STATUSES.includes(rule.to),
      requeued: trigger.type === 'requeue',
      error: trigger.type === 'fail' ? trigger.error : null,
      printerId: trigger.type === 'start' ? trigger.printerId : null,
    },
  };
}
