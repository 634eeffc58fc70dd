// The printer session's public vocabulary: statuses, the snapshot the API layer reads, and the typed errors of its actions.
import type { BambuView } from './bambu/bambu-view.js';
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
  | 'session_closed'
  /** The worker thread streaming the job crashed (--workers): the stream is lost, like a link. */
  | 'host_error'
  /** The job's stored file could not be read back whole and intact (missing or damaged content); nothing was sent. */
  | 'file_unreadable';

/** An action accepted but waiting for a blocking wait (heat-up, dwell) to end. */
export type PendingAction = 'pause' | 'cancel';

export interface JobSnapshot {
  id: string;
  file_path: string;
  /**
   * Percent 0..100 of the G-code bytes acknowledged by the firmware, comments and blank lines excluded (what is
   * sent, against the same measure over the whole file); the share of file bytes until that total is known.
   */
  progress: number;
  /** File bytes acknowledged (comments and blank lines included) and the file's size. */
  bytes_acked: number;
  bytes_total: number;
  /** Bytes of the lines sent and acknowledged (command + newline, no comments), and the file's total of them. */
  gcode_bytes_acked: number;
  gcode_bytes_total: number | null;
  lines_acked: number;
  lines_sent: number;
  /** G-code lines in the file (comments and blank lines excluded), once counted. */
  lines_total: number | null;
  /** Where the job is inside `printing`/`paused`: pausing and resuming run scripts, finishing waits for M400. */
  phase: 'streaming' | 'pausing' | 'paused' | 'resuming' | 'finishing';
  /**
   * A pause or cancel asked for while the printer sits in a blocking wait it cannot be pulled out of (Klipper's
   * M190): it takes effect the moment the wait ends. Null otherwise.
   */
  pending_action: PendingAction | null;
  started_at: number;
  /** Milliseconds printing so far: pauses (and the scripts that park and return) excluded. */
  elapsed_ms: number;
  /**
   * Filament (mm) each tool pushed for the acknowledged lines, index = tool number, retractions subtracted and never
   * below 0 (src/protocol/extrusion-tracker.ts): what the firmware really ran, not what the slicer estimated.
   */
  extruded_mm: number[];
  /**
   * How extruded_mm was found (API job `material.used_basis`): wire (the acknowledged lines we sent), file_position
   * (the printer's reported position in our copy of the file, through its extrusion index), progress_percent (the
   * printer reports only a percentage), printer_report (the printer's own filament counter).
   */
  used_basis: UsedBasis;
}

/**
 * How a job's extruded_mm was measured: on the wire (serial), at a position in our copy (file_position), at a reported
 * percentage of it (progress_percent), the printer's own counter (printer_report), or a sliced 3MF's filament per
 * slot at the reported percentage, by AMS tray (slice_per_tray).
 */
export type UsedBasis = 'wire' | 'file_position' | 'progress_percent' | 'printer_report' | 'slice_per_tray';

/** Why a printer is offline (API `offline_reason`); the message is in `error`. */
export type OfflineReason =
  /** Nothing answers at the address (refused, timed out, no route, DNS). */
  | 'unreachable'
  /** The printer's API refused our key or password. */
  | 'auth_failed'
  /** The firmware itself stopped (Klipper shutdown/error, a halted board): its message is in `error.message`. */
  | 'firmware_error'
  /** The host software (OctoPrint, Moonraker) is up but its printer is not connected to it. */
  | 'printer_disconnected'
  /** TLS failed: an untrusted or mismatched certificate, or a pinned fingerprint that does not match. */
  | 'tls_error'
  /** The worker thread that hosted the link crashed: the pool restarts it and the printer reconnects by itself. */
  | 'host_error'
  /** The printer belongs to another node sharing the database, and that node is lost, stopped or silent. */
  | 'node_unavailable';

/** A print started on the printer itself (its screen, Mainsail, OctoPrint's page): not ours, but it occupies the printer. */
export interface ExternalJob {
  file_name: string;
  /** Percent 0..100 as the printer reports it. */
  progress: number;
  /** Clock ms when the printer says it started (or when we first saw it). */
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
  /** Set while `offline` (or `error`) for a reason the farm owner must act on; null otherwise. */
  offline_reason?: OfflineReason | null;
  /** A print we did not start, while it runs (status `printing`/`paused`, `job` null). */
  external_job?: ExternalJob | null;
  /** A Bambu Lab printer's own readings (AMS trays, HMS, layer); absent for the other kinds. */
  bambu?: BambuView | null;
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
