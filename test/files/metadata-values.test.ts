// The small value parsers behind the slicer metadata: durations in each slicer's wording, lengths with units, lists, grams.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gramsFromLength, lengthListMm, numberList, parseDuration, stringList, typicalDensity } from '../../src/files/metadata-values.js';
import { inspectGcode } from '../../src/files/gcode-inspector.js';

describe('metadata values', () => {
  const durations: [string, number | null][] = [
    ['1d 2h 3m 4s', 93784],
    ['8m 57s', 537],
    ['1h 2m 3s', 3723],
    ['1 hours 2 minutes', 3720],
    ['1 hour 1 minute 5 seconds', 3665],
    ['1h:20m:36s', 4836],
    ['5325', 5325],
    ['6666.4', 6666],
    ['soon', null],
  ];
  for (const [text, seconds] of durations) it(`duration "${text}"`, () => assert.equal(parseDuration(text), seconds));

  it('lengths carry their unit; bare numbers take the default unit', () => {
    assert.deepEqual(lengthListMm('1.5m, 0.25m', 'm'), [1500, 250]);
    assert.deepEqual(lengthListMm('1234.5mm (2.9cm3)', 'm'), [1234.5]);
    assert.deepEqual(lengthListMm('2.5', 'm'), [2500]);
  });

  it('lists of numbers and strings in the separators slicers use', () => {
    assert.deepEqual(numberList('1.75|1.75|2.85'), [1.75, 1.75, 2.85]);
    assert.deepEqual(numberList('[12.3, 4.5]'), [12.3, 4.5]);
    assert.deepEqual(stringList('"PLA";PETG; ;ASA'), ['PLA', 'PETG', 'ASA']);
  });

  it('grams from length, and typical densities by type', () => {
    assert.equal(Math.round(gramsFromLength(1000, 1.75, 1.24) * 1000) / 1000, 2.983);
    assert.equal(typicalDensity('PETG'), 1.27);
    assert.equal(typicalDensity('PLA-CF'), 1.24);
    assert.equal(typicalDensity(null), 1.24);
  });

  it('Cura Griffin header: PRINT.TIME, nozzle and material volume per extruder train', () => {
    const text = [
      ';START_OF_HEADER',
      ';HEADER_VERSION:0.1',
      ';FLAVOR:Griffin',
      ';GENERATOR.NAME:Cura_SteamEngine',
      ';GENERATOR.VERSION:5.3.0',
      ';PRINT.TIME:4200',
      ';EXTRUDER_TRAIN.0.MATERIAL.VOLUME_USED:5000',
      ';EXTRUDER_TRAIN.0.NOZZLE.DIAMETER:0.4',
      ';END_OF_HEADER',
      'G28',
      'G1 X1 Y1',
    ].join('\n');
    const out = inspectGcode(text, { maxThumbnailBase64Bytes: 1024 });
    assert.ok(out.ok);
    const m = out.inspection.metadata;
    assert.equal(m.slicer, 'Cura');
    assert.equal(m.slicer_version, '5.3.0');
    assert.equal(m.estimated_duration, 4200);
    assert.equal(m.nozzle_diameter, 0.4);
    assert.equal(m.filament_used_g, 6.2); // 5 cm³ of PLA at 1.24 g/cm³
    assert.equal(m.filament_weight_source, 'computed');
  });
});
