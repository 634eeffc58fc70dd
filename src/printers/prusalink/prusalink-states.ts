// PrusaLink printer states (GET /api/v1/status `printer.state`) in our vocabulary: tables only, no I/O.
import type { JobOutcome, PrinterStatus } from '../printer-state.js';

export const PRUSALINK_STATES = ['IDLE', 'BUSY', 'PRINTING', 'PAUSED', 'FINISHED', 'STOPPED', 'ERROR', 'ATTENTION', 'READY', 'UNKNOWN'] as const;
export type PrusaLinkState = (typeof PRUSALINK_STATES)[number];

export interface StateMeaning {
  /** The printer's status as the farm shows it; null: this state tells nothing, the last status stands. */
  status: PrinterStatus | null;
  /** A print is on the printer (running, paused, or waiting for the operator in the middle of it). */
  jobActive: boolean;
  /** The job phase we report while jobActive. */
  phase: 'streaming' | 'paused' | null;
  /**
   * A job that was running ends this way when the printer shows this state, even without naming the job (the
   * firmware's status carries no job in FINISHED and STOPPED); null: it is not over.
   */
  ends: JobOutcome['status'] | null;
  /** A new job may be sent in this state. */
  acceptsJob: boolean;
  /** The state hides the print without ending it: a followed or external print is kept as it was, never ended. */
  holds: boolean;
}

/**
 * Why these (read against Prusa-Firmware-Buddy src/state/printer_state.cpp get_print_state/has_job and
 * lib/WUI/nhttp/status_renderer.cpp): FINISHED and STOPPED are the printer showing the last print's result (the
 * firmware's State::Finished and State::Aborted); the status then carries no job and GET /api/v1/job answers 204, so
 * the state itself says how the print ended. A new job may go in them. BUSY is the printer occupied by something that
 * is not a print (calibration, a menu action) OR a print in crash recovery / power-panic resume (CrashRecovery_*,
 * PowerPanic_acFault, PowerPanic_Resume), again with no job shown: it takes no job and ends none. ATTENTION is a
 * print waiting for the operator (filament runout, a crash check): the print is halted on the printer, so it is
 * `paused`. UNKNOWN is printer_state::to_str's answer for a state the firmware could not classify (the fall-through
 * of get_print_state; Connect's value before the first reading): it says nothing, so nothing changes on it.
 */
export const STATE_TABLE: Readonly<Record<PrusaLinkState, StateMeaning>> = Object.freeze({
  IDLE: { status: 'idle', jobActive: false, phase: null, ends: null, acceptsJob: true, holds: false },
  READY: { status: 'idle', jobActive: false, phase: null, ends: null, acceptsJob: true, holds: false },
  BUSY: { status: 'printing', jobActive: false, phase: null, ends: null, acceptsJob: false, holds: true },
  PRINTING: { status: 'printing', jobActive: true, phase: 'streaming', ends: null, acceptsJob: false, holds: false },
  PAUSED: { status: 'paused', jobActive: true, phase: 'paused', ends: null, acceptsJob: false, holds: false },
  ATTENTION: { status: 'paused', jobActive: true, phase: 'paused', ends: null, acceptsJob: false, holds: false },
  FINISHED: { status: 'idle', jobActive: false, phase: null, ends: 'completed', acceptsJob: true, holds: false },
  STOPPED: { status: 'idle', jobActive: false, phase: null, ends: 'cancelled', acceptsJob: true, holds: false },
  ERROR: { status: 'error', jobActive: false, phase: null, ends: 'failed', acceptsJob: false, holds: false },
  UNKNOWN: { status: null, jobActive: false, phase: null, ends: null, acceptsJob: false, holds: true },
});

/** The meaning of a reported state; null for a state this driver does not know (the answer is treated as garbage). */
export function stateMeaning(state: unknown): StateMeaning | null {
  return typeof state === 'string' && Object.hasOwn(STATE_TABLE, state) ? STATE_TABLE[state as PrusaLinkState] : null;
}

/**
 * How a job we followed ended when the printer no longer shows it and shows no result state either (a new job id, or
 * IDLE between two polls): finished when it had reached 100 %, stopped otherwise.
 */
export function vanishedJobEnd(lastProgress: number): JobOutcome['status'] {
  return lastProgress >= 100 ? 'completed' : 'cancelled';
}

/**
 * How a print we followed (ours or external) ends on a poll that no longer shows it running. `shownId` is the job id
 * the printer shows now (null: none, as the firmware in FINISHED/STOPPED). The result state decides when the printer
 * shows no other job; the last progress only when the print vanished without one.
 */
export function endOfPrint(meaning: StateMeaning, shownId: number | null, followedId: number | null, lastProgress: number): JobOutcome['status'] {
  const showsOther = shownId !== null && shownId !== followedId;
  return meaning.ends !== null && !showsOther ? meaning.ends : vanishedJobEnd(lastProgress);
}
