// Filament facts the API fills in when a spool does not state them: diameter and the density of common material types.
import { badRequest, quoteInput } from '../errors.js';

export const DEFAULT_DIAMETER_MM = 1.75;

/** g/cm³ of the common types (typical datasheet values of unfilled filament). */
export const DENSITY_BY_TYPE: Readonly<Record<string, number>> = {
  PLA: 1.24,
  PETG: 1.27,
  ABS: 1.04,
  ASA: 1.07,
  TPU: 1.21,
  PA: 1.14,
  PC: 1.2,
};

/**
 * The density of a type without an explicit one: the exact type (case-insensitive), else the longest known type the
 * name starts with ("PLA+" and "PETG-CF" count as PLA and PETG). Unknown types must state `density`.
 */
export function defaultDensity(type: string): number {
  const t = type.trim().toUpperCase();
  const exact = DENSITY_BY_TYPE[t];
  if (exact !== undefined) return exact;
  const prefix = Object.keys(DENSITY_BY_TYPE)
    .filter((k) => t.startsWith(k))
    .sort((a, b) => b.length - a.length)[0];
  if (prefix) return DENSITY_BY_TYPE[prefix]!;
  throw badRequest(
    `density: required for type ${quoteInput(type)} (no default known)`,
    `defaults exist for ${Object.keys(DENSITY_BY_TYPE).join(', ')}; give density in g/cm³`,
  );
}
