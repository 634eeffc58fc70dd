// Why a queued job is not printing: the reason codes, and the words an operator reads for each (dashboard, docs).
import { bambuModelName } from '../files/slice-info.js';

/**
 * Listed from "nothing here can ever take it" to "it starts as soon as a heat-up ends". The first seven say no printer
 * fits the job (decide() checks them in this order and names the first that leaves no printer); the rest say a
 * fitting printer exists, and name the state of the one nearest to taking the job (no_printer_online also stands for
 * a farm with no printer at all).
 */
export const WAITING_REASONS = [
  'pinned_printer_unknown',
  'no_printer_for_format',
  'printer_model_mismatch',
  'no_printer_in_group',
  'no_printer_with_material',
  'nozzle_mismatch',
  'insufficient_material',
  'pinned_printer_offline',
  'no_printer_online',
  'printer_refused',
  'pinned_printer_busy',
  'printers_busy',
  'printers_not_ready',
  'bed_clearing',
  'power_budget',
] as const;

export type WaitingReason = (typeof WAITING_REASONS)[number];

export interface WaitingReasonText {
  /** A few words for a badge. */
  label: string;
  /** One or two sentences: what holds the job, and what (if anything) to do. */
  detail: string;
}

export const WAITING_REASON_TEXT: Readonly<Record<WaitingReason, WaitingReasonText>> = {
  pinned_printer_unknown: {
    label: 'Pinned printer removed',
    detail: 'The job is pinned to a printer that no longer exists. Cancel it, or create it again for another printer.',
  },
  no_printer_for_format: {
    label: 'No printer for format',
    detail:
      'No printer the job may use prints its file format: Prusa binary G-code (.bgcode) prints only on PrusaLink printers, a sliced 3MF (.gcode.3mf) only on Bambu printers, plain G-code on all others. Add a printer of that kind, or slice again (waiting_detail says which).',
  },
  printer_model_mismatch: {
    label: 'No printer of its model',
    detail: 'The sliced 3MF was made for one Bambu printer model and no Bambu printer the job may use is that model (waiting_detail names it). Add one, set the right model on the printer, or slice again for your model.',
  },
  no_printer_in_group: {
    label: 'No printer in group',
    detail: "No printer belongs to the job's group. Add a printer to that group.",
  },
  no_printer_with_material: {
    label: 'Material not loaded',
    detail: 'No printer the job may use has its material (type, and color when the job names one) loaded. Load it on a printer.',
  },
  nozzle_mismatch: {
    label: 'Nozzle mismatch',
    detail: 'The printers with the right material have a different nozzle diameter than the file was sliced for. Swap a nozzle or slice again.',
  },
  insufficient_material: {
    label: 'Not enough filament',
    detail: 'Every fitting spool has less filament left than the job needs (its estimate plus 5 %). Load a fuller spool.',
  },
  pinned_printer_offline: {
    label: 'Pinned printer offline',
    detail: 'The printer the job is pinned to is offline, connecting or in error. Reconnect it.',
  },
  no_printer_online: {
    label: 'No printer online',
    detail: 'No printer that fits the job is online: they are offline, connecting or in error, or none is set up yet. Connect one.',
  },
  printer_refused: {
    label: 'Printer refused the start',
    detail: "A printer that fits refused to start jobs several times in a row (waiting_detail and the printer's start_refusal say why) and takes none until it reconnects, its settings change, or the connect action retries it. Fix what it says, then retry.",
  },
  pinned_printer_busy: {
    label: 'Pinned printer busy',
    detail: 'The printer the job is pinned to is printing or paused, or takes a more urgent job now. The job starts after it.',
  },
  printers_busy: {
    label: 'Printers busy',
    detail: 'Every printer that fits is printing or paused, or takes a more urgent job now. The job starts when one is free.',
  },
  printers_not_ready: {
    label: 'Bed not cleared',
    detail: 'A printer that fits is idle but its bed still holds the last print. Remove it and mark the printer ready.',
  },
  bed_clearing: {
    label: 'Clearing bed',
    detail: 'A printer that fits clears its bed by itself once the bed has cooled. Nothing to do; the job starts after.',
  },
  power_budget: {
    label: 'Power budget',
    detail: "Starting now would heat beyond the farm's power budget. The job starts when a running heat-up ends.",
  },
};

export const waitingReasonText = (reason: WaitingReason): WaitingReasonText => WAITING_REASON_TEXT[reason];

/** The words a job waiting with printer_refused carries (its waiting_detail): which printer, and what it said. */
export const printerRefusedDetail = (printerName: string, message: string): string => `Printer "${printerName}" refused to start jobs: ${message}`;

/** The words of a job that no printer prints the format of, or that was sliced for a model no printer is. */
export function formatDetail(reason: WaitingReason, job: { file_format: 'gcode' | 'bgcode' | '3mf'; printer_model_id?: string | null }): string | null {
  if (reason === 'printer_model_mismatch') {
    const id = job.printer_model_id ?? 'an unknown model';
    const name = bambuModelName(job.printer_model_id ?? null);
    const model = name === null ? id : `${name} (${id})`;
    return `The file was sliced for a Bambu Lab ${model} and no Bambu printer this job may use is that model: add one, set a Bambu printer's model to ${name ?? id}, or slice again for your printer.`;
  }
  if (reason !== 'no_printer_for_format') return null;
  if (job.file_format === '3mf') return 'The file is a sliced 3MF (.gcode.3mf), which only Bambu printers print, and none of them may take this job: add a Bambu printer, or slice to plain G-code for another printer.';
  if (job.file_format === 'bgcode') return 'The file is Prusa binary G-code (.bgcode), which only PrusaLink printers print, and none of them may take this job: add a PrusaLink printer, or slice to plain G-code.';
  return 'The file is plain G-code and the only printers this job may use print sliced 3MF alone (Bambu printers): add another printer, or slice to a .gcode.3mf for them.';
}
