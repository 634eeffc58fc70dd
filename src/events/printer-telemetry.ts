// Maps a printer session's snapshot() to the printer.telemetry object of the live stream (temperatures with targets,
// progress, and a print started on the printer itself).
import { externalJobOf, offlineReasonOf } from '../printers/printer-record.js';
import type { PrinterSnapshot } from '../printers/printer-state.js';
import type { TelemetrySample } from './events-runtime.js';

const num = (v: number | undefined): number | null => (v === undefined ? null : v);

export function telemetryFromSnapshot(s: PrinterSnapshot): TelemetrySample {
  const t = s.temperatures;
  return {
    status: s.status,
    temperatures: { hotend: num(t.hotend), hotend_target: num(t.hotend_target), bed: num(t.bed), bed_target: num(t.bed_target) },
    progress: s.job ? s.job.progress : null,
    job_id: s.job ? s.job.id : null,
    external_job: externalJobOf(s),
    offline_reason: offlineReasonOf(s),
    ...(s.bambu ? { bambu: s.bambu } : {}),
  };
}
