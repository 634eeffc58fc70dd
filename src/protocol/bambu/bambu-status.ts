// A Bambu printer's gcode_state and HMS errors in our terms: the status, whether a print is on, and how one ended.
// Pure: one table, and the rule for which errors stop the printer.
import { hmsWords, type BambuReading } from './bambu-report.js';

/** Our printer status and job phase words (structurally the printers' types: protocol/ imports nothing outside). */
export type BambuStatus = 'idle' | 'printing' | 'paused';

export interface BambuMeaning {
  /** null: the state tells nothing (INIT, UNKNOWN, none yet): keep what was shown. */
  status: BambuStatus | null;
  /** A print is on the printer (preparing, running or paused). */
  jobActive: boolean;
  phase: 'streaming' | 'paused' | null;
  /** The printer shows the end of its last print. FAILED is also what a stop leaves. */
  ends: 'completed' | 'failed' | null;
}

const TABLE: Record<string, BambuMeaning> = {
  IDLE: { status: 'idle', jobActive: false, phase: null, ends: null },
  SLICING: { status: 'printing', jobActive: true, phase: 'streaming', ends: null },
  PREPARE: { status: 'printing', jobActive: true, phase: 'streaming', ends: null },
  RUNNING: { status: 'printing', jobActive: true, phase: 'streaming', ends: null },
  PAUSE: { status: 'paused', jobActive: true, phase: 'paused', ends: null },
  FINISH: { status: 'idle', jobActive: false, phase: null, ends: 'completed' },
  FAILED: { status: 'idle', jobActive: false, phase: null, ends: 'failed' },
};

const UNKNOWN: BambuMeaning = { status: null, jobActive: false, phase: null, ends: null };

export function bambuMeaning(gcodeState: string | null): BambuMeaning {
  return (gcodeState && TABLE[gcodeState.toUpperCase()]) || UNKNOWN;
}

/**
 * The printer's error in words, when it stops the printer: a fatal HMS entry, or a serious one while no print is on
 * (a serious one during a print pauses it, which the status shows). Null when nothing stops it.
 */
export function bambuError(r: BambuReading): string | null {
  const active = bambuMeaning(r.gcodeState).jobActive;
  const stopping = r.hms.filter((h) => h.severity === 'fatal' || (h.severity === 'serious' && !active));
  if (stopping.length === 0) return null;
  return stopping.map(hmsWords).join('; ');
}

/** Why a print failed, in words: its HMS entries, else the print_error code. */
export function failureWords(r: BambuReading): string {
  if (r.hms.length > 0) return r.hms.map(hmsWords).join('; ');
  if (r.printError !== 0) return `the printer stopped the print (print_error ${r.printError.toString(16).toUpperCase().padStart(8, '0')})`;
  return 'the printer reports the print failed';
}
