// How a network printer's reading becomes the status we hold, and which printer events a change of it publishes.
// Pure: the kinds map their printer's words to a status; these rules are the same for every kind.
import type { JobSnapshot, OfflineReason, PrinterStatus } from '../printer-state.js';

export type HeldError = { code: string; message: string };

export interface HeldView {
  status: PrinterStatus;
  offlineReason: OfflineReason | null;
  error: HeldError | null;
}

const troubled = (s: PrinterStatus): boolean => s === 'offline' || s === 'error' || s === 'connecting';
const working = (s: PrinterStatus): boolean => s === 'idle' || s === 'printing' || s === 'paused';

/** A reason and an error stand only while the printer is not working (offline, in error, or being reached again). */
export function heldView(status: PrinterStatus, reason: OfflineReason | null, error: HeldError | null): HeldView {
  return { status, offlineReason: troubled(status) ? reason : null, error: troubled(status) ? error : null };
}

/**
 * Our started job keeps the printer ours before (and after) the printer shows it: an idle printer with our job on it
 * reads printing, or paused while the job is paused.
 */
export function withOurJob(shown: PrinterStatus, jobPhase: JobSnapshot['phase'] | null): PrinterStatus {
  if (jobPhase === null || shown !== 'idle') return shown;
  return jobPhase === 'paused' ? 'paused' : 'printing';
}

export type StatusEvent = 'printer.online' | 'printer.offline' | 'printer.error';

/**
 * The event a change of the printer's shown state publishes (none when it tells nothing new). `linkLost`: our own
 * link failed (not the printer's report): while we were still reaching it, that is no news.
 */
export function statusEvent(was: PrinterStatus, next: PrinterStatus, linkLost = false): StatusEvent | null {
  if (next === 'error') return was === 'error' ? null : 'printer.error';
  if (next === 'offline') return was === 'offline' || (linkLost && was === 'connecting') ? null : 'printer.offline';
  if (working(next) && troubled(was)) return 'printer.online';
  return null;
}
