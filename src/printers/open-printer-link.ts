// Builds the live link of a stored printer from its URL: a serial/tcp/sim session we stream to, or the driver of a
// printer on the network. The only place that asks which kind a printer is. Links keep the system clock: their timers
// need time that moves, whatever clock the records use.
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logger.js';
import type { ExtrusionIndexCache } from './extrusion-index-cache.js';
import type { PreparedGcodeCache } from './prepared-gcode-cache.js';
import { networkKindOf } from './network-url.js';
import { parseTransportUrl } from '../transport/open-transport.js';
import { splitProfileParam } from './session-handshake.js';
import { createMoonrakerPrinter } from './moonraker/moonraker-printer.js';
import { createOctoPrintPrinter } from './octoprint/create-octoprint-printer.js';
import { createPrusaLinkPrinter } from './prusalink/prusalink-printer.js';
import { createBambuPrinter } from './bambu/bambu-printer.js';
import type { PrinterLink } from './printer-link.js';
import { PrinterSession, type PrinterSessionOptions } from './printer-session.js';
import type { LinkWorkerPool } from './workers/link-worker-pool.js';

/** Session options the service passes to every serial session it opens (tests: short drain and handshake timings). */
export type SessionTuning = Partial<Omit<PrinterSessionOptions, 'printerId' | 'url' | 'bus'>>;

export interface LinkDeps {
  bus: EventBus;
  logger: Logger;
  /** One per program: network printers charge filament from their position in the file. */
  extrusionIndexes: ExtrusionIndexCache;
  /** One per program: serial sessions printing the same file share its prepared form. */
  preparedFiles?: PreparedGcodeCache;
  sessionOptions?: SessionTuning;
  /** The organization's "cool on pause": a serial session turns the heaters off once parked. */
  coolOnPause?: () => Promise<boolean>;
  /** Network driver tuning (tests shorten polling and timeouts). */
  networkOptions?: { pollMs?: number; requestTimeoutMs?: number };
  /**
   * Worker threads for the sessions we stream to (--workers N > 0): such a session lives in a worker and this thread
   * gets its proxy. Network printer drivers stay here: they wait on HTTP and poll, with nothing to stream per line.
   */
  workers?: LinkWorkerPool;
  /** A Bambu link pinned its printer's certificate on first contact: the service writes it into the stored URL. */
  onCertificatePinned?: (printerId: string, fingerprint: string) => void;
}

export function openPrinterLink(printer: { id: string; url: string; apiKey: string | null }, deps: LinkDeps): PrinterLink {
  const kind = networkKindOf(printer.url);
  const common = { printerId: printer.id, url: printer.url, bus: deps.bus, extrusionIndexes: deps.extrusionIndexes, ...deps.networkOptions };
  const log = (line: string): void => deps.logger.info(line, { printer_id: printer.id });
  switch (kind) {
    case 'moonraker':
      return createMoonrakerPrinter({ ...common, apiKey: printer.apiKey, logger: deps.logger });
    case 'octoprint':
      return createOctoPrintPrinter({ ...common, apiKey: printer.apiKey ?? '', log });
    case 'prusalink':
      return createPrusaLinkPrinter({ ...common, apiKey: printer.apiKey, logger: deps.logger });
    case 'bambu':
      return createBambuPrinter({
        ...common,
        apiKey: printer.apiKey,
        logger: deps.logger,
        onPinned: (fingerprint) => deps.onCertificatePinned?.(printer.id, fingerprint),
      });
    case null:
      if (deps.workers && hostableInWorker(printer.url)) return deps.workers.open(printer, deps.coolOnPause ?? (() => Promise.resolve(false)));
      return new PrinterSession({ ...deps.sessionOptions, printerId: printer.id, url: printer.url, bus: deps.bus, coolOnPause: deps.coolOnPause, preparedFiles: deps.preparedFiles });
  }
}

/**
 * Whether a streamed link can live in a worker thread: sim://, tcp:// and serial:// can (a serial port there is opened
 * by WorkerSerialTransport, which keeps its I/O on the worker's loop). Only a URL that does not parse stays here, so
 * the session reports its error as it always has.
 */
export function hostableInWorker(url: string): boolean {
  try {
    parseTransportUrl(splitProfileParam(url).transportUrl);
    return true;
  } catch {
    return false;
  }
}
