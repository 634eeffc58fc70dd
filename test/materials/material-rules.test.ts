// The pure rules of the materials feature as tables: fill level (status, material.low latch, events), densities, job cost.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filamentCost, jobCost } from '../../src/materials/job-cost.js';
import { defaultDensity } from '../../src/materials/material-defaults.js';
import { initialLevel, nextLevel, type LevelState } from '../../src/materials/material-levels.js';

const spool = (remaining: number, threshold: number | null, status: LevelState['status'] = 'active', low = 0): LevelState => ({
  remaining_weight: remaining,
  reorder_threshold: threshold,
  status,
  low_notified: low,
});

describe('fill level', () => {
  const rows: Array<{ name: string; before: LevelState; to: number; status: string; low: number; events: string[] }> = [
    { name: 'above the threshold: nothing', before: spool(500, 100), to: 200, status: 'active', low: 0, events: [] },
    { name: 'falls to the threshold: low', before: spool(500, 100), to: 100, status: 'active', low: 1, events: ['material.low'] },
    { name: 'already notified: quiet', before: spool(90, 100, 'active', 1), to: 50, status: 'active', low: 1, events: [] },
    { name: 'refill above: latch opens', before: spool(50, 100, 'active', 1), to: 800, status: 'active', low: 0, events: [] },
    { name: 'no threshold: never low', before: spool(50, null), to: 10, status: 'active', low: 0, events: [] },
    { name: 'straight to zero: low then empty', before: spool(500, 100), to: 0, status: 'empty', low: 1, events: ['material.low', 'material.empty'] },
    { name: 'below zero is zero', before: spool(5, null), to: -3, status: 'empty', low: 0, events: ['material.empty'] },
    { name: 'empty stays quiet', before: spool(0, null, 'empty'), to: 0, status: 'empty', low: 0, events: [] },
    { name: 'refill of an empty spool: active', before: spool(0, 100, 'empty', 1), to: 1000, status: 'active', low: 0, events: [] },
    { name: 'archived: no events, status kept', before: spool(500, 100, 'archived'), to: 0, status: 'archived', low: 0, events: [] },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const { state, events } = nextLevel(r.before, r.to);
      assert.equal(state.status, r.status);
      assert.equal(state.low_notified, r.low);
      assert.equal(state.remaining_weight, Math.max(0, r.to));
      assert.deepEqual(events, r.events);
    });
  }
  it('a raised threshold counts as crossing; a new spool below its threshold is already notified', () => {
    assert.deepEqual(nextLevel(spool(300, 100), 300, 400).events, ['material.low']);
    assert.deepEqual(initialLevel(50, 100), { status: 'active', low_notified: 1 });
    assert.deepEqual(initialLevel(0, null), { status: 'empty', low_notified: 0 });
  });
});

describe('densities and cost', () => {
  it('density by type, case-insensitive, longest known prefix', () => {
    const table: Array<[string, number]> = [['PLA', 1.24], ['petg', 1.27], ['ABS', 1.04], ['ASA', 1.07], ['TPU', 1.21], ['PA', 1.14], ['PC', 1.2], ['PETG-CF', 1.27], ['PA12', 1.14], [' pla+ ', 1.24]];
    for (const [type, rho] of table) assert.equal(defaultDensity(type), rho, type);
    assert.throws(() => defaultDensity('PVB'), /density/);
  });

  it('cost = filament + hourly rate × hours + watts × hours / 1000 × price per kWh', () => {
    assert.equal(filamentCost(250, 20), 5);
    assert.equal(filamentCost(250, null), null);
    // 2 h at 1.5/h = 3; 200 W × 2 h = 0.4 kWh × 0.25 = 0.1; filament 5 + 1.2 (tool 1) and an unpriced tool.
    assert.equal(jobCost([5, 1.2, null], 7200, { hourly_rate: 1.5, energy_cost_per_kwh: 0.25, power_watts: 200 }), 9.3);
    assert.equal(jobCost([], 3600, { hourly_rate: 0, energy_cost_per_kwh: 0.3, power_watts: null }), 0, 'unknown power: no energy cost');
  });
});
