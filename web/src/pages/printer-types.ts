// The printer record as GET /v1/printers/:id shows it (the fields the printer and queue pages use), and telemetry.

export type PrinterStatus = 'idle' | 'printing' | 'paused' | 'offline' | 'error';

export interface Temperatures {
  hotend: number | null;
  bed: number | null;
  hotend_target: number | null;
  bed_target: number | null;
}

/** The record's `serial` extension: counters of the current (or last) link. */
export interface SerialStats {
  connected_since: string | null;
  baud_rate: number | null;
  lines_sent?: number;
  lines_acked?: number;
  bytes_written?: number;
  resends?: number;
  lines_resent?: number;
  timeouts?: number;
  errors?: number;
  spurious_oks?: number;
  [other: string]: unknown;
}

export interface Printer {
  id: string;
  name: string;
  status: PrinterStatus;
  connecting: boolean;
  ready: boolean;
  model: string | null;
  firmware: string | null;
  temperatures: Temperatures;
  current_job: string | null;
  progress: number | null;
  group: string | null;
  tags: string[];
  connection_url: string;
  error: { code: string; message: string } | null;
  material_type: string | null;
  material_color: string | null;
  materials?: Array<{ id: string; tool: number; type: string; color: string | null; remaining_weight: number }>;
  nozzle_diameter: number | null;
  serial?: SerialStats | null;
  created_at: string;
  updated_at: string;
}

/** The `printer.telemetry` live object (status is the session's: `connecting` too). */
export interface Telemetry {
  printer_id: string;
  status: PrinterStatus | 'connecting';
  temperatures: Temperatures;
  progress: number | null;
  job_id: string | null;
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
  };
}

/** The status word with "connecting" for an offline printer that is opening its link. */
export const statusKey = (p: Pick<Printer, 'status' | 'connecting'>): string => (p.status === 'offline' && p.connecting ? 'connecting' : p.status);
