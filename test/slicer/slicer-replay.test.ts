// Each slicer's exact requests (method, headers, field order, encodings, as their sources send them: transcripts in
// slicer-requests.ts) replayed byte for byte against the real app: the slicer's own checks pass, "Test" succeeds, and
// the upload ends as a stored file or a queued job with the group, copies and metadata its folder and file carry.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as S from './slicer-requests.js';
import { gcode } from '../jobs/jobs-harness.js';
import { startSlicerFarm, type SlicerFarm } from './slicer-harness.js';

const CONTENT = Buffer.from(gcode({ minutes: 25, grams: 4.2, type: 'PETG' }));

describe('slicer transcripts against the farm', () => {
  let farm: SlicerFarm;
  let port: number;
  before(async () => {
    farm = await startSlicerFarm();
    port = Number(new URL(farm.app.baseUrl).port);
  });
  after(() => farm.close());

  async function play(t: S.Transcript): Promise<S.ReplayResult> {
    const r = await S.replay(port, t);
    assert.deepEqual(r.problems, [], `${t.name}:\n${r.exchanges.map((e) => `${e.request.method} ${e.request.target} → ${e.response.status} ${e.response.body.toString('utf8').slice(0, 200)}`).join('\n')}`);
    return r;
  }

  /** Jobs queued by this very upload (by name), checked for the fields every slicer job must carry. */
  async function queued(name: string, api: string): Promise<any[]> {
    const jobs = (await farm.jobs()).filter((j) => j.name === name || j.name.startsWith(`${name} (`));
    for (const j of jobs) {
      assert.equal(j.status, 'queued');
      assert.equal(j.origin, 'slicer');
      assert.equal(j.slicer_api, api);
      assert.equal(j.estimated_duration, 25 * 60, 'estimated time from the slicer metadata');
      assert.equal(j.material.type, 'PETG', 'material from the slicer metadata');
    }
    return jobs;
  }

  const tests: [string, () => S.Transcript][] = [
    ['PrusaSlicer OctoPrint', () => S.prusaSlicerOctoPrintTest({ apiKey: farm.key })],
    ['PrusaSlicer 2.5 OctoPrint', () => S.prusaSlicer25OctoPrintTest({ apiKey: farm.key })],
    ['PrusaSlicer PrusaLink (key)', () => S.prusaSlicerPrusaLinkTest({ apiKey: farm.key })],
    ['PrusaSlicer PrusaLink (Digest)', () => S.prusaSlicerPrusaLinkTest({ digest: { user: farm.prefix, password: farm.key } })],
    ['PrusaSlicer 2.5 PrusaLink (Digest)', () => S.prusaSlicer25PrusaLinkTest({ digest: { user: farm.prefix, password: farm.key } })],
    ['PrusaSlicer Moonraker', () => S.prusaSlicerMoonrakerTest({ apiKey: farm.key })],
    ['OrcaSlicer OctoPrint', () => S.orcaOctoPrintTest({ apiKey: farm.key })],
    ['OrcaSlicer PrusaLink', () => S.orcaPrusaLinkTest({ apiKey: farm.key })],
    ['OrcaSlicer Moonraker', () => S.orcaMoonrakerTest({ apiKey: farm.key })],
    ['Cura OctoPrint plugin', () => S.curaOctoPrintTest({ apiKey: farm.key })],
  ];
  for (const [name, make] of tests) {
    test(`${name}: "Test" succeeds and changes nothing`, async () => {
      const before = await farm.holdings();
      await play(make());
      assert.deepEqual(await farm.holdings(), before);
    });
  }

  // Upload and print with a folder naming the group and copies: a batch of queued jobs in that group.
  const printing: [string, string, (name: string) => S.Transcript][] = [
    ['PrusaSlicer OctoPrint', 'octoprint', (n) => S.prusaSlicerOctoPrintUploadAndPrint({ apiKey: farm.key, fileName: `group/bay-1/x2/${n}.gcode`, content: CONTENT })],
    ['PrusaSlicer 2.5 OctoPrint', 'octoprint', (n) => S.prusaSlicer25OctoPrintUploadAndPrint({ apiKey: farm.key, fileName: `group/bay-1/x2/${n}.gcode`, content: CONTENT })],
    ['PrusaSlicer PrusaLink PUT (Digest)', 'prusalink', (n) => S.prusaSlicerPrusaLinkUploadAndPrint({ digest: { user: farm.prefix, password: farm.key }, storage: 'Group bay-1', fileName: `x2/${n}.gcode`, content: CONTENT })],
    ['PrusaSlicer 2.5 PrusaLink POST (Digest)', 'octoprint', (n) => S.prusaSlicer25PrusaLinkUploadAndPrint({ digest: { user: farm.prefix, password: farm.key }, fileName: `group/bay-1/x2/${n}.gcode`, content: CONTENT })],
    ['PrusaSlicer Moonraker', 'moonraker', (n) => S.prusaSlicerMoonrakerUploadAndPrint({ apiKey: farm.key, fileName: `group/bay-1/x2/${n}.gcode`, content: CONTENT })],
    ['OrcaSlicer OctoPrint', 'octoprint', (n) => S.orcaOctoPrintUploadAndPrint({ apiKey: farm.key, fileName: `group/bay-1/x2/${n}.gcode`, content: CONTENT })],
    ['OrcaSlicer PrusaLink PUT', 'prusalink', (n) => S.orcaPrusaLinkUploadAndPrint({ apiKey: farm.key, storage: '/group/bay-1', fileName: `x2/${n}.gcode`, content: CONTENT })],
    // Orca drops typed folders for Moonraker: the group comes from the root picked in its storage list; copies from no folder.
    ['OrcaSlicer Moonraker', 'moonraker', (n) => S.orcaMoonrakerUploadAndPrint({ apiKey: farm.key, storage: 'group/bay-1', fileName: `${n}.gcode`, content: CONTENT })],
    ['Cura OctoPrint plugin', 'octoprint', (n) => S.curaOctoPrintUploadAndPrint({ apiKey: farm.key, folder: 'group/bay-1/x2', fileName: n, content: CONTENT })],
    ['Cura OctoPrint plugin (select after upload)', 'octoprint', (n) => S.curaOctoPrintUploadAndPrint({ apiKey: farm.key, folder: 'group/bay-1/x2', fileName: n, content: CONTENT, selectAfterUpload: true })],
    ['Cura Moonraker plugin', 'moonraker', (n) => S.curaMoonrakerUploadAndPrint({ apiKey: farm.key, folder: 'group/bay-1/x2', fileName: n, content: CONTENT })],
  ];
  let n = 0;
  for (const [name, api, make] of printing) {
    test(`${name}: "Upload and print" queues the job in the folder's group`, async () => {
      const jobName = `part ${++n} ${name.split(' ')[0]}`;
      await play(make(jobName));
      const jobs = await queued(jobName, api);
      const copies = name.startsWith('OrcaSlicer Moonraker') ? 1 : 2;
      assert.equal(jobs.length, copies, `${copies} copies`);
      for (const j of jobs) assert.equal(j.group, 'bay-1');
    });
  }

  // Plain "Upload": the file is stored, nothing is queued.
  const storing: [string, (name: string) => S.Transcript][] = [
    ['PrusaSlicer OctoPrint', (n) => S.prusaSlicerOctoPrintUpload({ apiKey: farm.key, fileName: `${n}.gcode`, content: CONTENT })],
    ['PrusaSlicer PrusaLink PUT', (n) => S.prusaSlicerPrusaLinkUpload({ apiKey: farm.key, fileName: `${n}.gcode`, content: CONTENT })],
    ['PrusaSlicer Moonraker', (n) => S.prusaSlicerMoonrakerUpload({ apiKey: farm.key, fileName: `${n}.gcode`, content: CONTENT })],
    ['OrcaSlicer Moonraker', (n) => S.orcaMoonrakerUpload({ apiKey: farm.key, fileName: `${n}.gcode`, content: CONTENT })],
    ['Cura OctoPrint plugin', (n) => S.curaOctoPrintUpload({ apiKey: farm.key, fileName: n, content: CONTENT })],
    ['Cura Moonraker plugin', (n) => S.curaMoonrakerUpload({ apiKey: farm.key, fileName: n, content: CONTENT })],
  ];
  for (const [name, make] of storing) {
    test(`${name}: "Upload" stores the file and queues nothing`, async () => {
      const before = await farm.holdings();
      // Unique content per upload, so the file count grows (the store keeps one copy per content).
      const r = await S.replay(port, make(`stored ${name}`));
      void r;
      assert.deepEqual(r.problems, []);
      const after = await farm.holdings();
      assert.equal(after.jobs, before.jobs, 'no job');
    });
  }

  test('a UTF-8 name with a space goes through PrusaLink PUT percent-encoded and OctoPrint raw, and reads back the same', async () => {
    await play(S.prusaSlicerPrusaLinkUploadAndPrint({ apiKey: farm.key, fileName: 'Žluťoučký kůň.gcode', content: CONTENT }));
    await play(S.prusaSlicerOctoPrintUploadAndPrint({ apiKey: farm.key, fileName: 'high/Kůň ünï.gcode', content: CONTENT }));
    const names = (await farm.jobs()).map((j) => j.name);
    assert.ok(names.includes('Žluťoučký kůň'), names.join(', '));
    const kun = (await farm.jobs()).find((j) => j.name === 'Kůň ünï');
    assert.equal(kun?.priority, 'high');
  });

  test('Cura\'s Latin-1 file name (Qt) reads as the person typed it', async () => {
    await play(S.curaOctoPrintUploadAndPrint({ apiKey: farm.key, fileName: 'Pièce é', content: CONTENT }));
    assert.ok((await farm.jobs()).some((j) => j.name === 'Pièce é'));
  });

  test('PrusaSlicer on Windows: backslash folders in the typed name', async () => {
    await play(S.prusaSlicerOctoPrintUploadAndPrint({ apiKey: farm.key, windows: true, fileName: 'group\\bay-1\\urgent\\win part.gcode', content: CONTENT }));
    const job = (await farm.jobs()).find((j) => j.name === 'win part');
    assert.equal(job?.group, 'bay-1');
    assert.equal(job?.priority, 'urgent');
  });

  test('a refused key shows each slicer\'s words for it', async () => {
    const wrong = `svc_live_${'q'.repeat(40)}`;
    const r = await S.replay(port, S.prusaSlicerOctoPrintTest({ apiKey: wrong }));
    assert.equal(r.exchanges[0]?.response.status, 401);
    assert.match(r.problems.join('\n'), /401/);
    const cura = await S.replay(port, S.curaOctoPrintTest({ apiKey: wrong }));
    assert.match(cura.problems.join('\n'), /key|401|not allowed/i);
  });
});
