// A sliced 3MF sent from a slicer's Moonraker host (OrcaSlicer sends `plateindex` with a .gcode.3mf): queued as a
// 3mf job with its file's plates; a plate other than the file's first is refused in words, and no job is made.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { p1sPlate, sliced3mf } from '../helpers/threemf-builder.js';
import { startSlicerFarm, type SlicerFarm } from './slicer-harness.js';

describe('sliced 3MF from a slicer', () => {
  let farm: SlicerFarm;
  before(async () => {
    farm = await startSlicerFarm();
  });
  after(() => farm.close());

  /** OrcaSlicer's Moonraker upload: root, [plateindex], print, file, in that order. */
  function upload(file: Buffer, name: string, plateindex?: string): Promise<Response> {
    const form = new FormData();
    form.append('root', 'gcodes');
    if (plateindex !== undefined) form.append('plateindex', plateindex);
    form.append('print', 'true');
    form.append('file', new Blob([file]), name);
    return farm.app.request('/server/files/upload', { method: 'POST', headers: { 'X-Api-Key': farm.key }, body: form });
  }

  test('plate 2 exported alone, sent with plateindex 2: queued as a 3mf job of that plate', async () => {
    const res = await upload(sliced3mf([p1sPlate({ index: 2 })]), 'bracket.gcode.3mf', '2');
    const body = (await res.json()) as { printfarm: { file_id: string; job_ids: string[] } };
    assert.equal(res.status, 201, JSON.stringify(body));
    assert.equal(body.printfarm.job_ids.length, 1);
    const file = (await (await farm.app.request(`/v1/files/${body.printfarm.file_id}`, { headers: { Authorization: `Bearer ${farm.admin}` } })).json()) as {
      format: string;
      plates: { index: number }[];
    };
    assert.equal(file.format, '3mf');
    assert.deepEqual(file.plates.map((p) => p.index), [2]);
    const job = (await farm.jobs()).find((j) => j.id === body.printfarm.job_ids[0]);
    assert.equal(job?.name, 'bracket', 'both extensions dropped from the job name');
  });

  const refused: Array<[what: string, plates: number[], plateindex: string, message: RegExp]> = [
    ['a later plate of an "all plates" file', [1, 2], '2', /prints the first sliced plate of a 3MF \(plate 1\), not plate 2: send that plate alone/],
    ['a plate the file does not hold', [1], '3', /plateindex "3" names no sliced plate of this 3MF; it holds plate 1/],
    ['a plate that is not a number', [1], 'first', /plateindex "first" names no sliced plate/],
  ];
  for (const [what, plates, plateindex, message] of refused) {
    test(`refused: ${what}`, async () => {
      const before = (await farm.holdings()).jobs;
      const res = await upload(sliced3mf(plates.map((index) => p1sPlate({ index }))), `p${plates.join('')}-${plateindex}.gcode.3mf`, plateindex);
      const text = await res.text();
      assert.equal(res.status, 400, text);
      assert.match(text, message);
      assert.equal((await farm.holdings()).jobs, before, 'no job made');
    });
  }
});
