// Prints started on a printer itself (its screen, Mainsail, OctoPrint's page) become job records of origin `external`
// when they end, with the filament the printer counted and their printing time, so analytics count their hours.
import type { EventBus } from '../events/event-bus.js';
import type { ExternalJobEndPayload } from '../events/event-types.js';
import type { Logger } from '../logger.js';
import type { MeteredSnapshot } from '../materials/material-meter.js';
import type { JobsService } from './jobs.service.js';

export interface ExternalJobsDeps {
  bus: EventBus;
  jobs: JobsService;
  logger: Logger;
  /** Charges the printer's filament count to the loaded spools (the materials feature's MaterialMeter). */
  meter?: { begin(jobId: string, printerId: string): void; finish(jobId: string, snap: MeteredSnapshot): Promise<void> };
  /** The printer's bed now holds a part: the stored ready flag follows the link's. */
  onEnded(printerId: string): Promise<unknown>;
  /**
   * Runs each write of a record in order, holding it while the disk is full (the farm's DurableWriter); absent: each
   * step is written at once and a full disk loses the record.
   */
  durable?: { write<T>(what: string, work: () => Promise<T>): Promise<T> };
}

/** Subscribes; returns the unsubscribe function. Each ended print is written in order, one at a time. */
export function recordExternalJobs(d: ExternalJobsDeps): () => void {
  let chain: Promise<unknown> = Promise.resolve();
  return d.bus.on('printer.external_job_ended', (p) => {
    chain = chain.then(() => record(d, p)).catch((err: Error) => d.logger.error('could not record an external print', { printer_id: p.printer_id, error: err }));
  });
}

/**
 * Each step is its own transaction, written through the durable writer: on a full disk the step waits for room and
 * the next ones wait behind it, so a print that ends meanwhile is stored whole, once, when room returns.
 */
async function record(d: ExternalJobsDeps, p: ExternalJobEndPayload): Promise<void> {
  const held = <T>(what: string, work: () => Promise<T>): Promise<T> => (d.durable ? d.durable.write(`${what} (printer ${p.printer_id})`, work) : work());
  const id = await held('external print record', () => d.jobs.recordExternal({
    printerId: p.printer_id,
    fileName: p.file_name,
    status: p.status,
    ...(p.status === 'failed' ? { error: { code: 'printer_reported', message: p.message ?? 'the printer reported the print failed' } } : {}),
    startedAt: p.started_at,
    endedAt: p.ended_at,
    printSeconds: p.print_seconds,
  }));
  const meter = d.meter;
  const extruded = p.extruded_mm;
  if (extruded && meter) {
    meter.begin(id, p.printer_id);
    // The meter holds its own writes in the same durable writer (wrapping it here would wait on itself).
    await meter.finish(id, { extruded_mm: extruded, elapsed_ms: p.print_seconds * 1000, used_basis: 'printer_report' });
  }
  await held('external print end event', () => d.jobs.publishExternalEnd(id));
  await d.onEnded(p.printer_id);
}
