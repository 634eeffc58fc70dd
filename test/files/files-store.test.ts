// Ingesting streams into the content-addressed store: dedup by hash, limits, invalid content leaves nothing behind.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { countFiles } from '../../src/files/files.repository.js';
import { appError, startFilesHarness, type FilesHarness } from './files-harness.js';
import { makePng, prusaSlicer, thumbnailBlock } from './gcode-fixtures.js';

const chunked = (text: string | Buffer, size = 1000): Readable => {
  const buf = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const parts: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) parts.push(buf.subarray(i, i + size));
  return Readable.from(parts);
};

describe('files store and ingestStream', () => {
  let h: FilesHarness;
  before(() => {
    h = startFilesHarness({ maxFileBytes: 64 * 1024 });
  });
  after(async () => {
    await h.close();
  });

  it('stores a file under its SHA-256 with its metadata and thumbnail, and the same content only once', async () => {
    const png = makePng(24, 24);
    const text = prusaSlicer(thumbnailBlock(png, 24, 24));
    const first = await h.files.ingestStream(chunked(text), 'dir/../benchy.gcode');
    assert.match(first.id, /^file_[0-9A-Za-z]{20}$/);
    assert.equal(first.sha256, createHash('sha256').update(text).digest('hex'));
    assert.equal(first.size, Buffer.byteLength(text));
    assert.equal(first.original_name, 'benchy.gcode');
    assert.equal(first.slicer, 'PrusaSlicer');
    assert.equal(first.estimated_duration, 3723);
    assert.deepEqual(first.thumbnail, { content_type: 'image/png', width: 24, height: 24, size: png.length, url: `/v1/files/${first.id}/thumbnail` });
    const stored = await h.files.localCopy(first);
    assert.ok(stored.startsWith(`${h.dataDir}/files/${first.sha256.slice(0, 2)}/${first.sha256.slice(2, 4)}/`));
    assert.equal(readFileSync(stored, 'utf8'), text);
    assert.ok((await h.files.getThumbnail(first.id)).data.equals(png));

    const again = await h.files.ingestStream(chunked(text, 7), 'copy.gcode');
    assert.equal(again.id, first.id, 'same content, same record');
    assert.equal(again.original_name, 'benchy.gcode');
    assert.equal(await countFiles(h.handle.db), 1);
    assert.deepEqual(h.tempFiles(), []);
  });

  it('refuses invalid content with 422 file_invalid and keeps nothing', async () => {
    await assert.rejects(h.files.ingestStream(chunked('hello\nworld\n'), 'notes.txt'), appError(422, 'file_invalid', /no G or M command/));
    await assert.rejects(h.files.ingestStream(chunked(Buffer.alloc(5000, 0)), 'zeros.bin'), appError(422, 'file_invalid', /^line 1: .*NUL/));
    assert.equal(await countFiles(h.handle.db), 1);
    assert.deepEqual(h.tempFiles(), []);
  });

  it('refuses a file over the size limit with 413, counting the bytes (no length was announced)', async () => {
    const big = 'G1 X1 Y1\n'.repeat(10_000);
    await assert.rejects(h.files.ingestStream(chunked(big), 'big.gcode'), appError(413, 'invalid_request', /^file: the file is larger than the 64 KiB limit/));
    assert.deepEqual(h.tempFiles(), []);
  });

  it('getFile answers 404 for an unknown id, getThumbnail 404 for a file without one', async () => {
    await assert.rejects(h.files.getFile('file_nope'), appError(404, 'resource_not_found', /file file_nope not found/));
    const plain = await h.files.ingestStream(chunked('G28\nM84\n'), 'plain.gcode');
    await assert.rejects(h.files.getThumbnail(plain.id), appError(404, 'resource_not_found', /has no thumbnail/));
  });

  it('two uploads of the same new content at once end as one record', async () => {
    const text = 'G28\nG1 X42 Y42\nM84\n';
    const [a, b] = await Promise.all([h.files.ingestStream(chunked(text, 3), 'a.gcode'), h.files.ingestStream(chunked(text, 5), 'b.gcode')]);
    assert.equal(a.id, b.id);
    const rows = await h.handle.db.selectFrom('files').select('id').where('sha256', '=', a.sha256).execute();
    assert.equal(rows.length, 1);
    assert.deepEqual(h.tempFiles(), []);
  });

  it('restores the stored copy when a known file went missing from disk', async () => {
    const text = 'G28\nG1 X5\n';
    const rec = await h.files.ingestStream(chunked(text), 'a.gcode');
    const { unlinkSync } = await import('node:fs');
    unlinkSync(await h.files.localCopy(rec));
    const again = await h.files.ingestStream(chunked(text), 'a.gcode');
    assert.equal(again.id, rec.id);
    assert.ok(existsSync(await h.files.localCopy(rec)));
  });
});
