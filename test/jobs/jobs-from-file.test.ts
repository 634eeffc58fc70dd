// POST /v1/jobs with JSON file_id: a job queued from a file already stored (a slicer's plain "Upload", GET /v1/files),
// its metadata and fields, each refusal (both/neither source, malformed, unknown, pruned) creating nothing, idempotency.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { isoTime } from '../../src/clock.js';
import { markFilePruned } from '../../src/files/files.repository.js';
import type { FileRecord } from '../../src/files/files.schemas.js';
import { bearer } from '../helpers/test-app.js';
import { dbRow } from '../helpers/test-database.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { gcode } from './jobs-harness.js';

describe('POST /v1/jobs with file_id', () => {
  let app: PrintersApp;
  let part: FileRecord;
  let pruned: FileRecord;
  const count = async (): Promise<number> => Number((await dbRow<{ n: number }>(app.t.handle, 'SELECT count(*) AS n FROM jobs'))!.n);
  const post = async (body: unknown, idempotencyKey?: string) => {
    const res = await app.t.request('/v1/jobs', {
      method: 'POST',
      headers: { ...bearer(app.admin, true), ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any, replayed: res.headers.get('idempotent-replayed') };
  };

  before(async () => {
    app = await startPrintersApp();
    // Stored without a job, as a slicer's upload without print leaves it.
    part = await app.t.deps.files.ingestStream(Readable.from([gcode({ minutes: 90, grams: 41.5, type: 'ASA', nozzle: 0.6 })]), 'bracket.gcode');
    pruned = await app.t.deps.files.ingestStream(Readable.from([gcode({ tag: 'gone' })]), 'gone.gcode');
    assert.equal(await markFilePruned(app.t.handle.db, pruned.id, pruned.last_used_at, isoTime(app.t.clock.now())), true);
  });
  after(async () => {
    await app.close();
  });

  it('queues the stored file: its name and metadata, the request fields, no file_url, and a use of the file', async () => {
    app.t.clock.advance(60_000);
    const res = await post({ file_id: part.id, group: 'bay-1', priority: 'high', copies: 2, tags: ['reprint'] });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    const job = res.body.data;
    assert.equal(job.file_id, part.id);
    assert.equal(job.file_url, null);
    assert.equal(job.origin, 'queue');
    assert.equal(job.name, 'bracket (1/2)');
    assert.equal(job.status, 'queued');
    assert.equal(job.group, 'bay-1');
    assert.equal(job.priority, 'high');
    assert.deepEqual(job.tags, ['reprint']);
    assert.equal(job.estimated_duration, 5400);
    assert.equal(job.nozzle_diameter, 0.6);
    assert.deepEqual(job.material, { type: 'ASA', color: null, estimated_usage: 41.5, used: null, used_basis: null });
    assert.equal(job.job_ids.length, 2);
    const file = (await app.call('GET', `/v1/files/${part.id}`)).body as FileRecord;
    assert.equal(file.last_used_at, isoTime(app.t.clock.now()), 'queuing counts as a use (pruning waits for it)');
    const listed = (await app.call('GET', `/v1/files?q=bracket`)).body.data;
    assert.equal(listed[0].jobs_count, 2);
  });

  it('refuses both sources, neither, a malformed or unknown id and a pruned file, creating nothing', async () => {
    const before = await count();
    const cases: Array<[unknown, number, string, RegExp]> = [
      [{ file_id: part.id, file_url: 'http://127.0.0.1:9/x.gcode' }, 400, 'invalid_request', /file_url, file_id: give one of them, not both/],
      [{ name: 'no file' }, 400, 'invalid_request', /file_url or file_id: is required/],
      [{ file_id: 'job_abc' }, 400, 'invalid_request', /^file_id: must match/],
      [{ file_id: 'file_doesnotexist' }, 404, 'resource_not_found', /file file_doesnotexist/],
      [{ file_id: pruned.id }, 410, 'file_deleted', new RegExp(`file ${pruned.id} was removed from the store`)],
      [{ file_id: part.id, printer_id: 'prt_nope' }, 400, 'invalid_printer', /prt_nope/],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await post(body);
      assert.equal(res.status, status, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, code, JSON.stringify(body));
      assert.match(res.body.error.message, message, JSON.stringify(body));
    }
    assert.equal(await count(), before);
    // The pruned file stays pruned: a refused queue is no use that stores it again.
    assert.notEqual((await app.call('GET', `/v1/files/${pruned.id}`)).body.deleted_at, null);
  });

  it('honours Idempotency-Key: a retry replays the job and creates nothing more; another file with the key is 409', async () => {
    const first = await post({ file_id: part.id, name: 'idempotent one' }, 'queue-from-file-1');
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const n = await count();
    const again = await post({ file_id: part.id, name: 'idempotent one' }, 'queue-from-file-1');
    assert.equal(again.status, 201);
    assert.equal(again.replayed, 'true');
    assert.equal(again.body.data.id, first.body.data.id);
    assert.equal(await count(), n);
    const other = await post({ file_id: pruned.id, name: 'idempotent one' }, 'queue-from-file-1');
    assert.equal(other.status, 409);
    assert.equal(await count(), n);
  });
});
