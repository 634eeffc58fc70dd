// What a job cost: its filament (per tool, at each spool's price), the machine's time and the energy it drew. Pure maths.

export interface CostRates {
  /** Organization currency per printing hour. */
  hourly_rate: number;
  /** Organization currency per kWh. */
  energy_cost_per_kwh: number;
  /** The printer's average draw while printing (W); null: unknown, no energy cost. */
  power_watts: number | null;
}

/** Filament cost of `grams` at `costPerKg`; null when the spool has no price. */
export function filamentCost(grams: number, costPerKg: number | null): number | null {
  return costPerKg === null ? null : (grams * costPerKg) / 1000;
}

/**
 * Filament (the tools' costs, unpriced ones counting 0) + machine time (hourly_rate × printing hours) + energy
 * (power_watts × hours / 1000 × energy_cost_per_kwh). Printing hours exclude pauses. Rounded to 1/10,000 of the currency.
 */
export function jobCost(filamentCosts: ReadonlyArray<number | null>, printingSeconds: number, rates: CostRates): number {
  const hours = Math.max(0, printingSeconds) / 3600;
  const filament = filamentCosts.reduce<number>((sum, c) => sum + (c ?? 0), 0);
  const machine = rates.hourly_rate * hours;
  const energy = ((rates.power_watts ?? 0) * hours * rates.energy_cost_per_kwh) / 1000;
  return Math.round((filament + machine + energy) * 10_000) / 10_000;
}
