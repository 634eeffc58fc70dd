// Turns what printer sessions report on the bus into public events: printer.online/offline/error/bed_waiting with the printer as
// the API shows it (stored, to webhooks), printer.telemetry (live only, at most once a second a printer) and
// printer.updated (live only: added, changed, bed cleared or not), so every open dashboard sees what another changed.
import type { EventBus } from '../events/event-bus.js';
import type { EventsRuntime } from '../events/events-runtime.js';
import { telemetryFromSnapshot } from '../events/printer-telemetry.js';
import type { Logger } from '../logger.js';
import type { DurableWriter } from '../storage/durable-writer.js';
import type { PrintersService } from './printers.service.js';
import type { SessionRegistry } from './session-registry.js';

/** How often the live stream's subscribers get each printer's temperatures and progress. */
export const TELEMETRY_INTERVAL_MS = 1_000;

export interface PrinterEventsDeps {
  bus: EventBus;
  events: EventsRuntime;
  printers: PrintersService;
  sessions: SessionRegistry;
  logger: Logger;
  /** Stored events go through it: on a full disk they are held and written in order once there is room. */
  durable: Pick<DurableWriter, 'write'>;
}

/** Starts the bridge; its stop resolves once the events already on their way are written. */
export function bridgePrinterEvents(d: PrinterEventsDeps): () => Promise<void> {
  const inFlight = new Set<Promise<unknown>>();
  // Events go to the durable writer in the order the sessions reported them, each with its printer as read then (a
  // held printer.offline still shows the printer offline when it is written after it came back).
  let order: Promise<unknown> = Promise.resolve();
  const record = (type: 'printer.online' | 'printer.offline' | 'printer.error' | 'printer.bed_waiting', printerId: string): void => {
    const printer = d.printers.get(printerId);
    const queued = order.then(() => printer).then((p) => ({ written: d.durable.write(`${type} of printer ${printerId}`, () => d.events.recordNow(type, p)) }));
    order = queued.catch(() => undefined);
    const p = queued
      .then((q) => q.written)
      // A printer deleted meanwhile has no record left to show: its session's last words are not an event.
      .catch((err: Error) => d.logger.debug('printer event not recorded', { printer_id: printerId, type, error: err }))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const updated = (printerId: string): void => {
    const p = d.printers
      .get(printerId)
      .then((printer) => d.events.live('printer.updated', printer))
      .catch((err: Error) => d.logger.debug('printer.updated not sent', { printer_id: printerId, error: err }))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const offs = [
    d.bus.on('printer.updated', (p) => updated(p.printer_id)),
    d.bus.on('printer.ready', (p) => updated(p.printer_id)),
    d.bus.on('printer.online', (p) => record('printer.online', p.printer_id)),
    d.bus.on('printer.offline', (p) => record('printer.offline', p.printer_id)),
    d.bus.on('printer.error', (p) => record('printer.error', p.printer_id)),
    d.bus.on('printer.bed_waiting', (p) => record('printer.bed_waiting', p.printer_id)),
    // A deleted printer's telemetry throttle slot would otherwise stay for the life of the process.
    d.bus.on('printer.removed', (p) => d.events.forgetPrinter(p.printer_id)),
  ];
  // Telemetry only while someone watches the live stream: a quiet farm does no work for it.
  const timer = setInterval(() => {
    if (d.events.stream.size === 0) return;
    for (const session of d.sessions.list()) d.events.telemetry(session.printerId, telemetryFromSnapshot(session.snapshot()));
  }, TELEMETRY_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    for (const off of offs) off();
    await Promise.all(inFlight);
  };
}
