// Where one printer stands for the scheduler right now: free to start, busy, offline, or held by its bed or its refusals.
import type { SchedulerOrg, SchedulerPrinter } from './scheduler-types.js';

/** Used when a printer has clear-bed G-code but no threshold of its own: most PEI and glass beds release below it. */
export const DEFAULT_CLEAR_BED_TEMPERATURE_C = 30;

export type PrinterAvailability =
  /** offline, connecting or error: nothing can start there. */
  | 'offline'
  /** printing or paused. */
  | 'busy'
  /** idle and may take a job now (ready, or auto_start and no clear-bed G-code). */
  | 'free'
  /** idle, not ready, no clear-bed G-code: waits for a person. */
  | 'not_ready'
  /** idle, not ready, has clear-bed G-code, bed still too warm (or not reported yet). */
  | 'cooling'
  /** idle, not ready, has clear-bed G-code, bed cool enough: run it now. */
  | 'clear_now'
  /** the loop is running its clear-bed G-code. */
  | 'clearing'
  /** would be free, but refused several job starts in a row: held until it changes or someone retries. */
  | 'refused';

/**
 * The one place that reads the bed-clear gate. A printer with clear-bed G-code clears itself even under auto_start:
 * the G-code exists because a part sits on the bed, and starting on top of it would collide with it.
 */
export function classifyPrinter(printer: SchedulerPrinter, org: SchedulerOrg): PrinterAvailability {
  switch (printer.status) {
    case 'offline':
    case 'error':
    case 'connecting':
      return 'offline';
    case 'printing':
    case 'paused':
      return 'busy';
    case 'idle':
      break;
  }
  if (printer.clearing_bed) return 'clearing';
  // The hold matters only where the printer would take a job: a bed to clear is still cleared first.
  const free = printer.start_refused ? 'refused' : 'free';
  if (printer.ready) return free;
  if (printer.has_clear_bed_gcode) return bedCoolEnough(printer) ? 'clear_now' : 'cooling';
  return org.auto_start ? free : 'not_ready';
}

function bedCoolEnough(printer: SchedulerPrinter): boolean {
  const threshold = printer.clear_bed_temperature ?? DEFAULT_CLEAR_BED_TEMPERATURE_C;
  return printer.bed_temperature !== null && printer.bed_temperature < threshold;
}
