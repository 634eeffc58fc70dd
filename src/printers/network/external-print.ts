// A print we did not start, as every network kind follows it: shown while it runs, one printer.external_job_ended
// when it stops. Pure: readings are handed in.
import type { Instant } from '../../clock.js';
import type { ExternalJobEndPayload } from '../../events/event-types.js';
import type { ExternalJob } from '../printer-state.js';

/** startMono: the print's start on the monotonic clock, to measure it once the printer no longer reports its time. */
export type ExternalPrint = ExternalJob & { startMono: number };

/** A print first seen at `now` that the printer says began `sinceMs` ago (0: it starts now). */
export function externalSeen(fileName: string, progress: number, now: Instant, sinceMs: number): ExternalPrint {
  return { file_name: fileName, progress, started_at: Math.round(now.wall - sinceMs), startMono: now.monotonic - sinceMs };
}

/** How it ended, as the kind read it; `printSeconds` null: the printer no longer says, our clock measures it. */
export interface ExternalEnd {
  status: ExternalJobEndPayload['status'];
  printSeconds: number | null;
  extrudedMm: number[] | null;
  message?: string;
}

export function externalEnded(printerId: string, ext: ExternalPrint, end: ExternalEnd, now: Instant): ExternalJobEndPayload {
  return {
    printer_id: printerId,
    file_name: ext.file_name,
    status: end.status,
    started_at: ext.started_at,
    ended_at: now.wall,
    // Measured to the ms: a print seen briefly must not read as none.
    print_seconds: end.printSeconds ?? (now.monotonic - ext.startMono) / 1000,
    extruded_mm: end.extrudedMm,
    ...(end.message !== undefined ? { message: end.message } : {}),
  };
}

/** The external_job of a snapshot: what the API shows of it. */
export function externalView(ext: ExternalPrint | null): ExternalJob | null {
  return ext ? { file_name: ext.file_name, progress: ext.progress, started_at: ext.started_at } : null;
}
