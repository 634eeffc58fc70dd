// Pure parsers for the values slicers write in comments: durations in every slicer's wording, numbers with units, lists.

const DURATION_UNIT_SECONDS: Record<string, number> = { d: 86400, h: 3600, m: 60, s: 1 };

/**
 * Seconds from "1d 2h 3m 4s" (PrusaSlicer, Orca, Bambu), "1 hours 2 minutes" (Simplify3D), "1h:20m:36s", or a bare
 * number of seconds (Cura, ideaMaker). Null when nothing in the text reads as a duration.
 */
export function parseDuration(text: string): number | null {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t));
  let total = 0;
  let found = false;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)(?![a-z])/gi)) {
    const unit = m[2]!.toLowerCase()[0]!;
    total += Number(m[1]) * DURATION_UNIT_SECONDS[unit]!;
    found = true;
  }
  return found ? Math.round(total) : null;
}

/** The first decimal number in the text, or null. */
export function firstNumber(text: string): number | null {
  const m = /-?\d+(?:\.\d+)?|-?\.\d+/.exec(text);
  return m ? Number(m[0]) : null;
}

/** Every number of a list such as "1.23, 4.56", "0.4,0.4", "1.75|1.75" or "[12.3, 4.5]". */
export function numberList(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(/-?\d+(?:\.\d+)?(?:e-?\d+)?|-?\.\d+/gi)) out.push(Number(m[0]));
  return out;
}

/** A length in millimetres from "1.23456m", "1234.5mm", "1234.5 mm (1.23 m)" or a bare number taken as `bareUnit`. */
export function parseLengthMm(text: string, bareUnit: 'mm' | 'm' = 'mm'): number | null {
  const m = /(-?\d+(?:\.\d+)?)\s*(mm|cm|m)?(?![a-z])/i.exec(text);
  if (!m) return null;
  const unit = (m[2] ?? bareUnit).toLowerCase();
  const v = Number(m[1]);
  return unit === 'm' ? v * 1000 : unit === 'cm' ? v * 10 : v;
}

/** Lengths of a per-extruder list such as Cura's "1.2m, 0.5m" or PrusaSlicer's "1234.5, 0.0". */
export function lengthListMm(text: string, bareUnit: 'mm' | 'm'): number[] {
  return text
    .split(/[,;]/)
    .map((part) => parseLengthMm(part, bareUnit))
    .filter((v): v is number => v !== null);
}

/** String list values: PrusaSlicer separates with ';', some write ',', quoted entries lose their quotes. */
export function stringList(text: string): string[] {
  return text
    .split(/[;,]/)
    .map((s) => s.trim().replace(/^"(.*)"$/, '$1').trim())
    .filter((s) => s.length > 0);
}

/** Grams of filament from its length, diameter (mm) and density (g/cm³). */
export function gramsFromLength(lengthMm: number, diameterMm: number, densityGcm3: number): number {
  const areaMm2 = (Math.PI / 4) * diameterMm * diameterMm;
  return (areaMm2 * lengthMm * densityGcm3) / 1000;
}

/** Typical densities (g/cm³) by filament type, used only when the file gives a length but no density. */
const TYPICAL_DENSITY: Record<string, number> = {
  PLA: 1.24,
  PETG: 1.27,
  PET: 1.27,
  ABS: 1.04,
  ASA: 1.07,
  TPU: 1.21,
  PC: 1.2,
  PA: 1.14,
  NYLON: 1.14,
  HIPS: 1.04,
  PVA: 1.23,
};
export const DEFAULT_DENSITY = 1.24;
export const DEFAULT_FILAMENT_DIAMETER = 1.75;

export function typicalDensity(type: string | null | undefined): number {
  if (!type) return DEFAULT_DENSITY;
  const key = type.toUpperCase().replace(/[^A-Z]/g, '');
  return TYPICAL_DENSITY[key] ?? TYPICAL_DENSITY[key.replace(/CF|GF|HF|PLUS$/g, '')] ?? DEFAULT_DENSITY;
}

export const round = (v: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};
