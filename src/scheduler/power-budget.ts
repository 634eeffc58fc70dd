// The farm's heat-up budget: what heats now plus what this round starts must stay within power_budget_watts.
import type { SchedulerOrg, SchedulerPrinter } from './scheduler-types.js';

export interface PowerBudget {
  /** Whether starting on printer `index` keeps the farm within budget. */
  allows(index: number): boolean;
  /** Count a start on printer `index` (its heat-up begins). */
  add(index: number): void;
}

/**
 * A printer of unknown draw (heatup_watts null) costs 0: it cannot be budgeted, and holding it back for ever would be
 * worse. A printer already heating is counted once, so starting a job on it adds nothing.
 */
export function createPowerBudget(printers: readonly SchedulerPrinter[], org: SchedulerOrg): PowerBudget {
  const budget = org.power_budget_watts;
  const cost = (i: number): number => {
    const p = printers[i]!;
    return p.heating ? 0 : (p.heatup_watts ?? 0);
  };
  let drawn = 0;
  for (const p of printers) if (p.heating) drawn += p.heatup_watts ?? 0;
  return {
    allows: (i) => budget === null || cost(i) === 0 || drawn + cost(i) <= budget,
    add: (i) => {
      drawn += cost(i);
    },
  };
}
