// Sliced 3MF (.gcode.3mf) uploads through the files service: what the record says (model, plates, filaments per slot,
// time, grams, thumbnail), and the archives refused (unsliced, not named .3mf, damaged, zip bombs, wrong MD5).
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { makePng, bambuStudio } from './gcode-fixtures.js';
import { appError, startFilesHarness, type FilesHarness } from './files-harness.js';
import { p1sPlate, PROJECT_PARTS, sliced3mf, sliceInfo, zip } from '../helpers/threemf-builder.js';

let h: FilesHarness;
before(() => {
  h = startFilesHarness({ maxFileBytes: 4 * 1024 * 1024 });
});
after(() => h.close());

const ingest = (data: Buffer, name = 'bracket.gcode.3mf') => h.files.ingestStream(Readable.from([data]), name);

const P1S_TWO_SLOTS = p1sPlate({ gcode: bambuStudio(''), png: makePng(512, 512) });

test('a sliced 3MF is stored as format 3mf with the model, plates, filaments per slot, time, grams and its plate thumbnail', async () => {
  const file = await ingest(sliced3mf([P1S_TWO_SLOTS]));
  assert.equal(file.format, '3mf');
  assert.equal(file.printer_model_id, 'C12');
  assert.equal(file.printer_model, 'P1S');
  assert.equal(file.plate_count, 1);
  assert.equal(file.slicer, 'Bambu Studio');
  assert.equal(file.slicer_version, '01.09.05.51');
  assert.equal(file.estimated_duration, 5075);
  assert.equal(file.filament_used_g, 15.88);
  assert.equal(file.filament_weight_source, 'slicer');
  assert.equal(file.filament_type, 'PLA', 'the slot using the most');
  assert.equal(file.nozzle_diameter, 0.4);
  assert.equal(file.layer_count, 120, 'from the plate G-code header');
  assert.equal(file.line_count, 0, 'the printer reads its own copy: nothing is streamed');
  assert.deepEqual(file.extruders, [
    { index: 0, type: 'PLA', used_g: 12.5, used_mm: 4190 },
    { index: 2, type: 'PETG', used_g: 3.38, used_mm: 1100 },
  ]);
  assert.deepEqual(file.thumbnail && { type: file.thumbnail.content_type, w: file.thumbnail.width, h: file.thumbnail.height }, { type: 'image/png', w: 512, h: 512 });
  assert.equal(file.plates.length, 1);
  const plate = file.plates[0]!;
  assert.equal(plate.gcode, 'Metadata/plate_1.gcode');
  assert.match(plate.gcode_md5 ?? '', /^[0-9a-f]{32}$/);
  assert.deepEqual(plate.filaments, [
    { slot: 1, type: 'PLA', color: '#FFFFFF', used_g: 12.5, used_m: 4.19 },
    { slot: 3, type: 'PETG', color: '#FF6600', used_g: 3.38, used_m: 1.1 },
  ]);
  const stored = await h.files.getFile(file.id);
  assert.deepEqual(stored, file, 'the record reads back the same from the database');
  const thumb = await h.files.getThumbnail(file.id);
  assert.deepEqual(thumb.data, P1S_TWO_SLOTS.png);
});

test('every plate of an "export all" 3MF is listed; the record figures describe the first', async () => {
  const file = await ingest(
    sliced3mf([
      { index: 2, model: 'N2S', prediction: 600, weight: 2, filaments: [{ slot: 2, type: 'PETG', color: '#000000', used_g: 2, used_m: 0.6 }] },
      { index: 1, model: 'N2S', prediction: 1200, weight: 5, filaments: [{ slot: 1, type: 'PLA', color: '#00FF00', used_g: 5, used_m: 1.6 }] },
    ]),
  );
  assert.equal(file.plate_count, 2);
  assert.deepEqual(
    file.plates.map((p) => [p.index, p.estimated_duration, p.filament_used_g, p.printer_model_id]),
    [
      [1, 1200, 5, 'N2S'],
      [2, 600, 2, 'N2S'],
    ],
  );
  assert.equal(file.printer_model, 'A1');
  assert.equal(file.estimated_duration, 1200);
  assert.equal(file.thumbnail, null, 'no plate image in this archive');
});

test('a sliced 3MF without slice_info.config is still taken, with what its G-code says and no model', async () => {
  const file = await ingest(sliced3mf([{ index: 1, gcode: bambuStudio('') }], ''));
  assert.equal(file.format, '3mf');
  assert.equal(file.printer_model_id, null);
  assert.equal(file.slicer, 'Bambu Studio');
  assert.equal(file.estimated_duration, 5260, "the G-code header's total estimated time");
  assert.equal(file.plates[0]!.filaments.length, 0);
});

const refused: Array<{ name: string; data: () => Buffer; fileName?: string; message: RegExp }> = [
  {
    name: 'a 3MF project that was never sliced',
    data: () => zip([...PROJECT_PARTS, { name: 'Metadata/slice_info.config', data: sliceInfo([]) }]),
    message: /3MF project that is not sliced.*no plate G-code.*Slice it/,
  },
  { name: 'a ZIP under another name', data: () => sliced3mf([{ index: 1 }]), fileName: 'bracket.zip', message: /ZIP archive, not G-code text/ },
  { name: 'a ZIP of something else named .3mf', data: () => zip([{ name: 'readme.txt', data: 'hello' }]), message: /a ZIP archive that is not a sliced 3MF/ },
  { name: 'a truncated archive (no central directory)', data: () => sliced3mf([{ index: 1 }]).subarray(0, 200), message: /not a valid 3MF \(ZIP\) archive: no end of central directory/ },
  {
    name: 'a damaged entry (its CRC differs)',
    data: () => zip([{ name: 'Metadata/plate_1.gcode', data: 'G28\n', crc: 1234 }]),
    message: /plate_1\.gcode fails its CRC check/,
  },
  {
    name: 'plate G-code that does not match its recorded MD5',
    data: () => sliced3mf([{ index: 1, badMd5: true }]),
    message: /does not match its recorded MD5/,
  },
  {
    name: 'a zip bomb: G-code declaring 1 KiB that inflates to 8 MiB of zeros',
    data: () => zip([{ name: 'Metadata/plate_1.gcode', data: Buffer.alloc(8 * 1024 * 1024), declaredSize: 1024 }]),
    message: /plate_1\.gcode inflates beyond the 1024 bytes it declares/,
  },
  {
    name: 'a zip bomb: G-code declaring more than the upload limit',
    data: () => zip([{ name: 'Metadata/plate_1.gcode', data: 'G28\n', declaredSize: 64 * 1024 * 1024 }]),
    message: /plate_1\.gcode is 67108864 bytes inflated, more than the 4194304 taken/,
  },
  {
    name: 'a zip bomb in slice_info.config',
    data: () =>
      zip([
        { name: 'Metadata/plate_1.gcode', data: 'G28\n' },
        { name: 'Metadata/slice_info.config', data: Buffer.alloc(32 * 1024 * 1024, 0x20), declaredSize: 100 },
      ]),
    message: /slice_info\.config inflates beyond the 100 bytes it declares/,
  },
  {
    name: 'plate G-code that is not text',
    data: () => zip([{ name: 'Metadata/plate_1.gcode', data: Buffer.from([0, 1, 2, 3, 0, 0]) }]),
    message: /plate_1\.gcode is not G-code/,
  },
];

for (const row of refused) {
  test(`refused: ${row.name}`, async () => {
    await assert.rejects(ingest(row.data(), row.fileName), appError(422, 'file_invalid', row.message));
    assert.deepEqual(h.tempFiles(), [], 'nothing left behind');
  });
}

