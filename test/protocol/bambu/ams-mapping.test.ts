// AMS tray choice for a sliced plate's filament slots: type first, then the nearest colour; refusals in words.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planAms, trayLabel, type SliceFilament } from '../../../src/protocol/bambu/ams-mapping.js';
import type { AmsTray } from '../../../src/protocol/bambu/bambu-report.js';

const tray = (index: number, type: string | null, color: string | null, remainPercent: number | null = 50): AmsTray => ({ index, type, color, remainPercent });
const TRAYS = [tray(0, 'PLA', 'FF0000'), tray(1, 'PLA', '000000'), tray(2, 'PETG', 'FFFFFF', null), tray(3, 'PLA', 'FFFFFF', 0), tray(4, 'pla', 'FFFFF0')];
const f = (slot: number, type: string | null, color: string | null): SliceFilament => ({ slot, type, color });

describe('planAms', () => {
  const rows: Array<[string, SliceFilament[], AmsTray[], unknown]> = [
    ['one slot, exact colour', [f(1, 'PLA', '#000000')], TRAYS, { useAms: true, mapping: [1], choices: [{ slot: 1, tray: 1, colorDiffers: false }] }],
    [
      'nearest colour of the type; an empty tray (0 %) is skipped; the type ignores case',
      [f(1, 'PLA', '#FFFFFF')],
      TRAYS,
      { useAms: true, mapping: [4], choices: [{ slot: 1, tray: 4, colorDiffers: true }] },
    ],
    [
      'slots 1 and 3: slot 2 unused is -1; a spool without a chip (null %) is usable',
      [f(1, 'PLA', '#FF0000'), f(3, 'PETG', '#FF6600')],
      TRAYS,
      {
        useAms: true,
        mapping: [0, -1, 2],
        choices: [
          { slot: 1, tray: 0, colorDiffers: false },
          { slot: 3, tray: 2, colorDiffers: true },
        ],
      },
    ],
    ['no colour in the slice: the first tray of the type', [f(1, 'PETG', null)], TRAYS, { useAms: true, mapping: [2], choices: [{ slot: 1, tray: 2, colorDiffers: true }] }],
    ['no AMS, one filament: the external spool', [f(1, 'PLA', '#FFFFFF')], [], { useAms: false, mapping: [], choices: [] }],
    ['no AMS, two filaments: refused', [f(1, 'PLA', null), f(2, 'PLA', null)], [], { refused: 'the plate uses 2 filaments and the printer reports no AMS' }],
    [
      'no tray of the type: refused, naming the trays',
      [f(2, 'ABS', '#000000')],
      TRAYS.slice(0, 3),
      { refused: 'no AMS tray holds ABS for filament slot 2 (trays: A1 PLA #FF0000, A2 PLA #000000, A3 PETG #FFFFFF)' },
    ],
  ];
  for (const [name, filaments, trays, want] of rows) it(name, () => assert.deepEqual(planAms(filaments, trays), want));

  it('labels trays as the printer does', () => {
    assert.deepEqual([0, 3, 4, 15].map(trayLabel), ['A1', 'A4', 'B1', 'D4']);
  });
});
