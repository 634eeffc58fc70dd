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

export interface DomainEvents {
  'printer.online': PrinterEventPayload;
  'printer.offline': PrinterEventPayload;
  'printer.error': PrinterEventPayload;
  'job.started': JobEndPayload;
  'job.progress': JobProgressPayload;
  'job.paused': JobEndPayload;
  'job.resumed': JobEndPayload;
  'job.completed': JobEndPayload;
  'job.failed': JobEndPayload;
  'job.cancelled': JobEndPayload;
}
