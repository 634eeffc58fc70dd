// slice_info.config as Bambu Studio and OrcaSlicer write it: plates, model, nozzle, time, grams, filament per slot;
// and which printer models a slice's model code matches.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelMatchesSlice, parseSliceInfo } from '../../src/files/slice-info.js';
import { sliceInfo } from '../helpers/threemf-builder.js';

test('every plate with its metadata and filaments, in file order', () => {
  const info = parseSliceInfo(
    sliceInfo([
      { index: 1, model: 'BL-P001', nozzle: '0.4', prediction: 8130, weight: 42.75, filaments: [{ slot: 1, type: 'PLA', color: '#2C2C2E', used_g: 42.75, used_m: 14.31 }] },
      { index: 2, model: 'BL-P001', nozzle: '0.6,0.6', prediction: 1260, weight: 6.1, filaments: [{ slot: 4, type: 'PETG', color: '#FF9F0A', used_g: 6.1, used_m: 2.04 }] },
    ]),
  );
  assert.equal(info.client_version, '01.09.05.51');
  assert.deepEqual(info.plates, [
    { index: 1, printer_model_id: 'BL-P001', nozzle_diameter: 0.4, prediction_s: 8130, weight_g: 42.75, filaments: [{ slot: 1, type: 'PLA', color: '#2C2C2E', used_g: 42.75, used_m: 14.31 }] },
    { index: 2, printer_model_id: 'BL-P001', nozzle_diameter: 0.6, prediction_s: 1260, weight_g: 6.1, filaments: [{ slot: 4, type: 'PETG', color: '#FF9F0A', used_g: 6.1, used_m: 2.04 }] },
  ]);
});

const odd: Array<{ name: string; xml: string; plates: unknown }> = [
  { name: 'no plates (an unsliced project)', xml: '<config><header/></config>', plates: [] },
  {
    name: 'an older file without model and nozzle, with entities and junk numbers',
    xml: '<config><plate><metadata key="index" value="3"/><metadata key="prediction" value="abc"/><filament id="x" type="PLA"/><filament id="2" type="PLA &amp; more" color="" used_g="-1"/></plate></config>',
    plates: [{ index: 3, printer_model_id: null, nozzle_diameter: null, prediction_s: null, weight_g: null, filaments: [{ slot: 2, type: 'PLA & more', color: null, used_g: null, used_m: null }] }],
  },
];
for (const row of odd) {
  test(`odd slice_info: ${row.name}`, () => assert.deepEqual(parseSliceInfo(row.xml).plates, row.plates));
}

const models: Array<[printer: string | null, slice: string, fits: boolean]> = [
  ['P1S', 'C12', true],
  ['Bambu Lab P1S', 'C12', true],
  ['c12', 'C12', true],
  ['P1P', 'C12', false],
  ['X1C', 'BL-P001', true],
  ['X1 Carbon', 'BL-P001', true],
  ['X1', 'BL-P001', false],
  ['A1 mini', 'N1', true],
  ['A1', 'N1', false],
  ['A1', 'N2S', true],
  [null, 'C12', false],
  ['', 'C12', false],
  ['Z9', 'Z9', true],
];
test('a printer model matches the slice by code or name', () => {
  for (const [printer, slice, fits] of models) assert.equal(modelMatchesSlice(printer, slice), fits, `${printer} for ${slice}`);
});
