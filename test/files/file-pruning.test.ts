// File pruning end to end: the real app on a SQLite file with the real file store; the pass (on start and by hand),
// what the job and file resources say afterwards, file.pruned once per file, and the policy settings' validation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../src/clock.js';
import { FileStore } from '../../src/files/file-store.js';
import type { FileRecord } from '../../src/files/files.schemas.js';
import type { JobRecord } from '../../src/jobs/job-record.js';
import { DAY_MS } from '../../src/files/prune-selection.js';
import { markFilePruned } from '../../src/files/files.repository.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { makePng, prusaSlicer, thumbnailBlock } from './gcode-fixtures.js';
import { dbRow, dbRows } from '../helpers/test-database.js';

/** A distinct valid G-code file with a PNG thumbnail (`tag` makes the content, so the hash, differ). */
const gcodeWithThumbnail = (tag: string): string => `${prusaSlicer(thumbnailBlock(makePng(16, 16), 16, 16))}; ${tag}\n`;

interface Farm {
  t: TestApp;
  key: string;
  call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }>;
  upload(content: string, name?: string): Promise<JobRecord>;
}

async function openFarm(dir: string, clock: ManualClock, key?: string): Promise<Farm> {
  const t = await startTestApp({ file: path.join(dir, 'printfarm.db'), dataDir: dir, clock });
  const k = key ?? (await mintTestKey(t));
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await t.request(url, { method, headers: bearer(k, body !== undefined), ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  };
  const upload = async (content: string, name = 'part.gcode') => {
    const form = new FormData();
    form.append('file', new Blob([content]), name);
    const res = await t.request('/v1/jobs', { method: 'POST', headers: bearer(k), body: form });
    const body = (await res.json()) as { data: JobRecord };
    assert.equal(res.status, 201, JSON.stringify(body));
    return body.data;
  };
  return { t, key: k, call, upload };
}

/** Stored file.pruned events as [file id, reason]. */
const prunedEvents = async (t: TestApp): Promise<string[][]> =>
  (await dbRows<{ body: string }>(t.handle, "SELECT body FROM events WHERE type = 'file.pruned' ORDER BY seq")).map((r) => {
    const o = (JSON.parse(r.body) as { data: { object: { id: string; reason: string } } }).data.object;
    return [o.id, o.reason];
  });

describe('file pruning', () => {
  let dir: string;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  let f: Farm;
  let store: FileStore;
  const file = async (id: string): Promise<FileRecord> => (await f.call('GET', `/v1/files/${id}`)).body;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'printfarm-prune-'));
    f = await openFarm(dir, clock);
    store = new FileStore(dir);
  });
  after(async () => {
    await f.t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps files of queued, printing and paused jobs; removes an ended job\'s file past the retention, once', async () => {
    const webhook = await f.call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['file.*'], secret: 'whsec_0123456789abcdef' });
    assert.equal(webhook.status, 201, JSON.stringify(webhook.body));
    const ended = await f.upload(gcodeWithThumbnail('ended'), 'ended.gcode');
    assert.equal((await f.call('DELETE', `/v1/jobs/${ended.id}`)).status, 200);
    const queued = await f.upload(gcodeWithThumbnail('queued'));
    const printing = await f.upload(gcodeWithThumbnail('printing'));
    const paused = await f.upload(gcodeWithThumbnail('paused'));
    // No printer here: the statuses are written as the job runner writes them when a printer takes and pauses a job.
    await dbRows(f.t.handle, "UPDATE jobs SET status = 'printing' WHERE id = ?", printing.id);
    await dbRows(f.t.handle, "UPDATE jobs SET status = 'paused' WHERE id = ?", paused.id);
    const endedFile = await file(ended.file_id!);
    assert.equal(ended.file_deleted, false);
    assert.ok(ended.thumbnail_url);

    clock.advance(29 * DAY_MS);
    assert.equal((await f.t.deps.filePruner.runOnce()).files, 0, 'nothing is older than 30 days yet');

    clock.advance(2 * DAY_MS);
    const report = await f.t.deps.filePruner.runOnce();
    assert.equal(report.files, 1);
    assert.equal(report.retention, 1);
    assert.equal(report.bytes, endedFile.size + endedFile.thumbnail!.size);
    assert.equal(existsSync(store.contentPath(endedFile.sha256)), false, 'content removed');
    assert.equal(existsSync(store.thumbnailPath(endedFile.sha256, 'image/png')), false, 'thumbnail removed');
    for (const held of [queued, printing, paused]) {
      const heldFile = await file(held.file_id!);
      assert.equal(heldFile.deleted_at, null, `${held.id} keeps its file`);
      assert.ok(existsSync(store.contentPath(heldFile.sha256)));
      assert.equal((await f.call('GET', `/v1/jobs/${held.id}`)).body.file_deleted, false);
    }

    const job = (await f.call('GET', `/v1/jobs/${ended.id}`)).body as JobRecord;
    assert.equal(job.status, 'cancelled');
    assert.equal(job.file_deleted, true);
    assert.equal(job.thumbnail_url, null, 'the dashboard is not sent to a thumbnail that 404s');
    const listed = (await f.call('GET', '/v1/jobs?status=cancelled')).body.data as JobRecord[];
    assert.equal(listed.find((j) => j.id === ended.id)?.file_deleted, true);
    const gone = await file(ended.file_id!);
    assert.equal(gone.deleted_at, new Date(clock.now()).toISOString());
    assert.equal(gone.thumbnail_url, null);
    const thumb = await f.call('GET', `/v1/files/${ended.file_id}/thumbnail`);
    assert.equal(thumb.status, 410);
    assert.equal(thumb.body.error.code, 'file_deleted');
    await assert.rejects(f.t.deps.jobFiles.pathOf(ended.file_id!), (err: { status?: number; code?: string }) => err.status === 410 && err.code === 'file_deleted');

    assert.equal((await f.t.deps.filePruner.runOnce()).files, 0, 'a second pass finds nothing more');
    assert.deepEqual((await prunedEvents(f.t)), [[ended.file_id, 'retention']]);
    const event = JSON.parse((await dbRow<{ body: string }>(f.t.handle, "SELECT body FROM events WHERE type = 'file.pruned'"))!.body);
    assert.deepEqual(event.data.object, { id: ended.file_id, original_name: 'ended.gcode', size: endedFile.size, reason: 'retention' });
    const deliveries = (await dbRow<{ n: number }>(f.t.handle, 'SELECT COUNT(*) AS n FROM webhook_deliveries WHERE webhook_id = ?', webhook.body.id))!;
    assert.equal(deliveries.n, 1, 'one delivery to the file.* webhook');
    assert.equal((await f.call('DELETE', `/v1/webhooks/${webhook.body.id}`)).status, 204);
  });

  it('an upload of the pruned content stores it again under the same id', async () => {
    const [[fileId]] = (await prunedEvents(f.t)) as [[string]];
    const again = await f.upload(gcodeWithThumbnail('ended'), 'ended-again.gcode');
    assert.equal(again.file_id, fileId);
    assert.equal(again.file_deleted, false);
    assert.ok(again.thumbnail_url);
    const restored = await file(fileId);
    assert.equal(restored.deleted_at, null);
    assert.equal(restored.last_used_at, new Date(clock.now()).toISOString());
    assert.ok(existsSync(store.contentPath(restored.sha256)));
    assert.equal((await f.t.request(`/v1/files/${fileId}/thumbnail`, { headers: bearer(f.key) })).status, 200);
    assert.equal((await f.call('DELETE', `/v1/jobs/${again.id}`)).status, 200);
  });

  it('over file_store_max_gb the least recently used unheld files go first, until under', async () => {
    // Every job ends; three files used one day apart, the newest last.
    for (const j of (await f.call('GET', '/v1/jobs?per_page=100')).body.data as JobRecord[]) {
      if (j.status === 'printing' || j.status === 'paused') await dbRows(f.t.handle, "UPDATE jobs SET status = 'failed', completed_at = ? WHERE id = ?", new Date(clock.now()).toISOString(), j.id);
      else if (j.status === 'queued') await f.call('DELETE', `/v1/jobs/${j.id}`);
    }
    const ids: string[] = [];
    for (const tag of ['first', 'second', 'third']) {
      clock.advance(DAY_MS);
      const j = await f.upload(gcodeWithThumbnail(tag));
      ids.push(j.file_id!);
    }
    const sizes = await Promise.all(ids.map(async (id) => { const r = await file(id); return r.size + r.thumbnail!.size; }));
    const stored = (await dbRow<{ n: number }>(f.t.handle, 'SELECT SUM(size + COALESCE(thumbnail_size, 0)) AS n FROM files WHERE deleted_at IS NULL'))!.n;
    // Room for everything but the two oldest of all (the files of the first test, then 'first' if needed).
    const capBytes = stored - sizes[0]! / 2;
    assert.equal((await f.call('PATCH', '/v1/organization', { file_store_max_gb: capBytes / 1024 ** 3 })).status, 200);
    clock.advance(DAY_MS);
    const before = (await prunedEvents(f.t)).length;
    const report = await f.t.deps.filePruner.runOnce();
    assert.equal(report.store_size, 1);
    assert.equal(report.retention, 0);
    const newEvents = (await prunedEvents(f.t)).slice(before);
    assert.equal(newEvents.length, 1);
    assert.equal(newEvents[0]![1], 'store_size');
    assert.ok(!ids.includes(newEvents[0]![0]!), 'an older file went before the three new ones');
    // The queued job of 'third' holds its file whatever the cap: only unheld files go.
    assert.equal((await f.call('PATCH', '/v1/organization', { file_store_max_gb: 1e-9 })).status, 200);
    clock.advance(DAY_MS);
    const tight = await f.t.deps.filePruner.runOnce();
    assert.ok(tight.over_cap_bytes > 0);
    for (const id of ids) assert.equal((await file(id)).deleted_at, null, `${id} is held by its queued job`);
    assert.equal((await f.call('PATCH', '/v1/organization', { file_store_max_gb: null })).status, 200);
  });

  it('a file used again or taken by a job after the pass chose it is not marked', async () => {
    const held = await f.upload(gcodeWithThumbnail('held-after-choice'));
    const row = async () => (await dbRow<{ last_used_at: string }>(f.t.handle, 'SELECT last_used_at FROM files WHERE id = ?', held.file_id))!;
    const now = new Date(clock.now()).toISOString();
    assert.equal(await markFilePruned(f.t.deps.db, held.file_id!, (await row()).last_used_at, now), false, 'its queued job holds it');
    assert.equal((await f.call('DELETE', `/v1/jobs/${held.id}`)).status, 200);
    assert.equal(await markFilePruned(f.t.deps.db, held.file_id!, '2025-01-01T00:00:00.000Z', now), false, 'uploaded again since');
    assert.equal((await file(held.file_id!)).deleted_at, null);
  });

  it('a pass runs at start', async () => {
    const job = await f.upload(gcodeWithThumbnail('restart'));
    assert.equal((await f.call('DELETE', `/v1/jobs/${job.id}`)).status, 200);
    await f.t.close();
    clock.advance(31 * DAY_MS);
    f = await openFarm(dir, clock, f.key);
    for (let i = 0; i < 200 && !(await prunedEvents(f.t)).some(([id]) => id === job.file_id); i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual((await prunedEvents(f.t)).filter(([id]) => id === job.file_id), [[job.file_id, 'retention']]);
    assert.equal((await f.call('GET', `/v1/jobs/${job.id}`)).body.file_deleted, true);
  });
});

describe('pruning settings', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await startTestApp();
    key = await mintTestKey(t);
  });
  after(() => t.close());
  const patch = (body: unknown) => t.request('/v1/organization', { method: 'PATCH', headers: bearer(key, true), body: JSON.stringify(body) });
  const org = async () => (await (await t.request('/v1/organization', { headers: bearer(key) })).json()) as Record<string, unknown>;

  const bad: [string, unknown, RegExp][] = [
    ['file_retention_days', '30', /file_retention_days/],
    ['file_retention_days', 0, /file_retention_days/],
    ['file_retention_days', 1.5, /file_retention_days/],
    ['file_retention_days', 36_501, /file_retention_days/],
    ['file_retention_days', true, /file_retention_days/],
    ['file_store_max_gb', '1', /file_store_max_gb/],
    ['file_store_max_gb', 0, /file_store_max_gb/],
    ['file_store_max_gb', -2, /file_store_max_gb/],
    ['file_store_max_gb', { gb: 1 }, /file_store_max_gb/],
    ['file_store_max_gb', 1e7, /file_store_max_gb/],
  ];
  for (const [field, value, message] of bad) {
    it(`refuses ${field}: ${JSON.stringify(value)} with 400, changing nothing`, async () => {
      const before = await org();
      const res = await patch({ name: 'Renamed farm', [field]: value });
      assert.equal(res.status, 400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'invalid_request');
      assert.match(body.error.message, message);
      assert.deepEqual(await org(), before);
    });
  }

  it('takes a number of days, a cap in GiB, and null for either', async () => {
    const before = await org();
    assert.equal(before.file_retention_days, 30);
    assert.equal(before.file_store_max_gb, null);
    let res = await patch({ file_retention_days: 7, file_store_max_gb: 2.5 });
    assert.equal(res.status, 200);
    let after = (await res.json()) as Record<string, unknown>;
    assert.equal(after.file_retention_days, 7);
    assert.equal(after.file_store_max_gb, 2.5);
    res = await patch({ file_retention_days: null, file_store_max_gb: null });
    after = (await res.json()) as Record<string, unknown>;
    assert.equal(after.file_retention_days, null);
    assert.equal(after.file_store_max_gb, null);
    assert.deepEqual({ ...(await org()), updated_at: null }, { ...after, updated_at: null });
  });
});
