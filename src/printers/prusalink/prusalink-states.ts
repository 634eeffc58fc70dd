// PrusaLink printer states (GET /api/v1/status `printer.state`) in our vocabulary: tables only, no I/O.
import type { JobOutcome, PrinterStatus } from '../printer-state.js';

export const PRUSALINK_STATES = ['IDLE', 'BUSY', 'PRINTING', 'PAUSED', 'FINISHED', 'STOPPED', 'ERROR', 'ATTENTION', 'READY'] as const;
export type PrusaLinkState = (typeof PRUSALINK_STATES)[number];

export interface StateMeaning {
  /** The printer's status as the farm shows it. */
  status: PrinterStatus;
  /** A print is on the printer (running, paused, or waiting for the operator in the middle of it). */
  jobActive: boolean;
  /** The job phase we report while jobActive. */
  phase: 'streaming' | 'paused' | null;
  /** A job that was running ends this way when the printer shows this state; null: it is not over. */
  ends: JobOutcome['status'] | null;
  /** A new job may be sent in this state. */
  acceptsJob: boolean;
}

/**
 * Why these: FINISHED and STOPPED are the printer showing the last print's result (the bed holds it or was stopped
 * mid-way); a new job may go in them. BUSY is the printer occupied by something that is not a print (calibration,
 * a menu action, loading filament): it takes no job, so it shows as `printing` (occupied) with neither job nor
 * external job. ATTENTION is a print waiting for the operator (filament runout, a crash check): the print is
 * halted on the printer, so it is `paused`.
 */
export const STATE_TABLE: Readonly<Record<PrusaLinkState, StateMeaning>> = Object.freeze({
  IDLE: { status: 'idle', jobActive: false, phase: null, ends: null, acceptsJob: true },
  READY: { status: 'idle', jobActive: false, phase: null, ends: null, acceptsJob: true },
  BUSY: { status: 'printing', jobActive: false, phase: null, ends: null, acceptsJob: false },
  PRINTING: { status: 'printing', jobActive: true, phase: 'streaming', ends: null, acceptsJob: false },
  PAUSED: { status: 'paused', jobActive: true, phase: 'paused', ends: null, acceptsJob: false },
  ATTENTION: { status: 'paused', jobActive: true, phase: 'paused', ends: null, acceptsJob: false },
  FINISHED: { status: 'idle', jobActive: false, phase: null, ends: 'completed', acceptsJob: true },
  STOPPED: { status: 'idle', jobActive: false, phase: null, ends: 'cancelled', acceptsJob: true },
  ERROR: { status: 'error', jobActive: false, phase: null, ends: 'failed', acceptsJob: false },
});

/** The meaning of a reported state; null for a state this driver does not know (the answer is treated as garbage). */
export function stateMeaning(state: unknown): StateMeaning | null {
  return typeof state === 'string' && Object.hasOwn(STATE_TABLE, state) ? STATE_TABLE[state as PrusaLinkState] : null;
}

/**
 * How a job we followed ended when the printer no longer shows it (the job id changed or the printer went IDLE without
 * a FINISHED/STOPPED in between, e.g. between two polls): finished when it had reached 100 %, stopped otherwise.
 */
export function vanishedJobEnd(lastProgress: number): JobOutcome['status'] {
  return lastProgress >= 100 ? 'completed' : 'cancelled';
}
