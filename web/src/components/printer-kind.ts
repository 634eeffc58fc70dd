// What a printer is and why it is not usable, on the card and the printer page: its kind, its offline reason in words,
// and a print started on the printer itself (shown without our job controls, which do not apply to it).
import { html } from '../lib/html.js';
import { KINDS, externalJobWords, offlineWords } from '../lib/printer-kinds.js';
import type { PrinterRecord } from '../../../src/printers/printer-record.js';
import { ProgressBar } from './ui.js';

/** A small label: "Moonraker (Klipper)", "OctoPrint", "PrusaLink", "USB / serial". */
export function KindBadge({ kind }: { kind: PrinterRecord['kind'] }) {
  return html`<span class=${`kind-badge kind-${kind}`}>${KINDS[kind].label}</span>`;
}

/** The reason in words, else the error's own message; null while the printer is usable. */
export function problemWords(p: Pick<PrinterRecord, 'kind' | 'status' | 'offline_reason' | 'error'>): string | null {
  if (p.status !== 'offline' && p.status !== 'error') return null;
  // A serial link's own message (the device is gone, the port is busy) says more than "nothing answers".
  if (p.kind === 'serial' && p.offline_reason === 'unreachable' && p.error) return p.error.message;
  return offlineWords(p) ?? p.error?.message ?? null;
}

/** A print started on the printer: its file, "(started on the printer)" and the printer's own percentage. */
export function ExternalJob({ job, printerName }: { job: NonNullable<PrinterRecord['external_job']>; printerName: string }) {
  const words = externalJobWords(job);
  return html`<div class="external-job">
    <p class="external-job-name" title=${words}><span aria-hidden="true">▶ </span>${words} — ${Math.round(job.progress)} %</p>
    <${ProgressBar} value=${job.progress} label=${`Progress of ${job.file_name} on ${printerName}`} />
  </div>`;
}
