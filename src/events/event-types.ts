// Every in-process event of the bus with its payload type (sessions publish them); the public event names that are stored and sent to webhooks are in event-names.ts.
export interface PrinterEventPayload {
  printer_id: string;
  /** Human-readable reason, e.g. "link lost: cable unplugged" or the firmware's error line. */
  reason?: string;
  firmware?: string;
}

export interface JobProgressPayload {
  printer_id: string;
  job_id: string;
  /** Percent 0..100, by bytes of the file acknowledged. */
  progress: number;
  lines_acked: number;
  bytes_acked: number;
}

export interface JobEndPayload {
  printer_id: string;
  job_id: string;
  error?: { code: string; message: string };
}

/** A print started on the printer itself ended: recorded as a job with origin `external` so analytics count it. */
export interface ExternalJobEndPayload {
  printer_id: string;
  file_name: string;
  status: 'completed' | 'cancelled' | 'failed';
  /** Clock ms. */
  started_at: number;
  ended_at: number;
  /** Seconds printing, pauses excluded where the printer says so. */
  print_seconds: number;
  /** Filament per tool (mm) where the printer reports it, else null. */
  extruded_mm: number[] | null;
  message?: string;
}

export interface DomainEvents {
  'printer.online': PrinterEventPayload;
  'printer.offline': PrinterEventPayload;
  'printer.error': PrinterEventPayload;
  // A print ended and the bed now waits for a person to clear it (the ready flag went from true to false).
  'printer.bed_waiting': PrinterEventPayload;
  // Internal wake-ups for the scheduler (bus only, NOT webhook events): with printer.online they cover everything that
  // can make a printer newly usable. printer.ready: the bed was marked cleared (action `ready` or setReady(id, true)).
  // printer.updated: stored settings changed (created, or a PATCH; `reason` lists the changed fields).
  'printer.ready': PrinterEventPayload;
  'printer.updated': PrinterEventPayload;
  // printer.removed (bus only): the printer was deleted; what is kept in memory per printer (temperature history,
  // telemetry throttle) lets go of it.
  'printer.removed': PrinterEventPayload;
  'job.started': JobEndPayload;
  'job.progress': JobProgressPayload;
  'job.paused': JobEndPayload;
  'job.resumed': JobEndPayload;
  'job.completed': JobEndPayload;
  'job.failed': JobEndPayload;
  'job.cancelled': JobEndPayload;
  'printer.external_job_ended': ExternalJobEndPayload;
}
