// From the slicer to the plate: a PrusaSlicer-shaped upload into a group prints on that group's printer, the live
// stream and webhooks see it as any job (job.created … job.completed), and a full disk refuses it as /v1 would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer } from '../helpers/test-app.js';
import { dbRows, sqliteOnly } from '../helpers/test-database.js';
import { gcode } from '../jobs/jobs-harness.js';
import * as S from './slicer-requests.js';
import { startSlicerFarm, type SlicerFarm } from './slicer-harness.js';

describe('a slicer upload prints', () => {
  let farm: SlicerFarm;
  let port: number;
  let printerId: string;
  before(async () => {
    farm = await startSlicerFarm();
    port = Number(new URL(farm.app.baseUrl).port);
    const res = await farm.app.request('/v1/printers', {
      method: 'POST',
      headers: bearer(farm.admin, true),
      body: JSON.stringify({ name: 'sim-bay-2', connection_url: 'sim://slicer-print?speed=max', group: 'bay-2' }),
    });
    assert.equal(res.status, 201);
    printerId = ((await res.json()) as { id: string }).id;
  });
  after(() => farm.close());

  test('PrusaSlicer PrusaLink "Upload and print" into group bay-2 completes on its printer, with the job events', async () => {
    const r = await S.replay(port, S.prusaSlicerPrusaLinkUploadAndPrint({ apiKey: farm.key, storage: 'Group bay-2', fileName: 'plate one.gcode', content: Buffer.from(gcode({ moves: 50 })) }));
    assert.deepEqual(r.problems, []);
    const deadline = Date.now() + 30_000;
    let job: any;
    while (Date.now() < deadline) {
      job = (await farm.jobs()).find((j) => j.name === 'plate one');
      if (job?.status === 'completed') break;
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.equal(job?.status, 'completed', JSON.stringify(job));
    assert.equal(job.printer_id, printerId);
    const events = await dbRows<{ type: string; body: string }>(farm.app.handle, 'SELECT type, body FROM events ORDER BY seq');
    const mine = events.filter((e) => (JSON.parse(e.body) as { data: { object: { id?: string } } }).data.object.id === job.id);
    assert.deepEqual(
      mine.map((e) => e.type).filter((t) => ['job.created', 'job.started', 'job.completed'].includes(t)),
      ['job.created', 'job.started', 'job.completed'],
    );
    const created = JSON.parse(mine[0]!.body) as { data: { object: { origin: string; slicer_api: string } } };
    assert.equal(created.data.object.origin, 'slicer', 'webhooks and the stream see where it came from');
    assert.equal(created.data.object.slicer_api, 'prusalink');
  });

  // On PostgreSQL the content lives in the database, which takes none of this box's disk (as for /v1 uploads).
  test('a full disk refuses the upload with 507 in words, as POST /v1/jobs does, and stores nothing', { skip: sqliteOnly('file content in the database uses no local disk') }, async () => {
    const set = await farm.app.request('/v1/organization', { method: 'PATCH', headers: bearer(farm.admin, true), body: JSON.stringify({ storage_reserve_mb: 1_000_000 }) });
    assert.equal(set.status, 200);
    try {
      const before = await farm.holdings();
      const res = await farm.app.request('/api/v1/files/local/full.gcode', { method: 'PUT', headers: { 'X-Api-Key': farm.key, 'Print-After-Upload': '?1' }, body: gcode({ tag: 'full' }) });
      assert.equal(res.status, 507);
      assert.equal(res.headers.get('content-type'), 'text/plain');
      assert.match(await res.text(), /^the file was not stored: the disk is nearly full/);
      assert.deepEqual(await farm.holdings(), before);
    } finally {
      await farm.app.request('/v1/organization', { method: 'PATCH', headers: bearer(farm.admin, true), body: JSON.stringify({ storage_reserve_mb: null }) });
    }
  });
});
