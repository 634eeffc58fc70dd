// Which printers a job may ever use (pin, file format, sliced-for model, group, material, nozzle, filament left), whatever
// their state right now.
import { modelMatchesSlice } from '../files/slice-info.js';
import type { SchedulerJob, SchedulerPrinter } from './scheduler-types.js';
import type { WaitingReason } from './waiting-reasons.js';

/** A spool must hold the job's estimate plus this many percent (slicer estimates run short; purge and skirt add up). */
export const MATERIAL_MARGIN_PERCENT = 5;

/** Nozzle diameters closer than this (mm) are the same nozzle (0.4 from a slicer and 0.40 from a form). */
const NOZZLE_TOLERANCE_MM = 0.001;

export interface Eligibility {
  /** Why no printer is eligible; null when `printers` is not empty. */
  reason: WaitingReason | null;
  /** Indices into the printer array, ascending. */
  printers: readonly number[];
}

export interface JobMatcher {
  eligible(job: SchedulerJob): Eligibility;
  /** Whether printer `index` is eligible for the job (same rules as eligible(), cheaper for one printer). */
  fits(job: SchedulerJob, index: number): boolean;
}

/** The rules without filament left: shared by every job with the same requirements (copies of a batch, mostly). */
interface Requirement {
  reason: WaitingReason | null;
  printers: number[];
  /** Per printer index: grams on its best matching spool; Infinity when unknown; -1 when not in `printers`. */
  grams: Float64Array;
}

interface PreparedPrinter {
  id: string;
  formats: readonly SchedulerPrinter['formats'][number][];
  model: string | null;
  group: string | null;
  nozzle: number | null;
  spools: { type: string; color: string | null; grams: number }[];
}

const norm = (s: string): string => s.trim().toLowerCase();

export function createJobMatcher(printers: readonly SchedulerPrinter[]): JobMatcher {
  const prepared: PreparedPrinter[] = printers.map((p) => ({
    id: p.id,
    formats: p.formats,
    model: p.model ?? null,
    group: p.group,
    nozzle: p.nozzle_diameter,
    spools: p.loaded_materials.map((m) => ({
      type: norm(m.type),
      color: m.color === null ? null : norm(m.color),
      grams: m.remaining_g ?? Infinity,
    })),
  }));
  const indexById = new Map(prepared.map((p, i) => [p.id, i]));
  const cache = new Map<string, Requirement>();

  const requirement = (job: SchedulerJob): Requirement => {
    const key = requirementKey(job);
    let found = cache.get(key);
    if (found === undefined) {
      found = computeRequirement(job, prepared, indexById);
      cache.set(key, found);
    }
    return found;
  };

  return {
    eligible(job) {
      const req = requirement(job);
      const need = neededGrams(job);
      if (req.reason !== null || need === 0) return req;
      let kept: number[] | null = null;
      for (let k = 0; k < req.printers.length; k++) {
        const i = req.printers[k]!;
        if (req.grams[i]! >= need) {
          kept?.push(i);
        } else if (kept === null) {
          kept = req.printers.slice(0, k);
        }
      }
      if (kept === null) return req;
      return kept.length === 0 ? { reason: 'insufficient_material', printers: kept } : { reason: null, printers: kept };
    },
    fits(job, index) {
      return requirement(job).grams[index]! >= neededGrams(job);
    },
  };
}

// Multiply before dividing: 7 g * 105 / 100 is exactly 7.35, 7 * 1.05 is not, and a spool of 7.35 g must fit.
const neededGrams = (job: SchedulerJob): number =>
  job.estimated_usage_g !== null && job.estimated_usage_g > 0 ? (job.estimated_usage_g * (100 + MATERIAL_MARGIN_PERCENT)) / 100 : 0;

// \u0001 stands for null so that a null field and an empty string never share a key. The raw text is the key (not
// the normalised one): "PLA" and "pla" then get two equal entries, which costs less than normalising every job.
const part = (v: string | number | null): string => (v === null ? '\u0001' : String(v));

function requirementKey(job: SchedulerJob): string {
  const m = job.material;
  return `${job.file_format}\u0000${part(job.printer_model_id ?? null)}\u0000${part(job.printer_id)}\u0000${part(job.group)}\u0000${part(m && m.type)}\u0000${part(m && m.color)}\u0000${part(job.nozzle_diameter)}`;
}

/** The funnel: each rule narrows the printers; the first one that leaves none names the reason. */
function computeRequirement(job: SchedulerJob, printers: PreparedPrinter[], indexById: Map<string, number>): Requirement {
  const grams = new Float64Array(printers.length).fill(-1);
  let candidates: number[];
  if (job.printer_id !== null) {
    const pinned = indexById.get(job.printer_id);
    if (pinned === undefined) return { reason: 'pinned_printer_unknown', printers: [], grams };
    candidates = [pinned];
  } else {
    // An empty farm: no rule is to blame, there is just nothing online.
    if (printers.length === 0) return { reason: 'no_printer_online', printers: [], grams };
    candidates = printers.map((_, i) => i);
  }
  // Every printer says what it prints: plain G-code goes to all but Bambu printers, the other two to one kind each.
  candidates = candidates.filter((i) => printers[i]!.formats.includes(job.file_format));
  if (candidates.length === 0) return { reason: 'no_printer_for_format', printers: [], grams };
  if (job.file_format === '3mf') {
    // A slice is made for one model (bed, kinematics, start G-code): another Bambu model must not print it. A file
    // whose slicer wrote no model cannot be checked and goes to any Bambu printer.
    const model = job.printer_model_id ?? null;
    if (model !== null) candidates = candidates.filter((i) => modelMatchesSlice(printers[i]!.model, model));
    if (candidates.length === 0) return { reason: 'printer_model_mismatch', printers: [], grams };
  }
  if (job.group !== null) {
    candidates = candidates.filter((i) => printers[i]!.group === job.group);
    if (candidates.length === 0) return { reason: 'no_printer_in_group', printers: [], grams };
  }
  const wantType = job.material ? norm(job.material.type) : null;
  const wantColor = job.material?.color ? norm(job.material.color) : null;
  const spoolGrams = new Float64Array(printers.length).fill(-1);
  for (const i of candidates) spoolGrams[i] = gramsFor(printers[i]!, wantType, wantColor);
  candidates = candidates.filter((i) => spoolGrams[i]! >= 0);
  if (candidates.length === 0) return { reason: 'no_printer_with_material', printers: [], grams };
  const nozzle = job.nozzle_diameter;
  if (nozzle !== null) {
    candidates = candidates.filter((i) => {
      const own = printers[i]!.nozzle;
      return own === null || Math.abs(own - nozzle) <= NOZZLE_TOLERANCE_MM;
    });
    if (candidates.length === 0) return { reason: 'nozzle_mismatch', printers: [], grams };
  }
  for (const i of candidates) grams[i] = spoolGrams[i]!;
  return { reason: null, printers: candidates, grams };
}

/**
 * Grams on the printer's best spool for the wanted material: -1 when no spool matches, Infinity when a matching
 * spool's weight is unknown. A job naming no material may use any spool. A printer with no spool listed at all
 * (the owner never said what is loaded) takes any job: jobs name a material by default (the slicer's filament type),
 * so holding them back would stop a farm that does not track materials; matching starts once a spool is declared.
 */
function gramsFor(printer: PreparedPrinter, type: string | null, color: string | null): number {
  if (printer.spools.length === 0) return Infinity;
  let best = -1;
  for (const s of printer.spools) {
    if (type !== null && s.type !== type) continue;
    // A job naming a color wants that color: a spool of unknown color does not count.
    if (color !== null && s.color !== color) continue;
    if (s.grams > best) best = s.grams;
  }
  return best;
}
