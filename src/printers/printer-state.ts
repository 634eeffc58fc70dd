// The printer session's public vocabulary: statuses, the snapshot the API layer reads, and the typed errors of its actions.
import { AppError } from '../errors.js';
import type { Temperatures } from '../protocol/protocol-types.js';

/** Status of one live link (API `status`, with `connecting` as the session's own transient state). */
export type PrinterStatus = 'connecting' | 'idle' | 'printing' | 'paused' | 'error' | 'offline';

/** Why a job stopped early: the `error.code` of job.failed. */
export type JobFailureCode =
  | 'firmware_error'
  | 'firmware_reset'
  | 'link_lost'
  | 'ok_timeout'
  | 'resend_out_of_history'
  | 'resend_invalid'
  | 'resend_storm'
  | 'file_invalid'
  | 'line_rejected'
  | 'emergency_stop'
  | 'session_closed';

export interface JobSnapshot {
  id: string;
  file_path: string;
  /** Percent 0..100 by bytes of the file acknowledged by the firmware. */
  progress: number;
  bytes_acked: number;
  bytes_total: number;
  lines_acked: number;
  lines_sent: number;
  /** Where the job is inside `printing`/`paused`: pausing and resuming run scripts, finishing waits for M400. */
  phase: 'streaming' | 'pausing' | 'paused' | 'resuming' | 'finishing';
  started_at: number;
}

export interface PrinterSnapshot {
  printer_id: string;
  url: string;
  status: PrinterStatus;
  firmware: { name: string; profile: string; capabilities: Record<string, boolean> } | null;
  temperatures: Temperatures;
  /** False after a print until the operator marks the bed cleared (API extension `ready`). */
  ready: boolean;
  job: JobSnapshot | null;
  /** Why the printer is in `error` or `offline`; null otherwise. */
  error: { code: string; message: string } | null;
}

/** The reply to a console command. */
export interface CommandReply {
  ok: boolean;
  lines: string[];
}

/** How a job ended, for whoever awaits it (the CLI, the job runner). */
export type JobOutcome =
  | { status: 'completed' }
  | { status: 'cancelled' }
  | { status: 'failed'; error: { code: JobFailureCode; message: string } };

export const printerOffline = (printerId: string, status: PrinterStatus): AppError =>
  new AppError(409, 'printer_offline', `printer ${printerId} is ${status}`, 'wait until it is connected and idle');

export const printerBusy = (printerId: string, status: PrinterStatus): AppError =>
  new AppError(409, 'printer_busy', `printer ${printerId} is ${status}`, 'wait for the current job, or cancel it');

export const wrongState = (printerId: string, action: string, status: PrinterStatus): AppError =>
  new AppError(409, 'invalid_state', `cannot ${action}: printer ${printerId} is ${status}`);
