// The printer record as GET /v1/printers/:id shows it (the server's type), telemetry, and applying one to the other.

import type { PrinterRecord } from '../../../src/printers/printer-record.js';

/** The server's own record type (TypeBox Static of the schema the API validates and documents): one source for the shape. */
export type Printer = PrinterRecord;
export type PrinterStatus = PrinterRecord['status'];
export type Temperatures = PrinterRecord['temperatures'];
/** The record's `serial` extension: counters of the current (or last) link. */
export type SerialStats = NonNullable<PrinterRecord['serial']>;
export type LoadedSpool = PrinterRecord['materials'][number];

/** The `printer.telemetry` live object (status is the session's: `connecting` too). */
export interface Telemetry {
  printer_id: string;
  status: PrinterStatus | 'connecting';
  temperatures: Temperatures;
  progress: number | null;
  job_id: string | null;
  /** A print started on the printer itself (network printers), or null; absent from servers that do not send it. */
  external_job?: Printer['external_job'];
  /** Why the printer cannot be used (as in its record); absent from servers that do not send it. */
  offline_reason?: Printer['offline_reason'];
  /** A Bambu printer's layers, fan, AMS trays and HMS errors, sent when they change; absent otherwise. */
  bambu?: Printer['bambu'];
}

/** A printer updated by a telemetry sample (status, temperatures, progress, current job). */
export function applyTelemetry(p: Printer, t: Telemetry): Printer {
  const status = t.status === 'connecting' ? 'offline' : t.status;
  return {
    ...p,
    status,
    connecting: t.status === 'connecting',
    temperatures: t.temperatures,
    progress: t.progress,
    current_job: t.job_id,
    ...(t.external_job !== undefined ? { external_job: t.external_job } : {}),
    ...(t.bambu !== undefined ? { bambu: t.bambu } : {}),
  };
}

/** The status word with "connecting" for an offline printer that is opening its link. */
export const statusKey = (p: Pick<Printer, 'status' | 'connecting'>): string => (p.status === 'offline' && p.connecting ? 'connecting' : p.status);

/**
 * Whether a telemetry sample moves the printer to another status (connecting included) or another offline reason: the
 * record's error changes with them, and a link that fails while connecting (or fails again for another reason) may
 * announce no event of its own.
 */
export const statusMoved = (p: Pick<Printer, 'status' | 'connecting' | 'offline_reason'>, t: Pick<Telemetry, 'status' | 'offline_reason'>): boolean =>
  t.status !== (p.connecting ? 'connecting' : p.status) || (t.offline_reason !== undefined && t.offline_reason !== p.offline_reason);
